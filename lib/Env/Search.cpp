//===- Search.cpp - Search baselines: random, greedy, beam -----------------===//

#include "mqss/Env/Search.h"

#include "mqss/Actions/Sequence.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <chrono>

namespace mqss {

std::optional<SearchStrategy> parseSearchStrategy(llvm::StringRef name) {
  if (name == "random")
    return SearchStrategy::Random;
  if (name == "greedy")
    return SearchStrategy::Greedy;
  if (name == "beam")
    return SearchStrategy::Beam;
  return std::nullopt;
}

llvm::StringRef searchStrategyName(SearchStrategy strategy) {
  switch (strategy) {
  case SearchStrategy::Random: return "random";
  case SearchStrategy::Greedy: return "greedy";
  case SearchStrategy::Beam: return "beam";
  }
  return "random";
}

namespace {
class SearchRun {
public:
  SearchRun(Evaluator &evaluator, const RunRequest &kernel, const SearchOptions &options,
            SearchProgress progress)
      : evaluator(evaluator), kernel(kernel), options(options), progress(progress),
        start(std::chrono::steady_clock::now()) {
    result.bestSpeedup = 1.0; // default itself is the starting point
    result.bestScore = 1.0;
  }

  bool exhausted() {
    if (options.stop && options.stop->load()) {
      result.stopped = true;
      return true;
    }
    if (options.budget && evaluator.evaluations() >= options.budget)
      return true;
    return options.timeSeconds > 0 && elapsed() >= options.timeSeconds;
  }

  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  /// Evaluates \p actions (a finish is appended if missing) and keeps the best.
  double evaluate(std::vector<const Action *> actions) {
    if (actions.empty() || actions.back()->kind != ActionKind::Finish)
      actions.push_back(lookupAction("finish-O3"));
    Evaluation evaluation = evaluator.evaluate(actions);
    bool ok = evaluation.status == RunStatus::Ok;
    result.failures += !ok;
    // Ranked by the evaluator's objective (for `runtime`, the speedup).
    if (ok && evaluation.score > result.bestScore) {
      result.bestScore = evaluation.score;
      result.bestSpeedup = evaluation.speedup;
      result.bestActions = actions;
    }
    result.history.push_back(evaluation);
    update();
    if (progress)
      progress(evaluation, result);
    return ok ? evaluation.score : 0;
  }

  void randomSearch() {
    for (uint64_t i = 0; !exhausted(); ++i) {
      auto rollout = randomRollout(kernel, options.seed * 1000003 + i, options.maxLength);
      if (!rollout) {
        walkFailed(rollout.takeError());
        if (result.walkFailures > 4 * (options.budget ? options.budget : 50))
          break;
        continue;
      }
      result.preparation = rollout->preparation;
      result.passedOver += rollout->passedOver;
      evaluate(rollout->actions);
    }
  }

  /// Greedy is beam search of width one.
  void beamSearch(unsigned width) {
    struct Candidate {
      std::vector<const Action *> prefix;
      double score;
    };
    std::vector<Candidate> beam = {{{}, 0}};
    for (unsigned depth = 0; depth < options.maxLength && !exhausted(); ++depth) {
      std::vector<Candidate> next;
      for (const Candidate &candidate : beam) {
        auto probe = probeState(kernel, candidate.prefix);
        if (!probe) {
          walkFailed(probe.takeError());
          continue;
        }
        result.preparation = probe->preparation;
        for (const Action *action : probe->legal) {
          if (exhausted())
            break;
          if (action->kind == ActionKind::Finish)
            continue;
          std::vector<const Action *> extended = candidate.prefix;
          extended.push_back(action);
          double score = evaluate(extended);
          if (score > 0)
            next.push_back({extended, score});
        }
      }
      if (next.empty())
        break;
      std::stable_sort(next.begin(), next.end(), [](const Candidate &a, const Candidate &b) {
        return a.score > b.score;
      });
      if (next.size() > width)
        next.resize(width);
      // Stop when no extension beats the best prefix of the previous depth.
      double previousBest = beam.front().score;
      if (depth > 0 && next.front().score <= previousBest)
        break;
      beam = std::move(next);
    }
  }

  SearchResult finish() {
    update();
    if (result.bestActions.empty()) // default itself
      return std::move(result);
    if (auto pipeline = pipelineForActions(result.bestActions))
      result.bestPipeline = joinAfterPreparation(result.preparation, *pipeline);
    else
      llvm::consumeError(pipeline.takeError());
    return std::move(result);
  }

private:
  void walkFailed(llvm::Error error) {
    ++result.walkFailures;
    result.lastWalkFailure = llvm::toString(std::move(error));
  }

  void update() {
    result.evaluations = evaluator.evaluations();
    result.measurements = evaluator.measurements();
    result.cacheHits = evaluator.cacheHits();
    result.cacheHitRate = evaluator.cacheHitRate();
    result.wallSeconds = elapsed();
  }

  Evaluator &evaluator;
  const RunRequest &kernel;
  const SearchOptions &options;
  SearchProgress progress;
  std::chrono::steady_clock::time_point start;
  SearchResult result;
};
} // namespace

SearchResult runSearch(Evaluator &evaluator, const RunRequest &kernel,
                       const SearchOptions &options, SearchProgress progress) {
  SearchRun run(evaluator, kernel, options, progress);
  switch (options.strategy) {
  case SearchStrategy::Random:
    run.randomSearch();
    break;
  case SearchStrategy::Greedy:
    run.beamSearch(1);
    break;
  case SearchStrategy::Beam:
    run.beamSearch(std::max(1u, options.beamWidth));
    break;
  }
  return run.finish();
}

llvm::json::Value toJSON(const SearchResult &result, const SearchOptions &options) {
  llvm::json::Array best = actionNamesJson(result.bestActions);
  llvm::json::Array history;
  for (const Evaluation &e : result.history)
    history.push_back(llvm::json::Object{{"actions", joinActionNames(e.actions)},
                                         {"status", runStatusName(e.status)},
                                         {"speedup_vs_default", e.speedup},
                                         {"cached", e.cached}});
  return llvm::json::Object{
      {"strategy", searchStrategyName(options.strategy)},
      {"budget", options.budget},
      {"time_s", options.timeSeconds},
      {"seed", static_cast<int64_t>(options.seed)},
      {"best_actions", std::move(best)},
      {"best_pipeline", result.bestPipeline},
      {"best_speedup_vs_default", result.bestSpeedup},
      {"evaluations", result.evaluations},
      {"measurements", result.measurements},
      {"cache_hits", result.cacheHits},
      {"cache_hit_rate", result.cacheHitRate},
      {"failures", result.failures},
      {"walk_failures", result.walkFailures},
      {"last_walk_failure", result.lastWalkFailure},
      {"passed_over", result.passedOver},
      {"wall_s", result.wallSeconds},
      {"interrupted", result.stopped},
      {"history", std::move(history)},
  };
}

} // namespace mqss
