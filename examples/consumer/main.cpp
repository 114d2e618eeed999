//===- main.cpp - A compiler using MQSS-Selector through its C++ API -------===//
//
//   mqss-consumer kernel.mlir [target]
//
// Parses the module, lets the shipped policy select a pipeline for each
// function, applies it, and prints the decisions and the optimized IR.
//
//===----------------------------------------------------------------------===//

#include "mqss/IR/Context.h"
#include "mqss/Selector/Selector.h"

#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    llvm::errs() << "usage: mqss-consumer kernel.mlir [target]\n";
    return 2;
  }
  auto context = mqss::createContext(); // every upstream dialect registered
  mqss::registerPasses();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], context.get());
  if (!module)
    return 1; // the parser printed the diagnostic

  mqss::SelectorOptions options;
  options.target = argc > 2 ? argv[2] : "host";
  auto selector = mqss::Selector::create(options);
  if (!selector) {
    llvm::errs() << "error: " << llvm::toString(selector.takeError()) << "\n";
    return 1;
  }
  auto selection = (*selector)->optimize(*module);
  if (!selection) {
    llvm::errs() << "error: " << llvm::toString(selection.takeError()) << "\n";
    return 1;
  }
  llvm::outs() << "// model: " << (*selector)->modelPath() << "\n";
  for (const mqss::FunctionSelection &function : selection->functions) {
    llvm::outs() << "// @" << function.name << ":";
    for (const mqss::Action *action : function.actions)
      llvm::outs() << " " << action->name;
    llvm::outs() << "\n// pipeline: " << function.pipeline << "\n";
  }
  module->print(llvm::outs());
  llvm::outs() << "\n";
  return 0;
}
