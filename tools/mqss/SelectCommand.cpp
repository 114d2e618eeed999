//===- SelectCommand.cpp - `mqss select`: the policy's pipeline for a module -===//

#include "Commands.h"

#include "mqss/Actions/Sequence.h"
#include "mqss/Env/Episode.h"
#include "mqss/IR/Context.h"
#include "mqss/IR/Loader.h"
#include "mqss/Runtime/Harness.h"
#include "mqss/Runtime/Pipeline.h"
#include "mqss/Runtime/Target.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

#include <chrono>

using namespace llvm;

namespace mqss::tool {

cl::SubCommand selectCommand(
    "select", "Let the policy choose the action sequence for a module and print the "
              "equivalent pass pipeline, the optimized IR, or both as JSON");
static cl::opt<std::string> input(cl::Positional, cl::Required, cl::desc("<kernel.mlir>"),
                                  cl::sub(selectCommand), cl::cat(category()));
static cl::opt<std::string> model("model", cl::desc("Model file (default: the shipped one)"),
                                  cl::sub(selectCommand), cl::cat(category()));
static cl::opt<std::string> target("target", cl::desc("Target the policy decides for"),
                                   cl::init("host"), cl::sub(selectCommand), cl::cat(category()));
static cl::opt<std::string> emit("emit", cl::desc("pipeline (default), mlir or json"),
                                 cl::init("pipeline"), cl::sub(selectCommand), cl::cat(category()));
static cl::opt<std::string> guard(
    "guard", cl::desc("none (default) or measure: time the policy's pipeline against "
                      "`default` and keep `default` when the policy's is slower"),
    cl::init("none"), cl::sub(selectCommand), cl::cat(category()));
static cl::opt<std::string> output("o", cl::desc("Output file (default: stdout)"), cl::init("-"),
                                   cl::sub(selectCommand), cl::cat(category()));

static int selectError(const Twine &message) {
  WithColor::error(errs(), "mqss select") << message << "\n";
  return 1;
}

int selectMain() {
  if (emit != "pipeline" && emit != "mlir" && emit != "json")
    return selectError("--emit must be pipeline, mlir or json");
  if (guard != "none" && guard != "measure")
    return selectError("--guard must be none or measure");
  if (auto resolved = resolveTarget(target); !resolved)
    return selectError(toString(resolved.takeError()));
  std::string modelPath = model.empty() ? defaultModelPath() : std::string(model);
  auto policy = loadPolicy(modelPath);
  if (!policy)
    return selectError(toString(policy.takeError()));

  auto context = createContext();
  registerPasses();
  auto module = loadModuleFile(*context, input);
  if (!module) {
    errs() << toString(module.takeError());
    return 1;
  }
  auto start = std::chrono::steady_clock::now();
  std::vector<double> decisionMicros;
  mlir::OwningOpRef<mlir::ModuleOp> planned = (*module)->clone();
  auto plan = planWithPolicy(*planned, **policy, target, 8, &decisionMicros);
  if (!plan)
    return selectError(toString(plan.takeError()));
  double selectMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  auto pipeline = pipelineForActions(*plan);
  if (!pipeline)
    return selectError(toString(pipeline.takeError()));

  std::string chosen = "policy";
  std::optional<double> speedup;
  if (guard == "measure") {
    RunRequest request;
    request.inputPath = input;
    request.target = target;
    request.pipeline = "actions:" + joinActionNames(*plan);
    request.baseline = "default";
    usePolicyPipelines(request);
    RunReport report = runMeasurement(request);
    if (report.ok() && report.speedup)
      speedup = report.speedup->median;
    if (!speedup || *speedup < 1.0) {
      chosen = "default";
      RunRequest lowering = request;
      lowering.pipeline = "default";
      lowering.baseline.reset();
      lowering.stopAfterLowering = true;
      RunReport resolved = runMeasurement(lowering);
      if (!resolved.ok())
        return selectError("default failed too: " + resolved.message);
      *pipeline = resolved.candidate.resolvedPipeline;
      planned = (*module)->clone();
      if (Error error = applyPipeline(*planned, *pipeline))
        return selectError(toString(std::move(error)));
    }
  }

  std::error_code ec;
  ToolOutputFile out(output, ec, sys::fs::OF_Text);
  if (ec)
    return selectError("cannot write '" + output + "': " + ec.message());
  if (emit == "pipeline") {
    out.os() << *pipeline << "\n";
  } else if (emit == "mlir") {
    (*planned)->print(out.os());
    out.os() << "\n";
  } else {
    json::Array actions;
    for (const Action *action : *plan)
      actions.push_back(action->name);
    double total = 0;
    for (double us : decisionMicros)
      total += us;
    json::Object object{{"file", std::string(input)},
                        {"target", std::string(target)},
                        {"model", modelPath},
                        {"actions", std::move(actions)},
                        {"pipeline", *pipeline},
                        {"chosen", chosen},
                        {"decision_us", total},
                        {"select_ms", selectMs}};
    if (speedup)
      object["measured_speedup_vs_default"] = *speedup;
    out.os() << formatv("{0:2}", json::Value(std::move(object))) << "\n";
  }
  out.keep();
  return 0;
}

} // namespace mqss::tool
