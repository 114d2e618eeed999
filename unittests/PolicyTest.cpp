//===- PolicyTest.cpp - The actor-critic network and its model files -------===//

#include "mqss/Policy/Network.h"

#include "mqss/Policy/Model.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

using namespace mqss;

namespace {
std::string temporaryModel() {
  llvm::SmallString<128> path;
  EXPECT_FALSE(llvm::sys::fs::createTemporaryFile("mqss-model", "pt", path));
  return std::string(path);
}

ModelMetadata freshMetadata() {
  ModelMetadata metadata = currentMetadata();
  metadata.hidden = {128, 64, 32};
  metadata.targets = {"x86-avx512", "x86-avx2"};
  metadata.trainingCommand = "unit test";
  return metadata;
}

/// A network whose parameters are drawn uniformly from [-range, range].
ActorCritic randomNetwork(uint64_t seed, double range) {
  configureTorchThreads();
  torch::manual_seed(seed);
  ActorCritic network(kNumFeatures, actionCatalog().size());
  torch::NoGradGuard noGrad;
  for (torch::Tensor &p : network->parameters())
    p.uniform_(-range, range);
  return network;
}

std::vector<bool> maskOf(std::initializer_list<const char *> names) {
  std::vector<bool> mask(actionCatalog().size(), false);
  for (const char *name : names)
    mask[actionIndex(*lookupAction(name))] = true;
  return mask;
}
} // namespace

TEST(Policy, NetworkIsSmallAndMasksIllegalActions) {
  configureTorchThreads();
  torch::manual_seed(3);
  ActorCritic network(kNumFeatures, actionCatalog().size());
  int64_t parameters = 0;
  for (const torch::Tensor &p : network->parameters())
    parameters += p.numel();
  EXPECT_LT(parameters, 50000);

  auto policy = createNetworkPolicy(network, freshMetadata());
  FeatureVector features{};
  features[0] = 0.5f;
  std::vector<bool> mask = maskOf({"loops.tile-32", "loops.unroll-4", "finish-O3"});
  for (double r : {0.0, 0.3, 0.6, 0.999}) {
    Decision d = policy->sample(features, mask, r);
    ASSERT_TRUE(d.action);
    EXPECT_TRUE(mask[actionIndex(*d.action)]) << d.action->name.str();
  }
  Decision greedy = policy->decide(features, mask);
  float total = 0;
  for (unsigned i = 0; i < greedy.probabilities.size(); ++i) {
    total += greedy.probabilities[i];
    if (!mask[i])
      EXPECT_EQ(greedy.probabilities[i], 0.0f);
  }
  EXPECT_NEAR(total, 1.0f, 1e-5);
  // Freshly initialised, the policy is close to uniform over legal actions.
  EXPECT_NEAR(greedy.probability, 1.0f / 3, 0.05);
}

TEST(Policy, SaveLoadRoundTripGivesTheSameDecisions) {
  ActorCritic network = randomNetwork(7, 0.5); // decisions depend on the weights
  std::string path = temporaryModel();
  ASSERT_FALSE(errorToBool(saveModel(network, freshMetadata(), path)));
  auto before = createNetworkPolicy(network, freshMetadata());
  auto after = loadPolicy(path);
  ASSERT_TRUE(static_cast<bool>(after)) << llvm::toString(after.takeError());
  EXPECT_EQ((*after)->metadata().trainingCommand, "unit test");
  EXPECT_EQ((*after)->metadata().targets.size(), 2u);
  FeatureVector features{};
  for (unsigned i = 0; i < kNumFeatures; ++i)
    features[i] = (i % 7) / 7.0f;
  std::vector<bool> mask(actionCatalog().size(), true);
  Decision a = before->decide(features, mask), b = (*after)->decide(features, mask);
  EXPECT_EQ(a.action, b.action);
  EXPECT_FLOAT_EQ(a.value, b.value);
  EXPECT_FLOAT_EQ(a.probability, b.probability);
  llvm::sys::fs::remove(path);
}

// Decisions run a plain C++ copy of the network (with a rational tanh); it
// must give what libtorch's forward pass gives, the one training optimised.
TEST(Policy, InferenceAgreesWithTheTorchForwardPass) {
  // Pre-activations well into tanh's saturation.
  ActorCritic network = randomNetwork(11, 0.6);
  auto policy = createNetworkPolicy(network, freshMetadata());
  std::vector<bool> mask(actionCatalog().size(), true);
  torch::Tensor maskTensor = torch::ones({int64_t(mask.size())}, torch::kBool);
  torch::manual_seed(12);
  for (int sample = 0; sample < 50; ++sample) {
    torch::Tensor input = torch::randn({int64_t(kNumFeatures)}) * (sample % 5);
    FeatureVector features{};
    for (unsigned i = 0; i < kNumFeatures; ++i)
      features[i] = input[i].item<float>();
    torch::NoGradGuard noGrad;
    auto [logits, value] = network->forward(input.unsqueeze(0));
    torch::Tensor probabilities = torch::softmax(maskLogits(logits[0], maskTensor), -1);
    Decision decision = policy->decide(features, mask);
    EXPECT_NEAR(decision.value, value[0].item<float>(), 1e-5);
    for (unsigned a = 0; a < mask.size(); ++a)
      EXPECT_NEAR(decision.probabilities[a], probabilities[a].item<float>(), 1e-5)
          << "sample " << sample << " action " << a;
  }
}

// Each instruction set's copy of the dense layer, on every row width the
// column blocking treats differently (whole blocks of 64 or 32 columns,
// then 16, 32 or 48 left over), against a plain scalar sum. Copies this CPU
// cannot run are skipped, and say so.
TEST(Policy, EveryDenseKernelComputesTheLayer) {
  unsigned ran = 0;
  for (const DenseKernel &kernel : denseKernels()) {
    if (!kernel.supported) {
      std::printf("dense kernel %s: not supported by this CPU, not checked\n", kernel.isa);
      continue;
    }
    ++ran;
    std::mt19937 random(5);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (unsigned stride : {16u, 32u, 48u, 64u, 80u, 96u, 112u, 128u, 144u}) {
      const unsigned in = 37, activated = stride - 5;
      std::vector<float> weights(in * stride), bias(stride), x(in), y(stride);
      for (float &w : weights)
        w = uniform(random);
      for (float &b : bias)
        b = uniform(random);
      for (unsigned i = 0; i < in; ++i)
        x[i] = i % 3 == 0 ? 0.0f : uniform(random); // zeros are skipped
      // Unaligned: the layers' vectors hold floats, not registers.
      std::vector<float> shifted(weights.size() + 1);
      std::copy(weights.begin(), weights.end(), shifted.begin() + 1);
      kernel.forward(shifted.data() + 1, stride, bias.data(), x.data(), in, y.data(), activated);
      for (unsigned o = 0; o < stride; ++o) {
        double sum = bias[o];
        for (unsigned i = 0; i < in; ++i)
          sum += double(weights[i * stride + o]) * x[i];
        double expected = o < activated ? std::tanh(sum) : sum;
        EXPECT_NEAR(y[o], expected, 1e-5) << kernel.isa << ", stride " << stride << ", column " << o;
      }
    }
  }
  EXPECT_GE(ran, 1u);
}

TEST(Policy, ModelForAnotherFeatureSpecIsRefused) {
  configureTorchThreads();
  ActorCritic network(kNumFeatures, actionCatalog().size());
  ModelMetadata stale = freshMetadata();
  stale.featureSpecHash = "0x0000000000000001";
  std::string path = temporaryModel();
  ASSERT_FALSE(errorToBool(saveModel(network, stale, path)));
  auto loaded = loadPolicy(path);
  ASSERT_FALSE(static_cast<bool>(loaded));
  std::string message = llvm::toString(loaded.takeError());
  EXPECT_NE(message.find("trained against feature spec 0x0000000000000001"), std::string::npos)
      << message;
  EXPECT_NE(message.find("retrain it with `mqss train`"), std::string::npos);

  ModelMetadata otherCatalog = freshMetadata();
  otherCatalog.catalogHash = "0x00000000000000aa";
  ASSERT_FALSE(errorToBool(saveModel(network, otherCatalog, path)));
  auto refused = loadPolicy(path);
  ASSERT_FALSE(static_cast<bool>(refused));
  EXPECT_NE(llvm::toString(refused.takeError()).find("action catalog"), std::string::npos);
  // The catalog's hash right, its count not: the message names the counts
  // (it named the same hash twice).
  ModelMetadata otherCount = freshMetadata();
  otherCount.numActions += 1;
  ASSERT_FALSE(errorToBool(saveModel(network, otherCount, path)));
  auto counted = loadPolicy(path);
  ASSERT_FALSE(static_cast<bool>(counted));
  std::string countMessage = llvm::toString(counted.takeError());
  EXPECT_NE(countMessage.find("trained against an action count of " +
                              std::to_string(actionCatalog().size() + 1)),
            std::string::npos)
      << countMessage;
  llvm::sys::fs::remove(path);
}

TEST(Policy, CorruptOrMissingFilesAreClearErrors) {
  std::string path = temporaryModel();
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    os << "not a model at all";
  }
  auto corrupt = loadPolicy(path);
  ASSERT_FALSE(static_cast<bool>(corrupt));
  EXPECT_NE(llvm::toString(corrupt.takeError()).find("not a readable model file"),
            std::string::npos);
  auto missing = loadPolicy("/nonexistent/model.pt");
  ASSERT_FALSE(static_cast<bool>(missing));
  EXPECT_NE(llvm::toString(missing.takeError()).find("no such file"), std::string::npos);

  // A model cut short, or with bytes its metadata does not account for.
  ActorCritic network = randomNetwork(5, 0.5);
  ASSERT_FALSE(errorToBool(saveModel(network, freshMetadata(), path)));
  uint64_t size = 0;
  ASSERT_FALSE(llvm::sys::fs::file_size(path, size));
  auto whole = llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE(static_cast<bool>(whole));
  std::string bytes = (*whole)->getBuffer().str();
  auto rewrite = [&](llvm::StringRef contents) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    os << contents;
  };
  rewrite(llvm::StringRef(bytes).drop_back(100));
  auto truncated = loadPolicy(path);
  ASSERT_FALSE(static_cast<bool>(truncated));
  EXPECT_NE(llvm::toString(truncated.takeError()).find("truncated"), std::string::npos);
  rewrite(bytes + "tail");
  auto longer = loadPolicy(path);
  ASSERT_FALSE(static_cast<bool>(longer));
  EXPECT_NE(llvm::toString(longer.takeError()).find("4 bytes after the weights"),
            std::string::npos);
  // A flipped byte that leaves every value finite fails the digest; a
  // file written before the digest was recorded loads unchecked.
  std::string flipped = bytes;
  flipped[flipped.size() - 2] ^= 0x01;
  rewrite(flipped);
  auto damaged = loadPolicy(path);
  ASSERT_FALSE(static_cast<bool>(damaged));
  EXPECT_NE(llvm::toString(damaged.takeError()).find("do not match the digest"),
            std::string::npos);
  std::string undigested = flipped;
  size_t digestAt = undigested.find(",\"weights_sha256\":\"");
  ASSERT_NE(digestAt, std::string::npos);
  undigested.erase(digestAt, std::strlen(",\"weights_sha256\":\"") + 64 + 1);
  rewrite(undigested);
  EXPECT_TRUE(static_cast<bool>(loadPolicy(path))) << "a model without a digest loads";
  // A diverged training's NaNs (the last weight: value.bias), as it saved them.
  auto written = readModel(path);
  ASSERT_TRUE(static_cast<bool>(written));
  written->weights.value.bias.back() = std::nanf("");
  ASSERT_FALSE(errorToBool(writeModel(written->weights, written->metadata, path)));
  auto notFinite = loadPolicy(path);
  ASSERT_FALSE(static_cast<bool>(notFinite));
  EXPECT_NE(llvm::toString(notFinite.takeError()).find("its value.bias holds values that are not finite"),
            std::string::npos);
  rewrite(bytes);
  EXPECT_TRUE(static_cast<bool>(loadPolicy(path))) << "the file as written loads";
  // A malformed training range would turn the small-kernel rule off.
  ModelMetadata ranged = freshMetadata();
  ranged.minTrainedLog2Ops = 20;
  ranged.maxTrainedLog2Ops = 30;
  ASSERT_FALSE(errorToBool(saveModel(network, ranged, path)));
  auto withRange = llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE(static_cast<bool>(withRange));
  std::string rangedBytes = (*withRange)->getBuffer().str();
  size_t at = rangedBytes.find("\"trained_log2_ops\":{\"max\":");
  ASSERT_NE(at, std::string::npos);
  rangedBytes.insert(at + std::strlen("\"trained_log2_ops\":{\"max\":"), "\"high\",\"was\":");
  rewrite(rangedBytes);
  auto badRange = loadPolicy(path);
  ASSERT_FALSE(static_cast<bool>(badRange));
  EXPECT_NE(llvm::toString(badRange.takeError()).find("trained_log2_ops"), std::string::npos);
  // A device is no model (read whole, /dev/zero never ended).
  auto device = loadPolicy("/dev/zero");
  ASSERT_FALSE(static_cast<bool>(device));
  EXPECT_NE(llvm::toString(device.takeError()).find("not a regular file"), std::string::npos);
  llvm::sys::fs::remove(path);
}

TEST(Policy, ModelsInTheFormerLibtorchArchiveFormatAreConverted) {
  // The format models had before model files became MQSS's own: a libtorch
  // archive of the parameters, the metadata as a JSON string beside them.
  ActorCritic network = randomNetwork(11, 0.5);
  std::string path = temporaryModel();
  {
    std::string json;
    llvm::raw_string_ostream os(json);
    ModelMetadata metadata = freshMetadata();
    os << llvm::json::Object{{"format", metadata.formatVersion},
                             {"mlir_version", metadata.mlirVersion},
                             {"feature_spec_hash", metadata.featureSpecHash},
                             {"catalog_hash", metadata.catalogHash},
                             {"num_features", metadata.numFeatures},
                             {"num_actions", metadata.numActions},
                             {"hidden", llvm::json::Array{128, 64, 32}}};
    torch::serialize::OutputArchive archive;
    network->save(archive);
    archive.write("mqss_metadata", c10::IValue(json));
    archive.save_to(path);
  }
  // Selecting (no libtorch) says how to convert it...
  auto refused = loadPolicy(path);
  ASSERT_FALSE(static_cast<bool>(refused));
  EXPECT_NE(llvm::toString(refused.takeError()).find("mqss train --annotate="),
            std::string::npos);
  // ... and training reads it, decisions unchanged, and writes it anew.
  auto legacy = loadModel(path);
  ASSERT_TRUE(static_cast<bool>(legacy)) << llvm::toString(legacy.takeError());
  ASSERT_FALSE(errorToBool(saveModel(legacy->first, legacy->second, path)));
  auto converted = loadPolicy(path);
  ASSERT_TRUE(static_cast<bool>(converted)) << llvm::toString(converted.takeError());
  auto original = createNetworkPolicy(network, freshMetadata());
  std::vector<bool> mask(actionCatalog().size(), true);
  FeatureVector features{};
  for (unsigned i = 0; i < kNumFeatures; ++i)
    features[i] = 0.01f * (i % 17);
  Decision a = original->decide(features, mask), b = (*converted)->decide(features, mask);
  EXPECT_EQ(a.action, b.action);
  EXPECT_EQ(a.probabilities, b.probabilities);
  EXPECT_EQ(a.value, b.value);
  llvm::sys::fs::remove(path);
}

TEST(Policy, RandomPolicyIsUniformOverLegalActions) {
  auto policy = createRandomPolicy();
  std::vector<bool> mask = maskOf({"loops.tile-8", "loops.tile-16", "finish-O1", "finish-O2"});
  std::map<const Action *, int> counts;
  for (int i = 0; i < 400; ++i)
    ++counts[policy->sample({}, mask, (i + 0.5) / 400).action];
  EXPECT_EQ(counts.size(), 4u);
  for (auto &[action, count] : counts)
    EXPECT_EQ(count, 100) << action->name.str();
}
