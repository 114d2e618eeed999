//===- Network.h - The actor-critic MLP (libtorch) -------------------------===//
//
// Includes libtorch: only lib/Policy/Network.cpp, lib/Train and the unit
// tests include this header, and only they link libtorch (MQSSNetwork).
// libtorch throws c10::Error; the functions here that cross into the rest of
// MQSS-Selector catch it and return llvm::Error.
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_POLICY_NETWORK_H
#define MQSS_POLICY_NETWORK_H

#include "mqss/Policy/Policy.h"

#include <torch/torch.h>

namespace mqss {

/// A shared trunk of three hidden layers (tanh), a policy head with one logit
/// per catalog action and a value head.
struct ActorCriticImpl : torch::nn::Module {
  ActorCriticImpl(unsigned numFeatures, unsigned numActions,
                  std::vector<unsigned> hidden = {128, 64, 32});
  /// Returns {logits [B, A], values [B]}.
  std::pair<torch::Tensor, torch::Tensor> forward(torch::Tensor features);

  torch::nn::Sequential trunk{nullptr};
  torch::nn::Linear policyHead{nullptr}, valueHead{nullptr};
  std::vector<unsigned> hidden;
};
TORCH_MODULE(ActorCritic);

/// Logits with illegal actions set to -inf; \p mask is [B, A] bool.
torch::Tensor maskLogits(const torch::Tensor &logits, const torch::Tensor &mask);

/// Writes the network and \p metadata as a model file (Model.h).
llvm::Error saveModel(ActorCritic &network, const ModelMetadata &metadata,
                      llvm::StringRef path);

/// Reads a model file (checked against this build, see loadPolicy), or a
/// libtorch archive, the format models had before Model.h.
llvm::Expected<std::pair<ActorCritic, ModelMetadata>> loadModel(llvm::StringRef path);

/// A Policy deciding with a snapshot of the network's parameters.
std::unique_ptr<Policy> createNetworkPolicy(ActorCritic network, ModelMetadata metadata);

/// Makes libtorch single-threaded: decisions are single-sample, and the
/// processes fork measurement children, which a thread pool must not see.
void configureTorchThreads();

} // namespace mqss

#endif // MQSS_POLICY_NETWORK_H
