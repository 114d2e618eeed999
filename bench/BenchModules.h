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

/// A module of at least \p minLines lines holding one function, as a C
/// frontend emits a large kernel: repeated affine loop nests (a scaled copy,
/// a stencil, a reduction) and linalg matmuls over the same buffers.
inline std::string buildSingleFunctionModule(unsigned minLines) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "func.func @big(%a: memref<64x64xf32>, %b: memref<64x64xf32>, "
        "%c: memref<64x64xf32>, %s: memref<64xf32>) {\n"
        "  %two = arith.constant 2.0 : f32\n";
  for (unsigned block = 0; llvm::count(text, '\n') < minLines; ++block) {
    os << llvm::formatv(R"mlir(  affine.for %i{0} = 0 to 64 {{
    affine.for %j{0} = 0 to 64 {{
      %x{0} = affine.load %a[%i{0}, %j{0}] : memref<64x64xf32>
      %y{0} = arith.mulf %x{0}, %two : f32
      affine.store %y{0}, %b[%i{0}, %j{0}] : memref<64x64xf32>
    }
  }
  affine.for %p{0} = 1 to 63 {{
    affine.for %q{0} = 1 to 63 {{
      %n{0} = affine.load %b[%p{0} - 1, %q{0}] : memref<64x64xf32>
      %m{0} = affine.load %b[%p{0} + 1, %q{0}] : memref<64x64xf32>
      %t{0} = arith.addf %n{0}, %m{0} : f32
      affine.store %t{0}, %c[%p{0}, %q{0}] : memref<64x64xf32>
    }
  }
  affine.for %r{0} = 0 to 64 {{
    %init{0} = affine.load %s[%r{0}] : memref<64xf32>
    %acc{0} = affine.for %k{0} = 0 to 64 iter_args(%v{0} = %init{0}) -> (f32) {{
      %e{0} = affine.load %c[%r{0}, %k{0}] : memref<64x64xf32>
      %w{0} = arith.addf %v{0}, %e{0} : f32
      affine.yield %w{0} : f32
    }
    affine.store %acc{0}, %s[%r{0}] : memref<64xf32>
  }
  linalg.matmul ins(%a, %c : memref<64x64xf32>, memref<64x64xf32>) outs(%b : memref<64x64xf32>)
)mlir",
                        block);
  }
  os << "  return\n}\n";
  return text;
}

} // namespace mqss

#endif // MQSS_BENCH_BENCHMODULES_H
