//===- Environment.cpp - Stepping through action sequences, measured -------===//

#include "mqss/Env/Environment.h"

#include "mqss/Actions/Baselines.h"
#include "mqss/Actions/Sequence.h"
#include "mqss/IR/Context.h"
#include "mqss/IR/Loader.h"
#include "mqss/IR/Summary.h"
#include "mqss/Runtime/Pipeline.h"
#include "mqss/Runtime/Sandbox.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/xxhash.h"

#include <charconv>
#include <cstdlib>
#include <random>

namespace mqss {

std::string joinActionNames(llvm::ArrayRef<const Action *> actions) {
  std::string text;
  for (const Action *action : actions)
    text += (text.empty() ? "" : ",") + action->name.str();
  return text;
}

llvm::json::Array actionNamesJson(llvm::ArrayRef<const Action *> actions) {
  llvm::json::Array names;
  for (const Action *action : actions)
    names.push_back(action->name);
  return names;
}

char ChildTimedOut::ID = 0;

static llvm::Error envError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<llvm::json::Object>
runOnModuleInChild(const RunRequest &kernel,
        llvm::function_ref<llvm::Expected<llvm::json::Object>(mlir::ModuleOp)> body) {
  SandboxLimits limits = kernel.limits;
  auto outcome = runSandboxed(limits, [&](SandboxChannel &channel) -> int {
    auto context = createContext();
    registerPasses();
    auto module = loadModuleFile(*context, kernel.inputPath);
    llvm::json::Object result;
    if (!module) {
      result["error"] = llvm::toString(module.takeError());
    } else if (auto value = body(**module)) {
      result = std::move(*value);
    } else {
      result["error"] = llvm::toString(value.takeError());
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    os << llvm::json::Value(std::move(result));
    channel.send(text);
    return 0;
  });
  if (!outcome)
    return outcome.takeError();
  std::string died = "the child process running the passes " + outcome->describe();
  // (It said only "exited with code 86".)
  if (outcome->end == SandboxOutcome::End::Exited && outcome->exitCode == kExitOutOfMemory)
    died = llvm::formatv("the child process running the passes ran out of memory (limit {0} "
                         "MiB)",
                         limits.memoryBytes >> 20)
               .str();
  if (outcome->end == SandboxOutcome::End::TimedOut)
    return llvm::make_error<ChildTimedOut>(died);
  if (outcome->end != SandboxOutcome::End::Exited || outcome->messages.size() < 2)
    return envError(died);
  auto parsed = llvm::json::parse(outcome->messages.back());
  if (!parsed)
    return parsed.takeError();
  llvm::json::Object *object = parsed->getAsObject();
  if (!object)
    return envError("malformed probe result");
  if (auto error = object->getString("error"))
    return envError(*error);
  return std::move(*object);
}

static llvm::Expected<std::vector<const Action *>> actionsFromJson(const llvm::json::Array *names) {
  std::vector<const Action *> actions;
  if (!names)
    return actions;
  for (const llvm::json::Value &name : *names) {
    const Action *action = lookupAction(name.getAsString().value_or(""));
    if (!action)
      return envError("unknown action in probe result");
    actions.push_back(action);
  }
  return actions;
}

/// \p module prepared as playEpisode prepares it, so that the walks of a
/// search see the module its evaluations run: unused declarations returning
/// tensors and nested modules erased (the harness erases them before any
/// pipeline), then prepareForStages (TOSA lowered, ...). Returns the
/// preparation.
static llvm::Expected<std::string> prepareAsAnEpisode(mlir::ModuleOp module) {
  stripToTopLevelPayload(module);
  auto preparation = prepareForStages(module);
  if (!preparation)
    return envError("preparing the module failed: " + llvm::toString(preparation.takeError()));
  return preparation;
}

llvm::Expected<StateProbe> probeState(const RunRequest &kernel,
                                      llvm::ArrayRef<const Action *> prefix) {
  auto result = runOnModuleInChild(kernel, [&](mlir::ModuleOp module) -> llvm::Expected<llvm::json::Object> {
    auto preparation = prepareAsAnEpisode(module);
    if (!preparation)
      return preparation.takeError();
    for (const Action *action : prefix)
      if (llvm::Error error = applyAction(module, *action))
        return envError("action " + action->name + ": " + llvm::toString(std::move(error)));
    IRSummary summary = summarize(module);
    llvm::json::Array legal;
    std::vector<bool> mask = legalMask(summary, summary.stage(), prefix);
    for (const Action &action : actionCatalog())
      if (mask[actionIndex(action)])
        legal.push_back(action.name);
    return llvm::json::Object{{"stage", stageName(summary.stage())},
                              {"legal", std::move(legal)},
                              {"preparation", *preparation}};
  });
  if (!result)
    return result.takeError();
  StateProbe probe;
  probe.stage = parseStage(result->getString("stage").value_or("loops")).value_or(Stage::Loops);
  auto legal = actionsFromJson(result->getArray("legal"));
  if (!legal)
    return legal.takeError();
  probe.legal = std::move(*legal);
  probe.preparation = result->getString("preparation").value_or("").str();
  return probe;
}

llvm::Expected<Rollout> randomRollout(const RunRequest &kernel, uint64_t seed,
                                      unsigned maxLength) {
  auto result = runOnModuleInChild(kernel, [&](mlir::ModuleOp module) -> llvm::Expected<llvm::json::Object> {
    auto preparation = prepareAsAnEpisode(module);
    if (!preparation)
      return preparation.takeError();
    std::mt19937_64 rng(seed);
    llvm::json::Array taken;
    std::vector<const Action *> history, failed;
    int64_t passedOver = 0;
    auto done = [&] {
      return llvm::json::Object{{"actions", std::move(taken)},
                                {"preparation", *preparation},
                                {"passed_over", passedOver}};
    };
    while (history.size() < maxLength) {
      IRSummary summary = summarize(module);
      std::vector<bool> mask = legalMask(summary, summary.stage(), history);
      std::vector<const Action *> legal;
      for (const Action &action : actionCatalog())
        if (mask[actionIndex(action)] && !llvm::is_contained(failed, &action))
          legal.push_back(&action);
      if (legal.empty())
        break; // finish actions never fail, so never here
      const Action *choice = legal[rng() % legal.size()];
      if (choice->kind == ActionKind::Finish) {
        taken.push_back(choice->name);
        return done();
      }
      // A failing action is ruled out and another drawn, from the IR
      // before it: the walk is not lost to it.
      mlir::OwningOpRef<mlir::ModuleOp> before = module.clone();
      if (llvm::Error error = applyAction(module, *choice)) {
        llvm::consumeError(std::move(error));
        replaceModuleContents(module, std::move(before));
        llvm::append_range(failed, actionsFailingWith(*choice));
        ++passedOver;
        continue;
      }
      taken.push_back(choice->name);
      history.push_back(choice);
    }
    taken.push_back("finish-O3");
    return done();
  });
  if (!result)
    return result.takeError();
  auto actions = actionsFromJson(result->getArray("actions"));
  if (!actions)
    return actions.takeError();
  return Rollout{std::move(*actions), result->getString("preparation").value_or("").str(),
                 static_cast<unsigned>(result->getInteger("passed_over").value_or(0))};
}

/// For a measurement that failed where the actions play no part (making
/// the inputs, the naive reference, `default`): what failed, said as the
/// module's or its inputs' fault (a crash of the reference, inputs too big
/// for memory). Empty otherwise.
static std::string failureWithoutTheActions(const RunReport &report) {
  // The environment's baseline is always `default`.
  std::string what = failedWithoutTheCandidate(report, "`default`, the baseline");
  return what.empty() ? what : "the module fails without the actions: " + what;
}

/// \p report's status and message into \p evaluation, a failure where the
/// actions play no part as the module's.
static void takeStatus(Evaluation &evaluation, const RunReport &report) {
  evaluation.status = report.status;
  evaluation.message = report.message;
  if (std::string without = failureWithoutTheActions(report); !without.empty()) {
    evaluation.status = RunStatus::InvalidInput;
    evaluation.message = without;
  }
}

std::optional<RunReport> failureToLower(RunRequest kernel, llvm::StringRef pipeline) {
  if (!kernel.resolvePipeline)
    useNamedPipelines(kernel);
  kernel.pipeline = pipeline.str();
  kernel.stopAfterLowering = true;
  kernel.baseline.reset();
  RunReport report = runMeasurement(kernel);
  if (report.ok() || isInputFault(report.status))
    return std::nullopt;
  return report;
}

std::optional<std::string> failureOfDefault(const RunRequest &kernel) {
  std::optional<RunReport> failure = failureToLower(kernel, "default");
  if (!failure)
    return std::nullopt;
  return ("the module fails without the actions: " + runStatusName(failure->status) +
          " in `default`, the baseline: " + failure->message)
      .str();
}

/// \p value as text that reads back as the same double: what a cache key
/// needs. The `%f` of std::to_string where that is exact (keys stored before
/// stay valid), else the shortest exact form (1e-07 is not 0.000000).
static std::string exactText(double value) {
  std::string fixed = std::to_string(value);
  if (std::strtod(fixed.c_str(), nullptr) == value)
    return fixed;
  char digits[32];
  auto printed = std::to_chars(digits, digits + sizeof(digits), value);
  return std::string(digits, printed.ptr);
}

Evaluator::Evaluator(RunRequest kernel, Store *store, Objective objective)
    : kernel(std::move(kernel)), store(store), objective(std::move(objective)) {
  std::string inputs;
  for (const auto &[arg, sizes] : this->kernel.inputs.shapes) {
    inputs += arg + "=";
    for (int64_t size : sizes)
      inputs += std::to_string(size) + "x";
  }
  for (const auto &[arg, value] : this->kernel.inputs.scalars)
    inputs += arg + ":" + exactText(value);
  if (!inputs.empty())
    inputsKey = llvm::formatv("-i{0:x8}", llvm::xxh3_64bits(inputs)).str();
  this->kernel.baseline = "default";
  useNamedPipelines(this->kernel);
}

Evaluation Evaluator::evaluate(llvm::ArrayRef<const Action *> actions) {
  ++numEvaluations;
  Evaluation result;
  result.actions.assign(actions.begin(), actions.end());
  RunRequest request = kernel;
  request.pipeline = "actions:" + joinActionNames(actions);

  // First the lowered IR's hash (cheap: no JIT, no runs), then the cache.
  RunRequest lowering = request;
  lowering.stopAfterLowering = true;
  lowering.baseline.reset();
  RunReport lowered = runMeasurement(lowering);
  if (!lowered.ok()) {
    takeStatus(result, lowered);
    // Code of the actions that does not lower says nothing against them
    // when `default`'s does not either (an op no pipeline lowers, such as a
    // dynamic vector.insert): then the module is at fault. (Not asked after
    // a timeout: default's lowering would take as long again.)
    if (result.status == RunStatus::LoweringFailed)
      if (std::optional<std::string> without = failureOfDefault(kernel)) {
        result.status = RunStatus::InvalidInput;
        result.message = std::move(*without);
      }
    return result;
  }
  // The same code on other sizes or scalar values is another measurement.
  result.loweredIrHash = lowered.candidate.loweredIrHash + inputsKey;
  if (store) {
    auto cached = store->lookupMeasurement(result.loweredIrHash, kernel.target,
                                           kernel.inputs.seed);
    // A row without costs (stored before they were) serves `runtime` only.
    bool usable = cached && *cached &&
                  (!objective.needsCosts() || (*cached)->status != "ok" ||
                   ((*cached)->codeBytes > 0 && (*cached)->baselineCodeBytes > 0 &&
                    (*cached)->compileMs > 0 && (*cached)->baselineCompileMs > 0));
    if (usable) {
      const CachedMeasurement &m = **cached;
      ++numCacheHits;
      result.cached = true;
      result.status = parseRunStatus(m.status).value_or(RunStatus::Crash);
      result.speedup = m.speedup;
      result.runtimeMs = m.runtimeMs;
      result.defaultMs = m.baselineMs;
      result.gains.runtime = m.speedup;
      if (m.compileMs > 0 && m.baselineCompileMs > 0)
        result.gains.compile = m.baselineCompileMs / m.compileMs;
      if (m.codeBytes > 0 && m.baselineCodeBytes > 0)
        result.gains.size = double(m.baselineCodeBytes) / double(m.codeBytes);
      if (result.status == RunStatus::Ok)
        result.score = objective.gain(result.gains);
      return result;
    }
    if (!cached)
      llvm::consumeError(cached.takeError());
  }

  ++numMeasurements;
  RunReport report = runMeasurement(request);
  takeStatus(result, report);
  if (report.ok() && report.speedup) {
    result.speedup = report.speedup->median;
    result.runtimeMs = report.candidate.runtimeMs.median;
    result.defaultMs = report.baseline->runtimeMs.median;
    result.gains = gainsFromReport(report);
    result.score = objective.gain(result.gains);
  }
  if (store) {
    CachedMeasurement m{result.loweredIrHash, kernel.target, kernel.inputs.seed,
                        runStatusName(result.status).str(), result.runtimeMs,
                        result.defaultMs, result.speedup, request.pipeline};
    if (report.ok() && report.baseline) {
      m.compileMs = report.candidate.compileMs + report.candidate.jitMs;
      m.baselineCompileMs = report.baseline->compileMs + report.baseline->jitMs;
      m.codeBytes = report.candidate.codeSizeBytes;
      m.baselineCodeBytes = report.baseline->codeSizeBytes;
    }
    if (llvm::Error error = store->putMeasurement(m))
      llvm::consumeError(std::move(error)); // a cache that cannot write only costs time
  }
  return result;
}

} // namespace mqss
