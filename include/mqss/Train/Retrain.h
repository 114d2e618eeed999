//===- Retrain.h - `mqss retrain`: learn from served traffic, A/B, promote --===//
//
// Fine-tunes the current model with PPO on the trajectories `mqss serve`
// logged (measured /v1/optimize episodes), then compares candidate and
// current on the validation split with real measurements through the
// shared cache (both are measured against `default`, so equal choices cost
// one measurement and compare equal). The candidate replaces the model file
// (atomic rename, the old one kept as .previous) only if it does not
// regress: its geomean speedup over default is at least the current one's
// (minus the tolerance) and it fails on no more tasks. Every comparison is
// stored (table `retrain_runs`).
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_TRAIN_RETRAIN_H
#define MQSS_TRAIN_RETRAIN_H

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace mqss {

struct RetrainOptions {
  std::string modelPath;     ///< the current model, replaced on promotion; empty: shipped
  std::string candidatePath; ///< given: compare this model instead of fine-tuning one
  std::string outPath;       ///< where a fine-tuned candidate is written
  std::string dbPath;
  double sinceSeconds = 24 * 3600;
  std::string split = "validation";
  std::string size = "smallest";
  std::string kernel; ///< restrict the comparison to one kernel
  std::string registryPath;
  std::vector<std::string> targets = {"x86-avx2"};
  unsigned epochs = 4;
  float learningRate = 1e-4f;
  uint64_t seed = 1;
  unsigned reps = 3;
  double minTimeMs = 10;
  double tolerance = 0.0; ///< relative slack on the geomean (noise)
  bool promote = true;
  std::string command;
};

struct RetrainResult {
  unsigned trajectories = 0;
  std::string candidatePath;
  unsigned tasks = 0;
  double currentGeomean = 0, candidateGeomean = 0;
  double currentMeanReward = 0, candidateMeanReward = 0;
  unsigned currentFailures = 0, candidateFailures = 0;
  bool promoted = false;
  std::string reason;
  llvm::json::Object toJSON() const;
};

llvm::Expected<RetrainResult> retrain(const RetrainOptions &options);

/// "24h", "30m", "90s", "2d" or plain seconds.
llvm::Expected<double> parseDuration(llvm::StringRef text);

} // namespace mqss

#endif // MQSS_TRAIN_RETRAIN_H
