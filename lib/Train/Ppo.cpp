//===- Ppo.cpp - PPO and behaviour cloning ---------------------------------===//

#include "mqss/Train/Ppo.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <algorithm>
#include <numeric>
#include <random>

namespace mqss {

void computeGae(const std::vector<float> &values, float finalReward, float gamma,
                float lambda, std::vector<float> &advantages, std::vector<float> &returns) {
  size_t n = values.size();
  advantages.assign(n, 0);
  returns.assign(n, 0);
  float next = 0; // running GAE
  for (size_t t = n; t-- > 0;) {
    bool last = t + 1 == n;
    float reward = last ? finalReward : 0.0f;
    float nextValue = last ? 0.0f : values[t + 1];
    float delta = reward + gamma * nextValue - values[t];
    next = delta + gamma * lambda * (last ? 0.0f : next);
    advantages[t] = next;
    returns[t] = next + values[t];
  }
}

torch::Tensor clippedPolicyLoss(const torch::Tensor &newLogProbs,
                                const torch::Tensor &oldLogProbs,
                                const torch::Tensor &advantages, float clip) {
  torch::Tensor ratio = torch::exp(newLogProbs - oldLogProbs);
  torch::Tensor unclipped = ratio * advantages;
  torch::Tensor clipped = torch::clamp(ratio, 1.0 - clip, 1.0 + clip) * advantages;
  return -torch::min(unclipped, clipped).mean();
}

namespace {
/// All steps of a set of episodes as tensors.
struct Batch {
  torch::Tensor features, masks, actions, oldLogProbs, advantages, returns;
  int64_t size = 0;
};

Batch flatten(const std::vector<Episode> &episodes, const PpoConfig &config) {
  std::vector<float> features, oldLogProbs, advantages, returns;
  std::vector<uint8_t> masks;
  std::vector<int64_t> actions;
  for (const Episode &episode : episodes) {
    std::vector<float> values, adv, ret;
    for (const EpisodeStep &step : episode.steps)
      values.push_back(step.value);
    computeGae(values, static_cast<float>(episode.reward), config.gamma, config.lambda, adv,
               ret);
    for (size_t t = 0; t < episode.steps.size(); ++t) {
      const EpisodeStep &step = episode.steps[t];
      features.insert(features.end(), step.features.begin(), step.features.end());
      masks.insert(masks.end(), step.mask.begin(), step.mask.end());
      actions.push_back(step.action);
      oldLogProbs.push_back(std::log(std::max(step.probability, 1e-8f)));
      advantages.push_back(adv[t]);
      returns.push_back(ret[t]);
    }
  }
  Batch batch;
  batch.size = actions.size();
  int64_t numActions = actionCatalog().size();
  batch.features = torch::from_blob(features.data(), {batch.size, (int64_t)kNumFeatures},
                                    torch::kFloat32)
                       .clone();
  batch.masks = torch::from_blob(masks.data(), {batch.size, numActions}, torch::kUInt8)
                    .to(torch::kBool);
  batch.actions = torch::from_blob(actions.data(), {batch.size}, torch::kInt64).clone();
  batch.oldLogProbs = torch::from_blob(oldLogProbs.data(), {batch.size}, torch::kFloat32).clone();
  batch.advantages = torch::from_blob(advantages.data(), {batch.size}, torch::kFloat32).clone();
  batch.returns = torch::from_blob(returns.data(), {batch.size}, torch::kFloat32).clone();
  return batch;
}

/// Log-probabilities of \p actions and the entropy under the masked policy.
std::tuple<torch::Tensor, torch::Tensor, torch::Tensor>
evaluateActions(ActorCritic &network, const torch::Tensor &features, const torch::Tensor &masks,
                const torch::Tensor &actions) {
  auto [logits, values] = network->forward(features);
  torch::Tensor logProbs = torch::log_softmax(maskLogits(logits, masks), -1);
  torch::Tensor chosen = logProbs.gather(1, actions.unsqueeze(1)).squeeze(1);
  // Entropy over legal actions only (illegal ones have -inf log-prob).
  torch::Tensor probs = logProbs.exp();
  torch::Tensor entropy =
      -(probs * logProbs.masked_fill(masks.logical_not(), 0.0)).sum(-1).mean();
  return {chosen, entropy, values};
}
/// Calls \p body with the indices of each shuffled minibatch of each epoch.
void forEachMinibatch(int64_t size, unsigned epochs, unsigned minibatch, uint64_t seed,
                      llvm::function_ref<void(unsigned epoch, const torch::Tensor &)> body) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> order(size);
  std::iota(order.begin(), order.end(), 0);
  for (unsigned epoch = 0; epoch < epochs; ++epoch) {
    std::shuffle(order.begin(), order.end(), rng);
    for (int64_t start = 0; start < size; start += minibatch) {
      int64_t end = std::min<int64_t>(start + minibatch, size);
      body(epoch, torch::from_blob(order.data() + start, {end - start}, torch::kInt64).clone());
    }
  }
}
} // namespace

PpoStats ppoUpdate(ActorCritic &network, torch::optim::Optimizer &optimizer,
                   const std::vector<Episode> &episodes, const PpoConfig &config,
                   float entropyCoef, uint64_t seed) {
  PpoStats stats;
  Batch batch = flatten(episodes, config);
  if (batch.size == 0)
    return stats;
  torch::Tensor advantages = batch.advantages;
  if (batch.size > 1)
    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8);

  network->train();
  unsigned updates = 0;
  forEachMinibatch(batch.size, config.epochs, config.minibatch, seed,
                   [&](unsigned, const torch::Tensor &index) {
    auto [logProbs, entropy, values] =
        evaluateActions(network, batch.features.index_select(0, index),
                        batch.masks.index_select(0, index),
                        batch.actions.index_select(0, index));
    torch::Tensor old = batch.oldLogProbs.index_select(0, index);
    torch::Tensor adv = advantages.index_select(0, index);
    torch::Tensor policyLoss = clippedPolicyLoss(logProbs, old, adv, config.clip);
    torch::Tensor valueLoss = torch::mse_loss(values, batch.returns.index_select(0, index));
    torch::Tensor loss = policyLoss + config.valueCoef * valueLoss - entropyCoef * entropy;
    optimizer.zero_grad();
    loss.backward();
    torch::nn::utils::clip_grad_norm_(network->parameters(), config.maxGradNorm);
    optimizer.step();

    torch::NoGradGuard noGrad;
    torch::Tensor ratio = torch::exp(logProbs - old);
    stats.policyLoss += policyLoss.item<float>();
    stats.valueLoss += valueLoss.item<float>();
    stats.entropy += entropy.item<float>();
    stats.approxKl += (old - logProbs).mean().item<float>();
    stats.clipFraction +=
        ((ratio - 1.0).abs() > config.clip).to(torch::kFloat32).mean().item<float>();
    ++updates;
  });
  network->eval();
  if (updates) {
    stats.policyLoss /= updates;
    stats.valueLoss /= updates;
    stats.entropy /= updates;
    stats.approxKl /= updates;
    stats.clipFraction /= updates;
  }
  return stats;
}

float behaviourCloning(ActorCritic &network, torch::optim::Optimizer &optimizer,
                       const std::vector<Episode> &demonstrations, unsigned epochs,
                       uint64_t seed) {
  PpoConfig config;
  Batch batch = flatten(demonstrations, config);
  if (batch.size == 0)
    return 0;
  network->train();
  float last = 0, total = 0;
  unsigned count = 0, currentEpoch = 0;
  forEachMinibatch(batch.size, epochs, config.minibatch, seed,
                   [&](unsigned epoch, const torch::Tensor &index) {
    if (epoch != currentEpoch) { // report the last epoch's mean loss
      currentEpoch = epoch;
      total = 0;
      count = 0;
    }
    auto [logProbs, entropy, values] =
        evaluateActions(network, batch.features.index_select(0, index),
                        batch.masks.index_select(0, index),
                        batch.actions.index_select(0, index));
    torch::Tensor loss =
        -logProbs.mean() +
        config.valueCoef * torch::mse_loss(values, batch.returns.index_select(0, index));
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
    total += loss.item<float>();
    last = total / ++count;
  });
  network->eval();
  return last;
}

} // namespace mqss
