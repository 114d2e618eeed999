//===- Trainer.h - `mqss train`: behaviour cloning, then PPO ---------------===//
#ifndef MQSS_TRAIN_TRAINER_H
#define MQSS_TRAIN_TRAINER_H

#include "mqss/Env/Objective.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mqss {

struct TrainOptions {
  std::string outDir;          ///< checkpoints, logs, plot and the final model
  std::string registryPath;    ///< empty: the default registry
  std::string size = "smallest";
  std::string kernel;          ///< restrict training to one kernel (tests)
  unsigned maxTrainKernels = 0; ///< 0: all train kernels
  std::vector<std::string> targets = {"x86-avx512", "x86-avx2"};
  unsigned updates = 30;
  unsigned episodesPerUpdate = 16;
  unsigned maxSteps = 8;
  unsigned checkpointEvery = 2;
  unsigned validateEvery = 5;
  unsigned patience = 3;       ///< validations without improvement before stopping
  unsigned bcEpochs = 30;      ///< 0: no behaviour-cloning warm start
  unsigned bcSearchBudget = 0; ///< random-search evaluations per task for demonstrations
  double epsilon = 0.1;        ///< decays linearly to 0.02
  uint64_t seed = 1;
  std::string dbPath;          ///< measurement cache; empty: default
  unsigned reps = 3;
  double minTimeMs = 10;
  std::string command;         ///< the command line, stored in the model
  /// What episodes are rewarded for; a weighted objective's scales are
  /// measured on the train tasks (kept in outDir/objective.json for resume).
  Objective objective;
};

struct TrainResult {
  std::string modelPath;
  unsigned updates = 0;
  bool resumed = false;
  double bestValidationReward = 0;
  double firstMeanReward = 0, lastMeanReward = 0;
  Objective objective; ///< with the scales the run used
};

/// Trains (or resumes training, when outDir holds a checkpoint of the same
/// command) and writes outDir/model.pt, log.csv, log.jsonl and
/// learning-curve.svg. Progress goes to stderr.
llvm::Expected<TrainResult> train(const TrainOptions &options);

/// log2 of the ops one call of each train kernel's entry executes
/// (mqss::executedOps), smallest and largest over the train selection of
/// \p options (registry, size, kernel) where it is static: the problem sizes
/// a model trained on that selection has seen (none when no count is
/// static). train() stores it in the model; the selector gives `default`'s
/// plan to functions far below it.
llvm::Expected<std::optional<std::pair<double, double>>>
trainedOpsRange(const TrainOptions &options);

/// Stores trainedOpsRange(\p options) in the model at \p modelPath, its
/// weights and other metadata unchanged (for models trained before the
/// range was recorded). Returns the range.
llvm::Expected<std::pair<double, double>> annotateTrainedOpsRange(const TrainOptions &options,
                                                                  llvm::StringRef modelPath);

} // namespace mqss

#endif // MQSS_TRAIN_TRAINER_H
