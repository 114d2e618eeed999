//===- mqss-opt.cpp - mlir-opt with every upstream pass plus mqss-select ---===//
//
//   mqss-opt --pass-pipeline='builtin.module(mqss-select{target=x86-avx2})' in.mlir
//
//===----------------------------------------------------------------------===//

#include "mqss/IR/Context.h"
#include "mqss/IR/Loader.h"
#include "mqss/Passes/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

/// Refuses, as mqss's loader does, an input file nested deeper than MLIR's
/// recursive parser can take, or holding an op MLIR 19's verifier crashes
/// on (both would end with a segfault). Standard input can be read once
/// only: MLIR's parser reads it unchecked.
static bool inputRefused(llvm::StringRef inputFilename) {
  if (inputFilename == "-")
    return false;
  auto buffer = llvm::MemoryBuffer::getFile(inputFilename, /*IsText=*/true);
  if (!buffer)
    return false; // MlirOptMain reports it
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  return mqss::reportParserHazard(sourceMgr, llvm::errs()) ||
         mqss::reportVerifierCrashes(sourceMgr, llvm::errs());
}

int main(int argc, char **argv) {
  mqss::registerPasses();
  mqss::registerMQSSPasses();
  mlir::DialectRegistry registry;
  mqss::registerDialects(registry);
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "MQSS-Selector optimizer driver: mlir-opt plus the mqss-select pass\n",
      registry);
  if (inputRefused(inputFilename))
    return 1;
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));
}
