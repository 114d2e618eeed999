//===- Policy.cpp - Policies without a network, metadata, the factory ------===//

#include "mqss/Policy/Policy.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstdlib>

namespace mqss {

Policy::~Policy() = default;

std::vector<float> Policy::attribute(const FeatureVector &, const std::vector<bool> &,
                                     unsigned) {
  return std::vector<float>(kNumFeatures, 0.0f);
}

ModelMetadata currentMetadata() {
  ModelMetadata metadata;
  metadata.mlirVersion = LLVM_VERSION_STRING;
  metadata.featureSpecHash = llvm::formatv("{0:x16}", featureSpecHash()).str();
  metadata.catalogHash = llvm::formatv("{0:x16}", catalogHash()).str();
  metadata.numFeatures = kNumFeatures;
  metadata.numActions = actionCatalog().size();
  return metadata;
}

std::string defaultModelPath() {
  if (const char *path = std::getenv("MQSS_MODEL"))
    return path;
  // The source tree's when built from it, else the installed copy.
  llvm::StringRef inSource = MQSS_SOURCE_DIR "/models/default.pt";
  if (llvm::sys::fs::exists(inSource))
    return inSource.str();
  return MQSS_INSTALLED_MODEL;
}

unsigned drawFromDistribution(const std::vector<float> &probabilities, double random) {
  double cumulative = 0;
  unsigned last = 0;
  for (unsigned i = 0; i < probabilities.size(); ++i) {
    if (probabilities[i] <= 0)
      continue;
    last = i;
    cumulative += probabilities[i];
    if (random < cumulative)
      return i;
  }
  return last; // rounding left a sliver above the last legal action
}

namespace {
class RandomPolicy final : public Policy {
public:
  RandomPolicy() { meta = currentMetadata(); }
  Decision decide(const FeatureVector &, const std::vector<bool> &mask) override {
    return sample({}, mask, 0.0);
  }
  Decision sample(const FeatureVector &, const std::vector<bool> &mask,
                  double random) override {
    Decision decision;
    unsigned legal = std::count(mask.begin(), mask.end(), true);
    decision.probabilities.assign(mask.size(), 0.0f);
    for (unsigned i = 0; i < mask.size(); ++i)
      if (mask[i])
        decision.probabilities[i] = 1.0f / legal;
    unsigned index = drawFromDistribution(decision.probabilities, random);
    decision.action = &actionCatalog()[index];
    decision.probability = legal ? 1.0f / legal : 0.0f;
    return decision;
  }
  llvm::StringRef kind() const override { return "random"; }
  const ModelMetadata &metadata() const override { return meta; }

private:
  ModelMetadata meta;
};
} // namespace

std::unique_ptr<Policy> createRandomPolicy() { return std::make_unique<RandomPolicy>(); }

} // namespace mqss
