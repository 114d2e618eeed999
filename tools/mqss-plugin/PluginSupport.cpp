//===- PluginSupport.cpp - What the plugin has instead of IR/Context.cpp ----===//
//
// Inside mlir-opt every upstream pass and dialect is already registered, and
// the JIT (ExecutionEngine) is not in the process: the plugin replaces the
// registration functions and the measured guard with these.
//
//===----------------------------------------------------------------------===//

#include "mqss/IR/Context.h"
#include "mqss/Selector/Selector.h"

#include "llvm/Support/TargetSelect.h"

#include <mutex>

namespace mqss {

void registerPasses() {} // mlir-opt registered them all

void completeRegistrations(mlir::MLIRContext &) {} // so did it every dialect and extension

void initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

llvm::Error SelectorOptions::parseGuardInputs(llvm::ArrayRef<std::string> shapes,
                                              llvm::ArrayRef<std::string> scalars) {
  if (shapes.empty() && scalars.empty())
    return llvm::Error::success();
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "shape and arg are for guard=measure, which needs the JIT the mlir-opt plugin does "
      "not have: use mqss-opt or `mqss select --guard=measure`");
}

llvm::Expected<Selection> Selector::selectMeasured(mlir::ModuleOp) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "guard=measure needs the JIT, which the mlir-opt plugin does not have: use "
      "mqss-opt or `mqss select --guard=measure`");
}

} // namespace mqss
