//===- Evaluate.h - `mqss evaluate`: the policy against every baseline -----===//
#ifndef MQSS_TRAIN_EVALUATE_H
#define MQSS_TRAIN_EVALUATE_H

#include "mqss/Env/Objective.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace mqss {

struct EvaluateOptions {
  std::string split = "test";
  std::string size = "smallest";
  std::string kernel;
  std::string registryPath;
  std::string modelPath; ///< empty: the shipped model
  std::vector<std::string> targets = {"host"};
  unsigned oracleBudget = 10; ///< random-search evaluations per module
  unsigned reps = 5;
  double minTimeMs = 20;
  std::string dbPath;
  std::string outDir; ///< evaluation.md, evaluation.json, evaluation.html
  /// What the guard and the oracle maximise, and what `objective_gain`
  /// reports; the speedup figures are runtime whatever it is.
  Objective objective;
};

/// Measures naive, default, expert, the search oracle, the policy and the
/// guarded policy on every selected module; returns the JSON report (and
/// writes the Markdown and HTML pages when outDir is set).
llvm::Expected<llvm::json::Value> evaluatePolicy(const EvaluateOptions &options);

} // namespace mqss

#endif // MQSS_TRAIN_EVALUATE_H
