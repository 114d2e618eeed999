//===- Network.cpp - The actor-critic MLP in libtorch, for training -------===//
//
// libtorch throws c10::Error; everything leaving this file is an llvm::Error.
// Model files are MQSS's own (Model.h): the network is converted to and from
// ModelWeights. Models written before that are libtorch archives, which
// loadModel still reads (and `mqss train --annotate` rewrites).
//
//===----------------------------------------------------------------------===//

#include "mqss/Policy/Network.h"

#include "mqss/Policy/Model.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <mutex>
#include <optional>

namespace mqss {

void configureTorchThreads() {
  static std::once_flag once;
  std::call_once(once, [] {
    torch::set_num_threads(1);
    try {
      torch::set_num_interop_threads(1);
    } catch (const c10::Error &) {
      // Already set by an earlier parallel region; one thread either way.
    }
  });
}

ActorCriticImpl::ActorCriticImpl(unsigned numFeatures, unsigned numActions,
                                 std::vector<unsigned> hiddenSizes)
    : hidden(std::move(hiddenSizes)) {
  trunk = register_module("trunk", torch::nn::Sequential());
  unsigned width = numFeatures;
  for (unsigned size : hidden) {
    trunk->push_back(torch::nn::Linear(width, size));
    trunk->push_back(torch::nn::Tanh());
    width = size;
  }
  policyHead = register_module("policy", torch::nn::Linear(width, numActions));
  valueHead = register_module("value", torch::nn::Linear(width, 1));
  // Small policy weights: the first decisions are close to uniform over the
  // legal actions, as PPO implementations initialise them.
  torch::NoGradGuard noGrad;
  policyHead->weight.mul_(0.01);
  policyHead->bias.zero_();
}

std::pair<torch::Tensor, torch::Tensor> ActorCriticImpl::forward(torch::Tensor features) {
  torch::Tensor h = trunk->forward(features);
  return {policyHead->forward(h), valueHead->forward(h).squeeze(-1)};
}

torch::Tensor maskLogits(const torch::Tensor &logits, const torch::Tensor &mask) {
  return logits.masked_fill(mask.logical_not(), -std::numeric_limits<float>::infinity());
}

//===----------------------------------------------------------------------===//
// Conversion to and from model files
//===----------------------------------------------------------------------===//

static DenseWeights toDense(const torch::nn::LinearImpl &linear) {
  torch::NoGradGuard noGrad;
  torch::Tensor w = linear.weight.detach().contiguous().to(torch::kFloat32);
  torch::Tensor b = linear.bias.detach().contiguous().to(torch::kFloat32);
  DenseWeights dense;
  dense.out = w.size(0);
  dense.in = w.size(1);
  dense.weight.assign(w.data_ptr<float>(), w.data_ptr<float>() + w.numel());
  dense.bias.assign(b.data_ptr<float>(), b.data_ptr<float>() + b.numel());
  return dense;
}

static void fromDense(const DenseWeights &dense, torch::nn::LinearImpl &linear) {
  torch::NoGradGuard noGrad;
  auto options = torch::TensorOptions().dtype(torch::kFloat32);
  linear.weight.copy_(torch::from_blob(const_cast<float *>(dense.weight.data()),
                                       {int64_t(dense.out), int64_t(dense.in)}, options));
  linear.bias.copy_(torch::from_blob(const_cast<float *>(dense.bias.data()),
                                     {int64_t(dense.out)}, options));
}

/// The network's linear layers in file order: the trunk's, then the heads.
static std::vector<torch::nn::LinearImpl *> linearLayers(ActorCritic &network) {
  std::vector<torch::nn::LinearImpl *> layers;
  for (const auto &child : network->trunk->children())
    if (auto linear = std::dynamic_pointer_cast<torch::nn::LinearImpl>(child))
      layers.push_back(linear.get());
  layers.push_back(network->policyHead.get());
  layers.push_back(network->valueHead.get());
  return layers;
}

static ModelWeights toWeights(ActorCritic &network) {
  ModelWeights weights;
  std::vector<torch::nn::LinearImpl *> layers = linearLayers(network);
  for (size_t i = 0; i + 2 < layers.size(); ++i)
    weights.trunk.push_back(toDense(*layers[i]));
  weights.policy = toDense(*layers[layers.size() - 2]);
  weights.value = toDense(*layers.back());
  return weights;
}

llvm::Error saveModel(ActorCritic &network, const ModelMetadata &metadata,
                      llvm::StringRef path) {
  return writeModel(toWeights(network), metadata, path);
}

/// A model file from before Model.h: a libtorch archive holding the
/// parameters and the metadata as a JSON string.
static llvm::Expected<std::pair<ActorCritic, ModelMetadata>>
loadTorchArchive(llvm::StringRef path) {
  auto fail = [&](const llvm::Twine &why) { return modelError(path, why); };
  torch::serialize::InputArchive archive;
  std::optional<llvm::json::Value> header;
  try {
    archive.load_from(path.str());
    c10::IValue json;
    if (!archive.try_read("mqss_metadata", json) || !json.isString())
      return fail("it is not an MQSS-Selector model (no metadata)");
    auto parsed = llvm::json::parse(json.toStringRef());
    if (!parsed)
      return fail("its metadata is not valid JSON: " + llvm::toString(parsed.takeError()));
    header = std::move(*parsed);
  } catch (const c10::Error &e) {
    return fail(llvm::Twine("it is not a readable model file (") + e.what_without_backtrace() + ")");
  }
  auto metadata = modelMetadata(*header, path);
  if (!metadata)
    return metadata.takeError();
  ActorCritic network(metadata->numFeatures, metadata->numActions, metadata->hidden);
  try {
    network->load(archive);
  } catch (const c10::Error &e) {
    return fail(llvm::Twine("its parameters do not fit the network its metadata describes (") +
                e.what_without_backtrace() + ")");
  }
  network->eval();
  return std::make_pair(network, std::move(*metadata));
}

llvm::Expected<std::pair<ActorCritic, ModelMetadata>> loadModel(llvm::StringRef path) {
  configureTorchThreads();
  if (isTorchArchive(path))
    return loadTorchArchive(path);
  auto loaded = readModel(path);
  if (!loaded)
    return loaded.takeError();
  auto &[weights, metadata] = *loaded;
  ActorCritic network(metadata.numFeatures, metadata.numActions, metadata.hidden);
  std::vector<torch::nn::LinearImpl *> layers = linearLayers(network);
  for (size_t i = 0; i < weights.trunk.size(); ++i)
    fromDense(weights.trunk[i], *layers[i]);
  fromDense(weights.policy, *layers[layers.size() - 2]);
  fromDense(weights.value, *layers.back());
  network->eval();
  return std::make_pair(network, std::move(metadata));
}

std::unique_ptr<Policy> createNetworkPolicy(ActorCritic network, ModelMetadata metadata) {
  return createModelPolicy(toWeights(network), std::move(metadata));
}

} // namespace mqss
