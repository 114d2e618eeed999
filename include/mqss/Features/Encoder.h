//===- Encoder.h - The state encoder: what the policy sees -----------------===//
//
// A fixed-length vector of the numbers a compiler engineer looks at first:
// structural (loop depth, linalg op kinds, iteration space, arithmetic
// intensity), statistical (a normalised histogram over an op vocabulary and
// dialect shares) and contextual (stage, target, step, recent actions). Every
// feature is declared once, in Features.def; counts are normalised or
// log-scaled so a 10-op and a 10,000-op module land in the same range.
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_FEATURES_ENCODER_H
#define MQSS_FEATURES_ENCODER_H

#include "mqss/Actions/Catalog.h"
#include "mqss/IR/Summary.h"

#include "llvm/ADT/ArrayRef.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace mqss {

enum class FeatureId : unsigned {
#define MQSS_FEATURE(Id, Name, Group, Doc) Id,
#define MQSS_OP_FEATURE(Id, Name, Ops, Doc) Id,
#define MQSS_DIALECT_FEATURE(Id, Name, Dialect, Doc) Id,
#include "mqss/Features/Features.def"
  NumFeatures
};
constexpr unsigned kNumFeatures = static_cast<unsigned>(FeatureId::NumFeatures);

enum class FeatureGroup { Structural, Statistical, Contextual };
llvm::StringRef featureGroupName(FeatureGroup group);

struct FeatureInfo {
  llvm::StringLiteral name;
  FeatureGroup group;
  llvm::StringLiteral doc;
};

/// Names, groups and docs in vector order.
llvm::ArrayRef<FeatureInfo> featureSpec();
/// Hash of the spec (names and order); a model stores it.
uint64_t featureSpecHash();

/// What the encoder knows beyond the IR itself.
struct EncoderContext {
  Stage stage = Stage::Tensor;
  /// Vector register width of the target in bits (128, 256 or 512).
  unsigned vectorBits = 512;
  unsigned step = 0;
  unsigned maxSteps = 16;
  std::vector<const Action *> history;
};

/// The widest vector registers of a named target ("host" asks the CPU).
unsigned targetVectorBits(llvm::StringRef target);

using FeatureVector = std::array<float, kNumFeatures>;

FeatureVector encodeFeatures(const IRSummary &summary, const EncoderContext &context);

} // namespace mqss

#endif // MQSS_FEATURES_ENCODER_H
