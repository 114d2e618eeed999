//===- BenchOptions.h - Command lines of the benchmark tools ---------------===//
//
// libLLVM registers hundreds of its own options; a benchmark's --help lists
// only the benchmark's.
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_BENCH_BENCHOPTIONS_H
#define MQSS_BENCH_BENCHOPTIONS_H

#include "llvm/Support/CommandLine.h"

namespace mqss {

inline llvm::cl::OptionCategory &benchOptions() {
  static llvm::cl::OptionCategory category("Benchmark options");
  return category;
}

inline void parseBenchCommandLine(int argc, char **argv, const char *overview) {
  llvm::cl::HideUnrelatedOptions(benchOptions());
  llvm::cl::ParseCommandLineOptions(argc, argv, overview);
}

} // namespace mqss

#endif // MQSS_BENCH_BENCHOPTIONS_H
