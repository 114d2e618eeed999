//===- Episode.h - The MDP: episodes of a policy on a kernel, rewarded ------===//
//
// reset = parse the kernel; step = encode features, mask, let the policy pick,
// apply; an episode ends at a finish action or the length limit. All of that
// runs in a sandboxed child (a pass that crashes costs one episode, not the
// trainer). The final sequence is then measured against `default` through
// the measurement cache, and the delayed reward is r = (T_default - T) /
// T_default, 0 inside the noise dead-band, -1 for any failure (under the
// default `runtime` objective; Objective.h has the others).
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_ENV_EPISODE_H
#define MQSS_ENV_EPISODE_H

#include "mqss/Env/Environment.h"
#include "mqss/Features/Encoder.h"
#include "mqss/Policy/Policy.h"
#include "mqss/Selector/Selector.h"

#include <vector>

namespace mqss {

struct EpisodeStep {
  FeatureVector features;
  std::vector<bool> mask;
  unsigned action = 0; ///< catalog index
  float probability = 0;
  float value = 0;
};

struct Episode {
  std::vector<EpisodeStep> steps;
  std::vector<const Action *> actions;
  RunStatus status = RunStatus::Ok;
  std::string message;
  double speedup = 0; ///< over default; 0 on failure
  Gains gains;        ///< runtime, compile and size ratios vs default
  double reward = 0;
  bool cached = false;
  /// Time spent encoding features and deciding, per step.
  std::vector<double> decisionMicros;
};

struct EpisodeOptions {
  unsigned maxSteps = 8;
  /// Probability of a uniformly random legal action instead of the policy's.
  double epsilon = 0;
  /// Take the most probable action instead of sampling.
  bool greedy = false;
  uint64_t seed = 1;
  /// Noise dead-band: |reward| below it counts as 0.
  double deadband = 0.005;
  /// What the reward measures (Objective.h); `runtime` by default.
  Objective objective;
  /// Follow this sequence instead of asking the policy (behaviour cloning):
  /// steps still record states and masks.
  std::vector<const Action *> forcedActions;
};

/// Installs a resolver that knows `policy` (the shipped model), `policy:PATH`
/// and every name useNamedPipelines knows.
void usePolicyPipelines(RunRequest &request);

/// The `runtime` objective's reward for a measured speedup over default
/// (see the file comment).
double rewardFor(RunStatus status, double speedup, double deadband);

/// Runs one episode of \p policy on \p kernel and measures its sequence with
/// \p evaluator (no measurement when \p evaluator is null: reward 0).
Episode runEpisode(const RunRequest &kernel, Policy &policy, Evaluator *evaluator,
                   const EpisodeOptions &options);

/// An episode's steps as stored with its trajectory: per step the features,
/// the mask (0/1), the action's name and its probability.
std::string episodeStepsJson(const Episode &episode);
/// Reads episodeStepsJson's output back.
llvm::Expected<std::vector<EpisodeStep>> parseEpisodeSteps(llvm::StringRef json);

} // namespace mqss

#endif // MQSS_ENV_EPISODE_H
