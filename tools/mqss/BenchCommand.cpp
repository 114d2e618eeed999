//===- BenchCommand.cpp - `mqss bench list|run` over the kernel suite ------===//

#include "Commands.h"

#include "mqss/Runtime/Target.h"
#include "mqss/Suite/Registry.h"
#include "mqss/Suite/SuiteRun.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <unistd.h>

using namespace llvm;

namespace mqss::tool {

cl::SubCommand benchCommand(
    "bench", "The benchmark suite: `mqss bench list` shows it, `mqss bench run` "
             "measures a pipeline (against a baseline) on every selected module");

static cl::opt<std::string> action(cl::Positional, cl::Required,
                                   cl::desc("<list|run>"), cl::sub(benchCommand),
                                   cl::cat(category()));
static cl::opt<std::string> registryPath(
    "registry", cl::desc("Registry file (default: the source tree's benchmarks/registry.json, "
                         "or $MQSS_BENCHMARKS/registry.json)"),
    cl::sub(benchCommand), cl::cat(category()));
static cl::opt<std::string> split("split", cl::desc("train, validation or test"),
                                  cl::sub(benchCommand), cl::cat(category()));
static cl::opt<std::string> family("family", cl::desc("Only this family"),
                                   cl::sub(benchCommand), cl::cat(category()));
static cl::opt<std::string> kernel("kernel", cl::desc("Only this kernel (or module name)"),
                                   cl::sub(benchCommand), cl::cat(category()));
static cl::opt<std::string> size("size",
                                 cl::desc("small, medium, large, or smallest (each kernel's)"),
                                 cl::sub(benchCommand), cl::cat(category()));
static cl::opt<std::string> pipeline("pipeline", cl::desc("Pipeline to measure (run)"),
                                     cl::init("naive"), cl::sub(benchCommand),
                                     cl::cat(category()));
static cl::opt<std::string> baseline("baseline",
                                     cl::desc("Pipeline to compare with, interleaved (run)"),
                                     cl::sub(benchCommand), cl::cat(category()));
static cl::opt<std::string> target("target", cl::desc("Code generation target"),
                                   cl::init("host"), cl::sub(benchCommand),
                                   cl::cat(category()));
static cl::opt<unsigned> reps("reps", cl::desc("Minimum timed runs per module"),
                              cl::init(5), cl::sub(benchCommand), cl::cat(category()));
static cl::opt<double> minTimeMs("min-time-ms", cl::desc("Minimum timing per module"),
                                 cl::init(50), cl::sub(benchCommand), cl::cat(category()));
static cl::opt<unsigned> warmup("warmup", cl::desc("Warm-up runs per pipeline"),
                                cl::init(1), cl::sub(benchCommand), cl::cat(category()));
static cl::opt<double> timeoutS("timeout-s", cl::desc("Limit per module"), cl::init(120),
                                cl::sub(benchCommand), cl::cat(category()));
static cl::opt<uint64_t> seed("seed", cl::desc("Input seed"), cl::init(1),
                              cl::sub(benchCommand), cl::cat(category()));
static cl::opt<bool> json("json", cl::desc("Print JSON"), cl::sub(benchCommand),
                          cl::cat(category()));

static int benchError(const Twine &message) {
  return reportError("mqss bench", message, json, 2);
}

static Expected<std::vector<BenchmarkEntry>> selectEntries() {
  std::string path = registryPath.empty() ? Registry::defaultPath() : registryPath;
  auto registry = Registry::load(path);
  if (!registry)
    return registry.takeError();
  RegistryFilter filter{split, family, kernel, size};
  return registry->select(filter);
}

static int listMain(const std::vector<BenchmarkEntry> &entries) {
  if (json) {
    json::Array array;
    for (const BenchmarkEntry &entry : entries)
      array.push_back(toJSON(entry));
    outs() << formatv("{0:2}", json::Value(std::move(array))) << "\n";
    return 0;
  }
  outs() << formatv("{0,-34}{1,-20}{2,-12}{3,-8}{4}\n", "module", "family", "split",
                    "size", "path @entry");
  for (const BenchmarkEntry &entry : entries)
    outs() << formatv("{0,-34}{1,-20}{2,-12}{3,-8}{4} @{5}\n", entry.name,
                      entry.family, entry.split, entry.size, entry.relativePath,
                      entry.entry);
  outs() << entries.size() << " modules\n";
  return 0;
}

static int runSuiteMain(const std::vector<BenchmarkEntry> &entries) {
  SuiteRunOptions options;
  options.pipeline = pipeline;
  if (baseline.getNumOccurrences())
    options.baseline = baseline;
  options.target = target;
  options.reps = reps;
  options.minTimeMs = minTimeMs;
  options.warmup = warmup;
  options.seed = seed;
  options.limits.timeoutSeconds = timeoutS;

  // Progress goes to stderr, overwriting one line on a terminal.
  bool terminal = isatty(STDERR_FILENO);
  SuiteResult result = runSuite(
      entries, options,
      [&](size_t index, size_t total, const BenchmarkEntry &entry, const RunReport &report) {
        std::string speed = report.speedup
                                ? formatv(" {0:f2}x", report.speedup->median).str()
                                : std::string();
        errs() << formatv("{0}[{1}/{2}] {3}: {4}{5}{6}", terminal ? "\r\033[K" : "",
                          index + 1, total, entry.name, runStatusName(report.status),
                          speed, terminal ? "" : "\n");
      });
  if (terminal)
    errs() << "\n";
  if (json)
    outs() << formatv("{0:2}", toJSON(result, options)) << "\n";
  else
    printSuiteResult(result, options, outs());
  return result.okCount() == result.runs.size() ? 0 : 1;
}

int benchMain() {
  if (action != "list" && action != "run")
    return benchError("unknown action '" + action + "': expected `list` or `run`");
  auto entries = selectEntries();
  if (!entries)
    return benchError(toString(entries.takeError()));
  // (A --kernel matching nothing listed nothing and exited 0, while an
  // unknown --family is an error.)
  if (entries->empty())
    return benchError("no benchmark matches the selection");
  if (action == "list")
    return listMain(*entries);
  // Checked once, not found wrong in every module's measurement.
  if (auto resolved = resolveTarget(target); !resolved)
    return benchError(toString(resolved.takeError()));
  if (Error error = checkMeasurementOptions(reps, minTimeMs, timeoutS))
    return benchError(toString(std::move(error)));
  return runSuiteMain(*entries);
}

} // namespace mqss::tool
