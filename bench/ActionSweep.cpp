//===- ActionSweep.cpp - How often does a legal action fail? JSON out ------===//
//
// For each selected suite module (smallest size by default) and each stage it
// can reach (tensor -> bufferize -> linalg -> to-affine -> loops), applies
// every action the mask calls legal at that point and measures the result
// against the naive reference. Reports per action and overall how many legal
// applications failed (pass, lowering, crash, timeout) or computed something
// else (wrong-output).
//
// Usage: mqss-bench-sweep [--split=train] [--size=smallest] [--kernel=K]
//
//===----------------------------------------------------------------------===//

#include "BenchOptions.h"
#include "mqss/Env/Environment.h"
#include "mqss/Actions/Catalog.h"
#include "mqss/Suite/Registry.h"
#include "mqss/Suite/SuiteRun.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace mqss;

static llvm::cl::opt<std::string> split(
    "split", llvm::cl::init("train"),
    llvm::cl::desc("Benchmark split: train, validation or test (empty: all)"),
    llvm::cl::cat(benchOptions()));
static llvm::cl::opt<std::string>
    size("size", llvm::cl::init("smallest"),
         llvm::cl::desc("Kernel sizes: small, medium, large, or smallest (each "
                        "kernel's smallest)"),
         llvm::cl::cat(benchOptions()));
static llvm::cl::opt<std::string> kernel("kernel", llvm::cl::init(""),
                                         llvm::cl::desc("Only this kernel"),
                                         llvm::cl::cat(benchOptions()));
static llvm::cl::opt<std::string> registryPath(
    "registry", llvm::cl::init(""),
    llvm::cl::desc("Benchmark registry (default: the shipped one)"),
    llvm::cl::cat(benchOptions()));

int main(int argc, char **argv) {
  parseBenchCommandLine(argc, argv, "Legal-action failure sweep\n");
  auto registry = Registry::load(registryPath.empty() ? Registry::defaultPath()
                                                      : registryPath);
  if (!registry) {
    llvm::errs() << llvm::toString(registry.takeError()) << "\n";
    return 1;
  }
  auto entries = registry->select({split, "", kernel, size});
  if (!entries) {
    llvm::errs() << llvm::toString(entries.takeError()) << "\n";
    return 1;
  }

  struct Tally {
    unsigned tried = 0, failed = 0, wrong = 0;
    std::vector<std::string> examples;
  };
  std::map<std::string, Tally> perAction;
  Tally total;
  const Action *bufferize = lookupAction("tensor.bufferize");
  const Action *toAffine = lookupAction("linalg.to-affine");

  for (const BenchmarkEntry &entry : *entries) {
    std::vector<const Action *> prefix;
    for (int hop = 0; hop < 3; ++hop) {
      SuiteRunOptions probeOptions;
      probeOptions.limits.timeoutSeconds = 60;
      auto probe = probeState(requestFor(entry, probeOptions), prefix);
      if (!probe) {
        llvm::consumeError(probe.takeError());
        break;
      }
      Stage stage = probe->stage;
      for (const Action *legalAction : probe->legal) {
        if (legalAction->kind == ActionKind::Finish)
          continue;
        llvm::StringRef name = legalAction->name;
        std::vector<const Action *> sequence = prefix;
        sequence.push_back(legalAction);
        std::string spec = "actions:" + joinActionNames(sequence);
        SuiteRunOptions options;
        options.pipeline = spec;
        options.reps = 1;
        options.minTimeMs = 0;
        options.warmup = 0;
        options.limits.timeoutSeconds = 60;
        RunReport report = runMeasurement(requestFor(entry, options));
        Tally &tally = perAction[name.str()];
        ++tally.tried;
        ++total.tried;
        bool wrong = report.status == RunStatus::WrongOutput;
        bool failed = !report.ok() && !wrong;
        tally.failed += failed;
        tally.wrong += wrong;
        total.failed += failed;
        total.wrong += wrong;
        if ((failed || wrong) && tally.examples.size() < 3)
          tally.examples.push_back(entry.name + ": " + runStatusName(report.status).str() +
                                   " " + report.message.substr(0, 160));
        llvm::errs() << llvm::formatv("[{0}] {1} {2}: {3}\n", entry.name, stageName(stage),
                                      name, runStatusName(report.status));
      }
      if (stage == Stage::Tensor)
        prefix.push_back(bufferize);
      else if (stage == Stage::Linalg)
        prefix.push_back(toAffine);
      else
        break;
    }
  }

  llvm::json::Array actions;
  for (auto &[name, tally] : perAction)
    actions.push_back(llvm::json::Object{
        {"action", name},
        {"tried", tally.tried},
        {"failed", tally.failed},
        {"wrong_output", tally.wrong},
        {"examples", llvm::json::Array(tally.examples)}});
  double rate = total.tried ? double(total.failed + total.wrong) / total.tried : 0;
  llvm::outs() << llvm::formatv(
      "{0:2}\n", llvm::json::Value(llvm::json::Object{
                     {"benchmark", "action-sweep"},
                     {"split", split.getValue()},
                     {"modules", static_cast<int64_t>(entries->size())},
                     {"legal_applications", total.tried},
                     {"failed", total.failed},
                     {"wrong_output", total.wrong},
                     {"failure_rate", rate},
                     {"target_rate_below", 0.05},
                     {"actions", std::move(actions)}}));
  return 0;
}
