//===- HarnessBench.cpp - Harness overhead and calibration, as JSON --------===//
//
// 1. Overhead: wall time of one whole measurement of a trivial kernel (fork,
//    parse, lower, JIT, 5 timed runs), over many repetitions.
// 2. Calibration: linalg.matmul 256x256x256 f32, naive lowering against the
//    transform-dialect schedule tile [8,32,1] + vectorize + outer products,
//    timed interleaved in one child; the expected ratio is > 10x.
//
// Usage: mqss-bench-harness [--repetitions=N] [--target=T]
//
//===----------------------------------------------------------------------===//

#include "BenchOptions.h"
#include "mqss/Runtime/Harness.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mqss;

static llvm::cl::opt<unsigned>
    repetitions("repetitions", llvm::cl::desc("Overhead measurements"),
                llvm::cl::init(30), llvm::cl::cat(benchOptions()));
static llvm::cl::opt<std::string> target("target", llvm::cl::desc("JIT target"),
                                         llvm::cl::init("host"),
                                         llvm::cl::cat(benchOptions()));

static double percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  size_t index = static_cast<size_t>(p * (values.size() - 1) + 0.5);
  return values[index];
}

static llvm::json::Object overhead(llvm::StringRef label,
                                   llvm::StringRef pipeline) {
  std::vector<double> wall, jit, compile;
  for (unsigned i = 0; i < repetitions; ++i) {
    RunRequest request;
    request.inputPath = MQSS_BENCH_KERNELS "/trivial.mlir";
    request.pipeline = pipeline.str();
    request.target = target;
    request.reps = 5;
    request.minTimeMs = 0;
    request.warmup = 0;
    RunReport report = runMeasurement(request);
    if (!report.ok()) {
      llvm::errs() << "overhead run failed: " << report.message << "\n";
      std::exit(1);
    }
    wall.push_back(report.wallMs);
    jit.push_back(report.candidate.jitMs);
    compile.push_back(report.candidate.compileMs);
  }
  return llvm::json::Object{
      {"name", label},
      {"pipeline", pipeline},
      {"repetitions", repetitions.getValue()},
      {"wall_ms_p50", percentile(wall, 0.5)},
      {"wall_ms_p90", percentile(wall, 0.9)},
      {"wall_ms_min", percentile(wall, 0.0)},
      {"jit_ms_p50", percentile(jit, 0.5)},
      {"compile_ms_p50", percentile(compile, 0.5)},
      {"target_ms", 60.0},
  };
}

int main(int argc, char **argv) {
  parseBenchCommandLine(argc, argv, "MQSS harness benchmarks\n");
  llvm::json::Array results;
  llvm::errs() << "overhead: naive candidate...\n";
  results.push_back(overhead("overhead-trivial-naive", "naive"));
  llvm::errs() << "overhead: transformed candidate (reference compiled too)...\n";
  results.push_back(
      overhead("overhead-trivial-unrolled", "func.func(affine-loop-unroll{unroll-factor=4})"));

  llvm::errs() << "calibration: matmul 256^3 naive vs tile [8,32,1] + vectorize...\n";
  RunRequest request;
  request.inputPath = MQSS_EXAMPLES "/matmul.mlir";
  request.pipeline = "transform-preload-library{transform-library-paths=" MQSS_EXAMPLES
                     "/matmul_schedule.mlir},transform-interpreter";
  request.baseline = "naive";
  request.target = target;
  request.reps = 20;
  request.minTimeMs = 500;
  RunReport report = runMeasurement(request);
  if (!report.ok() || !report.speedup) {
    llvm::errs() << "calibration failed: " << report.message << "\n";
    return 1;
  }
  double flops = 2.0 * 256 * 256 * 256;
  results.push_back(llvm::json::Object{
      {"name", "calibration-matmul-256"},
      {"target", report.target},
      {"target_cpu", report.targetCpu},
      {"naive_ms", report.baseline->runtimeMs.median},
      {"scheduled_ms", report.candidate.runtimeMs.median},
      {"scheduled_gflops", flops / (report.candidate.runtimeMs.median * 1e6)},
      {"speedup_median", report.speedup->median},
      {"speedup_ci_low", report.speedup->ciLow},
      {"speedup_ci_high", report.speedup->ciHigh},
      {"rounds", report.rounds},
      {"expected_speedup_above", 10.0},
  });
  llvm::outs() << llvm::formatv(
      "{0:2}\n", llvm::json::Value(llvm::json::Object{
                     {"benchmark", "harness"},
                     {"timings_are_platform_dependent", true},
                     {"results", std::move(results)}}));
  return 0;
}
