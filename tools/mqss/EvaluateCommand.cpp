//===- EvaluateCommand.cpp - `mqss evaluate`: the policy vs the baselines --===//

#include "Commands.h"

#include "mqss/Train/Evaluate.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

namespace mqss::tool {

cl::SubCommand evaluateCommand(
    "evaluate", "Measure the policy against naive, default, expert and a random-search "
                "oracle on a split; Markdown, JSON and an HTML page");
static cl::opt<std::string> split("split", cl::desc("train, validation or test"),
                                  cl::init("test"), cl::sub(evaluateCommand), cl::cat(category()));
static cl::opt<std::string> model("model", cl::desc("Model file (default: the shipped one)"),
                                  cl::sub(evaluateCommand), cl::cat(category()));
static cl::opt<std::string> targets("target", cl::desc("Targets, comma-separated"),
                                    cl::init("host"), cl::sub(evaluateCommand), cl::cat(category()));
static cl::opt<std::string> size("size", cl::desc("Module sizes: smallest, small, medium"),
                                 cl::init("smallest"), cl::sub(evaluateCommand), cl::cat(category()));
static cl::opt<std::string> kernel("kernel", cl::desc("Only this kernel"),
                                   cl::sub(evaluateCommand), cl::cat(category()));
static cl::opt<unsigned> oracle("oracle-budget", cl::desc("Random-search evaluations per module"),
                                cl::init(10), cl::sub(evaluateCommand), cl::cat(category()));
static cl::opt<std::string> outDir("out", cl::desc("Write evaluation.md/.json/.html here"),
                                   cl::sub(evaluateCommand), cl::cat(category()));
static cl::opt<std::string> registry("registry", cl::desc("Benchmark registry"),
                                     cl::sub(evaluateCommand), cl::cat(category()));
static cl::opt<std::string> db("db", cl::desc("Measurement cache"), cl::sub(evaluateCommand),
                               cl::cat(category()));
static cl::opt<std::string> objective(
    "objective",
    cl::desc("What the guard and the oracle maximise: runtime (default), size or "
             "weighted:runtime=W,compile=W,size=W (docs/Objectives.md)"),
    cl::init("runtime"), cl::sub(evaluateCommand), cl::cat(category()));
static cl::opt<bool> json("json", cl::desc("Print JSON"), cl::sub(evaluateCommand),
                          cl::cat(category()));

static int evaluateError(const Twine &message, int code) {
  return reportError("mqss evaluate", message, json, code);
}

int evaluateMain() {
  EvaluateOptions options;
  options.split = split;
  options.modelPath = model;
  auto parsedTargets = parseTargetList(targets, "mqss evaluate");
  if (!parsedTargets)
    return evaluateError(toString(parsedTargets.takeError()), 2);
  options.targets = std::move(*parsedTargets);
  auto parsedObjective = parseObjective(objective);
  if (!parsedObjective)
    return evaluateError(toString(parsedObjective.takeError()), 2);
  options.objective = *parsedObjective;
  options.size = size;
  options.kernel = kernel;
  if (oracle == 0)
    return evaluateError("--oracle-budget must be at least 1 (random-search evaluations per "
                         "module)",
                         2);
  options.oracleBudget = oracle;
  // A file where the directory should be would fail only after measuring.
  if (!outDir.empty() && sys::fs::exists(outDir.getValue()) &&
      !sys::fs::is_directory(outDir.getValue()))
    return evaluateError("--out=" + outDir + " is a file: give a directory for the report", 2);
  options.outDir = outDir;
  options.dbPath = db;
  options.registryPath = registry;
  auto report = evaluatePolicy(options);
  if (!report)
    return evaluateError(toString(report.takeError()), 1);
  // A report file that could not be written fails the command once the
  // measurements are printed.
  std::optional<StringRef> writeError = report->getAsObject()->getString("write_error");
  auto finish = [&] {
    if (writeError)
      WithColor::error(errs(), "mqss evaluate") << *writeError << "\n";
    return writeError ? 1 : 0;
  };
  if (json) {
    outs() << formatv("{0:2}\n", *report);
    return finish();
  }
  const json::Object &g = *report->getAsObject()->getObject("geomean");
  outs() << formatv("geomean over default: policy {0:f3}x, guarded {1:f3}x, expert {2:f3}x, "
                    "oracle {3:f3}x; policy over expert {4:f3}x; decision p50 {5:f1} us\n",
                    *g.getNumber("policy_vs_default"), *g.getNumber("guarded_vs_default"),
                    *g.getNumber("expert_vs_default"), *g.getNumber("oracle_vs_default"),
                    *g.getNumber("policy_vs_expert"),
                    *report->getAsObject()->getNumber("decision_us_p50"));
  if (std::optional<int64_t> failed =
          report->getAsObject()->getObject("failed")->getInteger("policy");
      failed && *failed)
    outs() << formatv("the policy's plan failed on {0} of the modules (the geomeans are over "
                      "the modules each pipeline ran on; see each module's status)\n",
                      *failed);
  if (!parsedObjective->isRuntime()) {
    const json::Object &o = *report->getAsObject()->getObject("objective_geomean");
    outs() << formatv("objective {0}: geomean gain over default: policy {1:f3}x, guarded "
                      "{2:f3}x, oracle {3:f3}x\n",
                      parsedObjective->spec(), *o.getNumber("policy_vs_default"),
                      *o.getNumber("guarded_vs_default"), *o.getNumber("oracle_vs_default"));
  }
  return finish();
}

} // namespace mqss::tool
