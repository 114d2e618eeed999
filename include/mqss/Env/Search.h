//===- Search.h - Search baselines: random, greedy, beam -------------------===//
//
// The oracle a learned policy is judged against: search over legal action
// sequences that spends real measurements (each against `default`), within a
// budget of evaluations or of wall time.
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_ENV_SEARCH_H
#define MQSS_ENV_SEARCH_H

#include "mqss/Env/Environment.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/JSON.h"

#include <atomic>

namespace mqss {

enum class SearchStrategy { Random, Greedy, Beam };
std::optional<SearchStrategy> parseSearchStrategy(llvm::StringRef name);
llvm::StringRef searchStrategyName(SearchStrategy strategy);

struct SearchOptions {
  SearchStrategy strategy = SearchStrategy::Random;
  unsigned budget = 20;  ///< evaluations (0: unlimited)
  double timeSeconds = 0; ///< wall-time limit (0: unlimited)
  unsigned maxLength = 8; ///< actions per sequence before finish
  unsigned beamWidth = 3;
  uint64_t seed = 1;
  /// Set (by a SIGINT handler) to end the search after the evaluation in
  /// progress, with the best found so far.
  const std::atomic<bool> *stop = nullptr;
};

struct SearchResult {
  std::vector<const Action *> bestActions;
  double bestSpeedup = 0; ///< over default; 1.0 means default itself
  /// The best sequence's gain under the evaluator's objective (1.0: default);
  /// equal to bestSpeedup for `runtime`.
  double bestScore = 0;
  std::string bestPipeline;
  /// failures: evaluations that did not come back ok (as in history).
  unsigned evaluations = 0, measurements = 0, cacheHits = 0, failures = 0;
  /// Walks (random rollouts, beam probes) that could not be made, the
  /// last one's reason, and actions a walk passed over because they
  /// failed on the module.
  unsigned walkFailures = 0, passedOver = 0;
  std::string lastWalkFailure;
  /// What prepared the module before the actions (TOSA's lowering, ...):
  /// the best pipeline begins with it, as a selection's does.
  std::string preparation;
  double cacheHitRate = 0;
  double wallSeconds = 0;
  bool stopped = false; ///< ended by SearchOptions::stop, before its budget
  std::vector<Evaluation> history;
};

/// Called after every evaluation, for progress output.
using SearchProgress = llvm::function_ref<void(const Evaluation &, const SearchResult &)>;

SearchResult runSearch(Evaluator &evaluator, const RunRequest &kernel,
                       const SearchOptions &options, SearchProgress progress);

llvm::json::Value toJSON(const SearchResult &result, const SearchOptions &options);

} // namespace mqss

#endif // MQSS_ENV_SEARCH_H
