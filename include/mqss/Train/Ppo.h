//===- Ppo.h - PPO and behaviour cloning on the actor-critic network -------===//
//
// Includes libtorch (through Network.h): only lib/Train and its tests use it.
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_TRAIN_PPO_H
#define MQSS_TRAIN_PPO_H

#include "mqss/Env/Episode.h"
#include "mqss/Policy/Network.h"

#include <vector>

namespace mqss {

struct PpoConfig {
  float gamma = 1.0f;   ///< episodes are short and the reward is delayed
  float lambda = 0.95f; ///< GAE
  float clip = 0.2f;
  float valueCoef = 0.5f;
  float entropyCoef = 0.02f;
  float entropyDecay = 0.98f; ///< per update
  float learningRate = 3e-4f;
  unsigned epochs = 4;
  unsigned minibatch = 64;
  float maxGradNorm = 0.5f;
};

/// Generalised advantage estimation over one episode whose only reward is
/// \p finalReward after the last step. \p values are the critic's estimates
/// at each step. Fills advantages and returns (advantage + value).
void computeGae(const std::vector<float> &values, float finalReward, float gamma,
                float lambda, std::vector<float> &advantages, std::vector<float> &returns);

/// The clipped surrogate objective (to be minimised), per PPO:
/// -mean(min(ratio * A, clip(ratio, 1-eps, 1+eps) * A)).
torch::Tensor clippedPolicyLoss(const torch::Tensor &newLogProbs,
                                const torch::Tensor &oldLogProbs,
                                const torch::Tensor &advantages, float clip);

struct PpoStats {
  float policyLoss = 0, valueLoss = 0, entropy = 0, approxKl = 0, clipFraction = 0;
};

/// One PPO update (epochs of shuffled minibatches) on the steps of
/// \p episodes. \p entropyCoef is the current (decayed) bonus.
PpoStats ppoUpdate(ActorCritic &network, torch::optim::Optimizer &optimizer,
                   const std::vector<Episode> &episodes, const PpoConfig &config,
                   float entropyCoef, uint64_t seed);

/// Behaviour cloning: cross-entropy of the masked policy against the actions
/// taken in \p demonstrations (and the value head against their rewards).
/// Returns the final mean loss.
float behaviourCloning(ActorCritic &network, torch::optim::Optimizer &optimizer,
                       const std::vector<Episode> &demonstrations, unsigned epochs,
                       uint64_t seed);

} // namespace mqss

#endif // MQSS_TRAIN_PPO_H
