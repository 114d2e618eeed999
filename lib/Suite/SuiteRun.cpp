//===- SuiteRun.cpp - Measure a pipeline over the benchmark suite ----------===//

#include "mqss/Suite/SuiteRun.h"

#include "mqss/Env/Episode.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>

namespace mqss {

size_t SuiteResult::okCount() const {
  size_t count = 0;
  for (const auto &run : runs)
    count += run.second.ok();
  return count;
}

RunRequest requestFor(const BenchmarkEntry &entry, const SuiteRunOptions &options) {
  // `expert` alone means the expert of the module's own family.
  auto forEntry = [&](const std::string &spec) {
    return spec == "expert" ? "expert:" + entry.family : spec;
  };
  RunRequest request;
  request.inputPath = entry.path;
  request.entry = entry.entry;
  request.pipeline = forEntry(options.pipeline);
  if (options.baseline)
    request.baseline = forEntry(*options.baseline);
  usePolicyPipelines(request);
  request.target = options.target;
  request.inputs.seed = options.seed;
  request.inputs.shapes = entry.shapes;
  request.inputs.scalars = entry.args;
  request.reps = options.reps;
  request.minTimeMs = options.minTimeMs;
  request.warmup = options.warmup;
  request.rtol = options.rtol;
  request.limits = options.limits;
  return request;
}

SuiteResult runSuite(const std::vector<BenchmarkEntry> &entries,
                     const SuiteRunOptions &options, SuiteProgress progress) {
  auto start = std::chrono::steady_clock::now();
  SuiteResult result;
  double logSum = 0;
  size_t measured = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    RunReport report = runMeasurement(requestFor(entries[i], options));
    if (report.ok() && report.speedup && report.speedup->median > 0) {
      double s = report.speedup->median;
      logSum += std::log(s);
      result.minSpeedup = measured ? std::min(result.minSpeedup, s) : s;
      result.maxSpeedup = measured ? std::max(result.maxSpeedup, s) : s;
      ++measured;
    }
    if (progress)
      progress(i, entries.size(), entries[i], report);
    result.runs.emplace_back(entries[i], std::move(report));
  }
  if (measured)
    result.geomeanSpeedup = std::exp(logSum / measured);
  result.wallSeconds = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - start)
                           .count();
  return result;
}

llvm::json::Value toJSON(const BenchmarkEntry &entry) {
  llvm::json::Object shapes;
  for (const auto &[arg, sizes] : entry.shapes)
    shapes[arg] = llvm::json::Array(sizes);
  llvm::json::Object args;
  for (const auto &[arg, value] : entry.args)
    args[arg] = value;
  return llvm::json::Object{
      {"name", entry.name},     {"kernel", entry.kernel},
      {"family", entry.family}, {"split", entry.split},
      {"size", entry.size},     {"path", entry.relativePath},
      {"entry", entry.entry},   {"source", entry.source},
      {"shapes", std::move(shapes)}, {"args", std::move(args)}};
}

llvm::json::Value toJSON(const SuiteResult &result, const SuiteRunOptions &options) {
  llvm::json::Array runs;
  for (const auto &[entry, report] : result.runs) {
    llvm::json::Object run{
        {"name", entry.name},
        {"kernel", entry.kernel},
        {"family", entry.family},
        {"split", entry.split},
        {"status", runStatusName(report.status)},
        {"runtime_ms", report.candidate.runtimeMs.median},
        {"check", verdictName(report.candidate.output.verdict)},
        {"compile_ms", report.candidate.compileMs},
        {"jit_ms", report.candidate.jitMs},
    };
    if (!report.ok())
      run["message"] = report.message;
    if (report.baseline)
      run["baseline_runtime_ms"] = report.baseline->runtimeMs.median;
    if (report.speedup)
      run["speedup"] = llvm::json::Object{{"median", report.speedup->median},
                                          {"ci_low", report.speedup->ciLow},
                                          {"ci_high", report.speedup->ciHigh}};
    runs.push_back(std::move(run));
  }
  llvm::json::Object summary{{"count", static_cast<int64_t>(result.runs.size())},
                             {"ok", static_cast<int64_t>(result.okCount())},
                             {"failed", static_cast<int64_t>(result.runs.size() -
                                                             result.okCount())},
                             {"wall_s", result.wallSeconds}};
  if (options.baseline) {
    summary["geomean_speedup"] = result.geomeanSpeedup;
    summary["min_speedup"] = result.minSpeedup;
    summary["max_speedup"] = result.maxSpeedup;
  }
  llvm::json::Object object{{"pipeline", options.pipeline},
                            {"target", options.target},
                            {"results", std::move(runs)},
                            {"summary", std::move(summary)},
                            {"timing_is_platform_dependent", true}};
  if (options.baseline)
    object["baseline"] = *options.baseline;
  return object;
}

void printSuiteResult(const SuiteResult &result, const SuiteRunOptions &options,
                      llvm::raw_ostream &os) {
  bool withBaseline = options.baseline.has_value();
  os << llvm::formatv("{0,-34}{1,-20}{2,-16}{3,12}", "module", "family", "status",
                      "runtime ms");
  if (withBaseline)
    os << llvm::formatv("{0,14}{1,10}", "baseline ms", "speedup");
  os << "\n";
  for (const auto &[entry, report] : result.runs) {
    os << llvm::formatv("{0,-34}{1,-20}{2,-16}", entry.name, entry.family,
                        runStatusName(report.status));
    if (report.ok()) {
      os << llvm::formatv("{0,12:f3}", report.candidate.runtimeMs.median);
      if (withBaseline && report.speedup)
        os << llvm::formatv("{0,14:f3}{1,9:f2}x", report.baseline->runtimeMs.median,
                            report.speedup->median);
    } else {
      os << "  " << report.message;
    }
    os << "\n";
  }
  os << llvm::formatv("{0} modules, {1} ok, {2} failed, {3:f1} s", result.runs.size(),
                      result.okCount(), result.runs.size() - result.okCount(),
                      result.wallSeconds);
  if (withBaseline)
    os << llvm::formatv("; speedup over baseline: geomean {0:f2}x, min {1:f2}x, "
                        "max {2:f2}x",
                        result.geomeanSpeedup, result.minSpeedup, result.maxSpeedup);
  os << "\n";
}

llvm::Expected<std::vector<SuiteTask>> suiteTasks(llvm::StringRef registryPath,
                                                  const RegistryFilter &filter,
                                                  llvm::ArrayRef<std::string> targets,
                                                  SuiteRunOptions options) {
  auto registry = Registry::load(registryPath.empty() ? Registry::defaultPath() : registryPath);
  if (!registry)
    return registry.takeError();
  auto entries = registry->select(filter);
  if (!entries)
    return entries.takeError();
  std::vector<SuiteTask> tasks;
  for (const std::string &target : targets)
    for (const BenchmarkEntry &entry : *entries) {
      options.target = target;
      tasks.push_back({entry, requestFor(entry, options)});
    }
  return tasks;
}

} // namespace mqss
