//===- BenchModules.h - Modules the benchmarks are run on ------------------===//
#ifndef MQSS_BENCH_BENCHMODULES_H
#define MQSS_BENCH_BENCHMODULES_H

#include "mqss/IR/Loader.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <string>

namespace mqss {

/// A module of at least \p minLines lines made of real kernels: the PolyBench
/// kernels at their small size, renamed apart, one function each.
inline std::string buildPolyBenchModule(mlir::MLIRContext &context, unsigned minLines, unsigned &functions) {
  static const char *kernels[] = {"2mm", "3mm", "atax", "bicg", "gemm", "gemver", "gesummv",
                                  "mvt", "syrk", "syr2k", "jacobi-1d", "jacobi-2d", "doitgen",
                                  "trmm", "symm", "fdtd-2d", "heat-3d", "correlation",
                                  "covariance", "lu", "cholesky", "trisolv"};
  mlir::OwningOpRef<mlir::ModuleOp> combined =
      mlir::ModuleOp::create(mlir::UnknownLoc::get(&context));
  mlir::SymbolTable symbols(*combined);
  std::string text;
  functions = 0;
  for (unsigned round = 0; llvm::count(text, '\n') < minLines; ++round) {
    for (const char *kernel : kernels) {
      std::string path = llvm::formatv("{0}/polybench/{1}/{2}_small.mlir", MQSS_BENCHMARKS_DIR,
                                       kernel, llvm::StringRef(kernel).str())
                             .str();
      std::replace(path.begin() + path.rfind('/'), path.end(), '-', '_');
      auto module = loadModuleFile(context, path);
      if (!module) {
        llvm::consumeError(module.takeError());
        continue;
      }
      for (mlir::Operation &op : llvm::make_early_inc_range((*module)->getBody()->getOperations())) {
        op.remove();
        symbols.insert(&op); // renames on a clash
        ++functions;
      }
      text.clear();
      llvm::raw_string_ostream os(text);
      combined->print(os);
      if (llvm::count(text, '\n') >= minLines)
        break;
    }
    if (round > 100)
      break;
  }
  return text;
}

} // namespace mqss

#endif // MQSS_BENCH_BENCHMODULES_H
