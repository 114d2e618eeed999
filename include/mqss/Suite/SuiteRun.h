//===- SuiteRun.h - Measure a pipeline over the benchmark suite ------------===//
#ifndef MQSS_SUITE_SUITERUN_H
#define MQSS_SUITE_SUITERUN_H

#include "mqss/Runtime/Harness.h"
#include "mqss/Suite/Registry.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace mqss {

struct SuiteRunOptions {
  std::string pipeline = "naive";
  std::optional<std::string> baseline;
  std::string target = "host";
  unsigned reps = 5;
  double minTimeMs = 50;
  unsigned warmup = 1;
  uint64_t seed = 1;
  double rtol = 1e-3;
  SandboxLimits limits;
};

struct SuiteResult {
  std::vector<std::pair<BenchmarkEntry, RunReport>> runs;
  double wallSeconds = 0;
  size_t okCount() const;
  /// Geometric mean, minimum and maximum of the per-module median speedups
  /// over the baseline, among modules measured ok (0 when there are none).
  double geomeanSpeedup = 0, minSpeedup = 0, maxSpeedup = 0;
};

/// Called after each module with its index, the total and its report.
using SuiteProgress = llvm::function_ref<void(size_t index, size_t total,
                                              const BenchmarkEntry &,
                                              const RunReport &)>;

/// Measures every entry in turn (each in its own sandboxed child).
SuiteResult runSuite(const std::vector<BenchmarkEntry> &entries,
                     const SuiteRunOptions &options, SuiteProgress progress);

/// The request `mqss run` would make for \p entry.
RunRequest requestFor(const BenchmarkEntry &entry, const SuiteRunOptions &options);

/// One measurement task: a module of the suite on one target.
struct SuiteTask {
  BenchmarkEntry entry;
  RunRequest kernel;
};

/// Loads the registry (\p registryPath, empty: the default), selects
/// \p filter's modules and makes a request for each on each of \p targets
/// (\p options' target is replaced), targets outermost.
llvm::Expected<std::vector<SuiteTask>> suiteTasks(llvm::StringRef registryPath,
                                                  const RegistryFilter &filter,
                                                  llvm::ArrayRef<std::string> targets,
                                                  SuiteRunOptions options);

llvm::json::Value toJSON(const BenchmarkEntry &entry);
llvm::json::Value toJSON(const SuiteResult &result, const SuiteRunOptions &options);
void printSuiteResult(const SuiteResult &result, const SuiteRunOptions &options,
                      llvm::raw_ostream &os);

} // namespace mqss

#endif // MQSS_SUITE_SUITERUN_H
