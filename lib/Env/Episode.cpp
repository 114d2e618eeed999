//===- Episode.cpp - The MDP: episodes of a policy on a kernel, rewarded ----===//

#include "mqss/Env/Episode.h"

#include "mqss/Actions/Baselines.h"
#include "mqss/Actions/Sequence.h"
#include "mqss/IR/Context.h"
#include "mqss/IR/Loader.h"
#include "mqss/IR/Summary.h"
#include "mqss/Runtime/Pipeline.h"
#include "mqss/Runtime/Sandbox.h"

#include "llvm/Support/JSON.h"

#include <chrono>
#include <random>

namespace mqss {

double rewardFor(RunStatus status, double speedup, double deadband) {
  if (status != RunStatus::Ok || speedup <= 0)
    return -1;
  double reward = 1.0 - 1.0 / speedup; // (T_default - T) / T_default
  if (std::fabs(reward) < deadband)
    return 0;
  return std::clamp(reward, -1.0, 1.0);
}

namespace {
/// The child's side: step through the episode and report every step.
llvm::json::Object playEpisode(mlir::ModuleOp module, const RunRequest &kernel,
                               Policy &policy, const EpisodeOptions &options) {
  std::mt19937_64 rng(options.seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  EncoderContext context;
  context.vectorBits = targetVectorBits(kernel.target);
  context.maxSteps = options.maxSteps;
  // Unused declarations that return tensors, which one-shot bufferization
  // refuses, and nested modules are not there: the harness erases them
  // before any pipeline, and selections plan on functions cut out without
  // them.
  stripToTopLevelPayload(module);
  // Prepared as a selection is (TOSA lowered, ops MLIR 19 cannot bufferize
  // rewritten): the evaluation's "actions:" pipeline begins the same way.
  if (auto preparation = prepareForStages(module); !preparation)
    return llvm::json::Object{
        {"error", "preparing the module failed: " + llvm::toString(preparation.takeError())}};
  llvm::json::Array steps;
  for (unsigned step = 0; step < options.maxSteps; ++step) {
    auto start = std::chrono::steady_clock::now();
    IRSummary summary = summarize(module);
    context.stage = summary.stage();
    context.step = step;
    FeatureVector features = encodeFeatures(summary, context);
    std::vector<bool> mask = legalMask(summary, context.stage, context.history);
    Decision decision;
    if (step < options.forcedActions.size()) {
      decision = policy.decide(features, mask);
      const Action *forced = options.forcedActions[step];
      decision.action = forced;
      decision.probability = decision.probabilities[actionIndex(*forced)];
      if (!mask[actionIndex(*forced)])
        return llvm::json::Object{
            {"error", ("forced action " + forced->name + " is illegal here").str()}};
    } else if (!options.forcedActions.empty()) {
      break;
    } else {
      auto decide = [&] {
        if (options.epsilon > 0 && uniform(rng) < options.epsilon) {
          auto random = createRandomPolicy();
          Decision chosen = random->sample(features, mask, uniform(rng));
          // The behaviour probability is the policy's own (PPO's ratio is
          // taken against the policy that is being improved).
          Decision own = policy.decide(features, mask);
          chosen.probability = own.probabilities[actionIndex(*chosen.action)];
          chosen.value = own.value;
          return chosen;
        }
        return options.greedy ? policy.decide(features, mask)
                              : policy.sample(features, mask, uniform(rng));
      };
      // An action whose precondition refuses this IR (a tiling that the
      // dependences forbid) would change nothing and end the episode as a
      // failure: it is masked and the step decided again, as select's plans
      // and /v1/select do.
      decision = decide();
      while (refuses(*decision.action, module)) {
        for (const Action *sibling : actionsFailingWith(*decision.action))
          mask[actionIndex(*sibling)] = false;
        decision = decide();
      }
    }
    double micros =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
            .count();
    llvm::json::Array featureArray, maskArray;
    for (float f : features)
      featureArray.push_back(static_cast<double>(f));
    for (bool m : mask)
      maskArray.push_back(m ? 1 : 0);
    const Action *action = decision.action;
    steps.push_back(llvm::json::Object{{"features", std::move(featureArray)},
                                       {"mask", std::move(maskArray)},
                                       {"action", action->name},
                                       {"probability", decision.probability},
                                       {"value", decision.value},
                                       {"decision_us", micros}});
    context.history.push_back(action);
    if (action->kind == ActionKind::Finish)
      break;
    if (llvm::Error error = applyAction(module, *action))
      return llvm::json::Object{
          {"steps", std::move(steps)},
          {"failed", ("action " + action->name + ": " + llvm::toString(std::move(error))).str()}};
  }
  return llvm::json::Object{{"steps", std::move(steps)}};
}
} // namespace

void usePolicyPipelines(RunRequest &request) {
  useNamedPipelines(request);
  PipelineResolver named = request.resolvePipeline;
  // The target is the request's when it is resolved, not when this is
  // installed: `mqss run` and `mqss bench run` set it afterwards, and then
  // timed the host's decisions for any other target.
  request.resolvePipeline = [named](mlir::ModuleOp module, llvm::StringRef spec,
                                    llvm::StringRef target) -> llvm::Expected<ResolvedPipeline> {
    llvm::StringRef rest = spec.trim();
    if (rest != "policy" && !rest.starts_with("policy:"))
      return named(module, spec, target);
    SelectorOptions options;
    options.modelPath = rest.consume_front("policy:") ? rest.str() : defaultModelPath();
    options.target = target.str();
    auto created = Selector::create(options);
    if (!created)
      return created.takeError();
    std::shared_ptr<Selector> selector(std::move(*created));
    auto selection = selector->select(module);
    if (!selection)
      return selection.takeError();
    ResolvedPipeline resolved = selector->harnessPipeline(*selection);
    if (resolved.transform) // keeps the selector alive as long as its transform
      resolved.transform = [selector, apply = std::move(resolved.transform)](
                               mlir::ModuleOp m) { return apply(m); };
    return resolved;
  };
}

Episode runEpisode(const RunRequest &kernel, Policy &policy, Evaluator *evaluator,
                   const EpisodeOptions &options) {
  Episode episode;
  auto outcome = runSandboxed(kernel.limits, [&](SandboxChannel &channel) -> int {
    auto context = createContext();
    registerPasses();
    auto module = loadModuleFile(*context, kernel.inputPath);
    llvm::json::Object result;
    if (!module)
      result = llvm::json::Object{{"error", llvm::toString(module.takeError())}};
    else
      result = playEpisode(**module, kernel, policy, options);
    std::string text;
    llvm::raw_string_ostream os(text);
    os << llvm::json::Value(std::move(result));
    channel.send(text);
    return 0;
  });

  auto fail = [&](RunStatus status, std::string message) {
    episode.status = status;
    episode.message = std::move(message);
    episode.reward = -1;
    return episode;
  };
  if (!outcome)
    return fail(RunStatus::Crash, llvm::toString(outcome.takeError()));
  std::optional<llvm::json::Value> result;
  for (auto it = outcome->messages.rbegin(); it != outcome->messages.rend(); ++it)
    if (auto parsed = llvm::json::parse(*it)) {
      if (parsed->getAsObject() && parsed->getAsObject()->get("event") == nullptr) {
        result = std::move(*parsed);
        break;
      }
    } else {
      llvm::consumeError(parsed.takeError());
    }
  if (!result)
    return fail(outcome->end == SandboxOutcome::End::TimedOut ? RunStatus::Timeout
                                                              : RunStatus::Crash,
                "the episode child " + outcome->describe());
  const llvm::json::Object &object = *result->getAsObject();
  if (auto error = object.getString("error"))
    return fail(RunStatus::InvalidInput, error->str());

  if (const llvm::json::Array *steps = object.getArray("steps")) {
    for (const llvm::json::Value &value : *steps) {
      const llvm::json::Object &s = *value.getAsObject();
      EpisodeStep step;
      const llvm::json::Array &features = *s.getArray("features");
      for (size_t i = 0; i < kNumFeatures && i < features.size(); ++i)
        step.features[i] = static_cast<float>(features[i].getAsNumber().value_or(0));
      for (const llvm::json::Value &m : *s.getArray("mask"))
        step.mask.push_back(m.getAsInteger().value_or(0) != 0);
      const Action *action = lookupAction(s.getString("action").value_or(""));
      step.action = actionIndex(*action);
      step.probability = static_cast<float>(s.getNumber("probability").value_or(0));
      step.value = static_cast<float>(s.getNumber("value").value_or(0));
      episode.decisionMicros.push_back(s.getNumber("decision_us").value_or(0));
      episode.actions.push_back(action);
      episode.steps.push_back(std::move(step));
    }
  }
  if (auto failed = object.getString("failed"))
    return fail(RunStatus::PassFailed, failed->str());
  if (episode.actions.empty() || episode.actions.back()->kind != ActionKind::Finish)
    episode.actions.push_back(lookupAction("finish-O3"));
  if (!evaluator)
    return episode;

  Evaluation evaluation = evaluator->evaluate(episode.actions);
  episode.status = evaluation.status;
  episode.message = evaluation.message;
  episode.speedup = evaluation.speedup;
  episode.cached = evaluation.cached;
  episode.gains = evaluation.gains;
  episode.reward = options.objective.reward(evaluation.status, evaluation.gains, options.deadband);
  return episode;
}

std::string episodeStepsJson(const Episode &episode) {
  llvm::json::Array steps;
  for (const EpisodeStep &step : episode.steps) {
    llvm::json::Array features, mask;
    for (float f : step.features)
      features.push_back(static_cast<double>(f));
    for (bool m : step.mask)
      mask.push_back(m ? 1 : 0);
    steps.push_back(llvm::json::Object{{"features", std::move(features)},
                                       {"mask", std::move(mask)},
                                       {"action", actionCatalog()[step.action].name},
                                       {"probability", step.probability}});
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(steps));
  return text;
}

llvm::Expected<std::vector<EpisodeStep>> parseEpisodeSteps(llvm::StringRef json) {
  auto fail = [](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "bad trajectory steps: " + why);
  };
  auto parsed = llvm::json::parse(json);
  if (!parsed)
    return fail(llvm::toString(parsed.takeError()));
  const llvm::json::Array *array = parsed->getAsArray();
  if (!array)
    return fail("not an array");
  std::vector<EpisodeStep> steps;
  for (const llvm::json::Value &value : *array) {
    const llvm::json::Object *object = value.getAsObject();
    const llvm::json::Array *features = object ? object->getArray("features") : nullptr;
    const llvm::json::Array *mask = object ? object->getArray("mask") : nullptr;
    auto name = object ? object->getString("action") : std::nullopt;
    const Action *action = name ? lookupAction(*name) : nullptr;
    if (!features || !mask || !action || features->size() != kNumFeatures ||
        mask->size() != actionCatalog().size())
      return fail("a step does not match this build's features and actions");
    EpisodeStep step;
    for (size_t i = 0; i < kNumFeatures; ++i)
      step.features[i] = static_cast<float>((*features)[i].getAsNumber().value_or(0));
    step.mask.resize(mask->size());
    for (size_t i = 0; i < mask->size(); ++i)
      step.mask[i] = (*mask)[i].getAsInteger().value_or(0) != 0;
    step.action = actionIndex(*action);
    step.probability = static_cast<float>(object->getNumber("probability").value_or(0));
    steps.push_back(std::move(step));
  }
  return steps;
}

} // namespace mqss
