//===- Policy.h - The decision interface: features in, next action out ----===//
//
// Like LLVM's MLModelRunner: fill a feature vector, evaluate, get an action.
// Implementations (the trained actor-critic MLP, a random policy for
// exploration) sit behind one interface and one factory; call sites never
// branch on them. This header does not include libtorch.
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_POLICY_POLICY_H
#define MQSS_POLICY_POLICY_H

#include "mqss/Actions/Catalog.h"
#include "mqss/Features/Encoder.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mqss {

/// What a model file records about how and against what it was made.
struct ModelMetadata {
  std::string formatVersion = "mqss-policy-1";
  std::string mlirVersion;
  std::string featureSpecHash; ///< hex, as `mqss features` prints it
  std::string catalogHash;     ///< hex
  unsigned numFeatures = 0;
  unsigned numActions = 0;
  std::vector<unsigned> hidden;
  std::vector<std::string> targets;
  std::string trainingCommand;
  llvm::json::Object figures;
  /// log2 of the ops one call executes (mqss::executedOps), smallest and
  /// largest over the train split's functions whose count is static: the
  /// problem sizes the policy has seen. Absent in older models.
  std::optional<double> minTrainedLog2Ops, maxTrainedLog2Ops;
};

/// Metadata describing this build (MLIR version, feature spec, catalog).
ModelMetadata currentMetadata();

struct Decision {
  const Action *action = nullptr;
  float probability = 0; ///< of the chosen action under the masked softmax
  float value = 0;       ///< the critic's estimate (0 for policies without one)
  /// Masked probabilities over the whole catalog (0 where illegal).
  std::vector<float> probabilities;
};

class Policy {
public:
  virtual ~Policy();
  /// The most probable legal action. \p mask covers the whole catalog.
  virtual Decision decide(const FeatureVector &features, const std::vector<bool> &mask) = 0;
  /// An action drawn from the masked distribution with \p random in [0, 1).
  virtual Decision sample(const FeatureVector &features, const std::vector<bool> &mask,
                          double random) = 0;
  /// Gradient x input of log p(\p action) under the masked softmax, one
  /// signed weight per feature: how much each feature's value pushed the
  /// policy towards (positive) or away from (negative) that action. Zero for
  /// policies that do not depend on the features.
  virtual std::vector<float> attribute(const FeatureVector &features,
                                       const std::vector<bool> &mask, unsigned action);
  virtual llvm::StringRef kind() const = 0;
  virtual const ModelMetadata &metadata() const = 0;
};

/// Loads a trained model. Refuses, with a message saying what differs and
/// what to do, a model made for another feature spec, action catalog or
/// MLIR version, or a file that is not a model.
llvm::Expected<std::unique_ptr<Policy>> loadPolicy(llvm::StringRef path);

/// The model shipped with MQSS-Selector for the host CPU ($MQSS_MODEL
/// overrides the path): the installed copy where this code runs from an
/// installation, else the source tree's.
std::string defaultModelPath();

/// PREFIX/share/mqss/\p relative of the installation this code runs from,
/// if it exists there: PREFIX is the one above the executable's or plugin's
/// directory, else the prefix the CMake package was found in (for a
/// consumer linking the library), else the configured one.
std::optional<std::string> installedDataPath(llvm::StringRef relative);

/// Uniform over legal actions: exploration and the random baseline.
std::unique_ptr<Policy> createRandomPolicy();

/// Picks the index of an action from probabilities and a uniform draw.
unsigned drawFromDistribution(const std::vector<float> &probabilities, double random);

} // namespace mqss

#endif // MQSS_POLICY_POLICY_H
