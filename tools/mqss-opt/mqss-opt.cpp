//===- mqss-opt.cpp - mlir-opt with every upstream pass plus mqss-select ---===//
//
//   mqss-opt --pass-pipeline='builtin.module(mqss-select{target=x86-avx2})' in.mlir
//
//===----------------------------------------------------------------------===//

#include "mqss/IR/Context.h"
#include "mqss/IR/Loader.h"
#include "mqss/Passes/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/ToolUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

/// Refuses, as mqss's loader does, input nested deeper than MLIR's recursive
/// parser can take, or holding an op MLIR 19's verifier crashes on (both
/// would end with a segfault): prints why and returns true.
static bool inputRefused(const llvm::MemoryBuffer &buffer) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(buffer.getBuffer(), buffer.getBufferIdentifier()),
      llvm::SMLoc());
  return mqss::reportParserHazard(sourceMgr, llvm::errs()) ||
         mqss::reportVerifierCrashes(sourceMgr, llvm::errs());
}

/// --split-input-file: each `// -----` piece is checked, and refused, on its
/// own, so that one piece MLIR cannot take does not cost the others their
/// output (MlirOptMain would check nothing: it gets the pieces one by one).
static mlir::LogicalResult processPieces(llvm::StringRef inputFilename,
                                         llvm::StringRef outputFilename,
                                         mlir::DialectRegistry &registry,
                                         const mlir::MlirOptMainConfig &config) {
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file = mlir::openInputFile(inputFilename, &errorMessage);
  if (!file) {
    llvm::errs() << errorMessage << "\n";
    return mlir::failure();
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return mlir::failure();
  }
  mlir::MlirOptMainConfig pieceConfig = config;
  pieceConfig.splitInputFile("");
  pieceConfig.outputSplitMarker("");
  auto processPiece = [&](std::unique_ptr<llvm::MemoryBuffer> piece, llvm::raw_ostream &os) {
    if (inputRefused(*piece))
      return mlir::failure();
    return mlir::MlirOptMain(os, std::move(piece), registry, pieceConfig);
  };
  if (mlir::failed(mlir::splitAndProcessBuffer(std::move(file), processPiece, output->os(),
                                               config.inputSplitMarker(),
                                               config.outputSplitMarker())))
    return mlir::failure();
  output->keep();
  return mlir::success();
}

int main(int argc, char **argv) {
  mqss::registerPasses();
  mqss::registerMQSSPasses();
  mlir::DialectRegistry registry;
  mqss::registerDialects(registry);
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "MQSS-Selector optimizer driver: mlir-opt plus the mqss-select pass\n",
      registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  if (!config.inputSplitMarker().empty() && !config.shouldShowDialects())
    return mlir::asMainReturnCode(
        processPieces(inputFilename, outputFilename, registry, config));
  // Standard input can be read once only: MLIR's parser reads it unchecked.
  if (inputFilename != "-") {
    auto buffer = llvm::MemoryBuffer::getFile(inputFilename, /*IsText=*/true);
    if (buffer && inputRefused(**buffer)) // (MlirOptMain reports an unreadable file)
      return 1;
  }
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));
}
