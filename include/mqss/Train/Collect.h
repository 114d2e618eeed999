//===- Collect.h - `mqss collect`: trajectories into the store, in parallel -===//
#ifndef MQSS_TRAIN_COLLECT_H
#define MQSS_TRAIN_COLLECT_H

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mqss {

struct CollectOptions {
  std::string split = "train";
  std::string size = "smallest";
  std::string kernel;
  std::string registryPath;
  std::vector<std::string> targets = {"host"};
  unsigned episodesPerTask = 1;
  std::string modelPath; ///< empty: the random policy
  double epsilon = 0.1;  ///< with a model: probability of a random legal action
  unsigned workers = 2;  ///< worker processes
  unsigned maxSteps = 8;
  uint64_t seed = 1;
  std::string dbPath;
  unsigned reps = 3;
  double minTimeMs = 10;
};

struct CollectResult {
  unsigned episodes = 0;      ///< trajectories stored by this run
  unsigned workers = 0;
  unsigned failedWorkers = 0; ///< workers that died (their remaining episodes are lost)
  double wallSeconds = 0;
  double meanReward = 0;
};

/// Runs episodes of the random (or an epsilon-greedy trained) policy over the
/// selected kernels in worker processes, each episode itself sandboxed, and
/// stores every trajectory with its measured reward in the store.
llvm::Expected<CollectResult> collect(const CollectOptions &options);

} // namespace mqss

#endif // MQSS_TRAIN_COLLECT_H
