//===- Policy.cpp - Policies without a network, metadata, the factory ------===//

#include "mqss/Policy/Policy.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <cstdlib>
#include <dlfcn.h>

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

/// Set by the CMake package (MQSSConfig.cmake) in each consumer it links
/// the library into: the prefix the package was found in, which the library,
/// built before `cmake --install --prefix` chose it, cannot know.
extern "C" __attribute__((weak)) const char mqssInstalledPrefix[];

std::optional<std::string> installedDataPath(llvm::StringRef relative) {
  auto under = [&](llvm::StringRef prefix) -> std::optional<std::string> {
    llvm::SmallString<256> path(prefix);
    llvm::sys::path::append(path, "share", "mqss", relative);
    if (prefix.empty() || !llvm::sys::fs::exists(path))
      return std::nullopt;
    return std::string(path);
  };
  // The executable or plugin this code was linked into: PREFIX/bin/mqss,
  // PREFIX/lib/libMQSSPlugin.so.
  Dl_info info;
  std::string image;
  if (dladdr(reinterpret_cast<void *>(&installedDataPath), &info) && info.dli_fname &&
      llvm::StringRef(info.dli_fname).contains(".so"))
    image = info.dli_fname;
  else
    image = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
  llvm::SmallString<256> real;
  if (!image.empty() && !llvm::sys::fs::real_path(image, real))
    if (auto found = under(llvm::sys::path::parent_path(llvm::sys::path::parent_path(real))))
      return found;
  if (mqssInstalledPrefix)
    if (auto found = under(mqssInstalledPrefix))
      return found;
  return under(MQSS_INSTALL_PREFIX);
}

std::string defaultModelPath() {
  // An empty $MQSS_MODEL is no path: as if unset.
  if (const char *path = std::getenv("MQSS_MODEL"); path && *path)
    return path;
  // The installed copy where this runs from an installation, else the
  // source tree's (built from it), else where the configured prefix has it.
  if (std::optional<std::string> installed = installedDataPath("models/default.pt"))
    return *installed;
  llvm::StringRef inSource = MQSS_SOURCE_DIR "/models/default.pt";
  if (llvm::sys::fs::exists(inSource))
    return inSource.str();
  return MQSS_INSTALL_PREFIX "/share/mqss/models/default.pt";
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
