//===- Encoder.cpp - The state encoder -------------------------------------===//

#include "mqss/Features/Encoder.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace mqss {

llvm::StringRef featureGroupName(FeatureGroup group) {
  switch (group) {
  case FeatureGroup::Structural: return "structural";
  case FeatureGroup::Statistical: return "statistical";
  case FeatureGroup::Contextual: return "contextual";
  }
  return "structural";
}

namespace {
constexpr FeatureGroup Structural = FeatureGroup::Structural;
constexpr FeatureGroup Contextual = FeatureGroup::Contextual;

const FeatureInfo kSpec[] = {
#define MQSS_FEATURE(Id, Name, Group, Doc) {Name, Group, Doc},
#define MQSS_OP_FEATURE(Id, Name, Ops, Doc) {Name, FeatureGroup::Statistical, Doc},
#define MQSS_DIALECT_FEATURE(Id, Name, Dialect, Doc) {Name, FeatureGroup::Statistical, Doc},
#include "mqss/Features/Features.def"
};
static_assert(std::size(kSpec) == kNumFeatures, "spec and enum disagree");

/// op name -> feature index, and dialect namespace -> feature index.
struct Vocabulary {
  llvm::StringMap<unsigned> ops;
  llvm::StringMap<unsigned> dialects;
  Vocabulary() {
    auto addOps = [&](FeatureId id, llvm::StringRef names) {
      llvm::SmallVector<llvm::StringRef> parts;
      names.split(parts, '|');
      for (llvm::StringRef name : parts)
        ops[name] = static_cast<unsigned>(id);
    };
#define MQSS_OP_FEATURE(Id, Name, Ops, Doc) addOps(FeatureId::Id, Ops);
#define MQSS_DIALECT_FEATURE(Id, Name, Dialect, Doc)                           \
  dialects[Dialect] = static_cast<unsigned>(FeatureId::Id);
#include "mqss/Features/Features.def"
  }
};

const Vocabulary &vocabulary() {
  static const Vocabulary vocab;
  return vocab;
}

float clamp01(double v) { return static_cast<float>(std::clamp(v, 0.0, 1.0)); }
float logScaled(double count, double scale) { return clamp01(std::log2(1.0 + count) / scale); }
float share(double part, double whole) { return whole > 0 ? clamp01(part / whole) : 0.0f; }

/// Flops per byte of the most intense linalg op, or of the loop bodies.
double arithmeticIntensity(const IRSummary &s) {
  double best = 0;
  for (const LinalgOpInfo &op : s.linalgOps) {
    if (!op.allStatic() || op.loopRanges.empty())
      continue;
    double parallel = 1, reduction = 1;
    for (size_t d = 0; d < op.loopRanges.size(); ++d)
      (d < op.numParallel ? parallel : reduction) *= std::max<int64_t>(op.loopRanges[d], 1);
    // Heuristic traffic: the output plus inputs of the size a contraction
    // over square operands would read.
    double flops = 2 * parallel * reduction;
    double bytes = 4 * (parallel + 2 * reduction * std::sqrt(parallel));
    best = std::max(best, flops / bytes);
  }
  if (s.linalgOps.empty() && s.numMemoryOps > 0)
    best = static_cast<double>(s.numVectorisableArith) / (4.0 * s.numMemoryOps);
  return best;
}
} // namespace

llvm::ArrayRef<FeatureInfo> featureSpec() { return kSpec; }

uint64_t featureSpecHash() {
  std::string text;
  for (const FeatureInfo &info : kSpec)
    text += (info.name + "|" + featureGroupName(info.group) + "\n").str();
  return llvm::xxh3_64bits(text);
}

unsigned targetVectorBits(llvm::StringRef target) {
  if (target == "x86-avx512")
    return 512;
  if (target == "x86-avx2")
    return 256;
  if (target == "x86-sse4")
    return 128;
  static const unsigned hostBits = [] {
    llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
    if (host.lookup("avx512f"))
      return 512u;
    if (host.lookup("avx2") || host.lookup("avx"))
      return 256u;
    return 128u;
  }();
  return hostBits;
}

FeatureVector encodeFeatures(const IRSummary &s, const EncoderContext &context) {
  FeatureVector f{};
  auto set = [&](FeatureId id, float value) { f[static_cast<unsigned>(id)] = value; };
  using F = FeatureId;
  using K = LinalgOpInfo::Kind;

  // Structural.
  double ops = std::max(1u, s.numOps);
  double linalg = s.numLinalg();
  set(F::LogOps, logScaled(s.numOps, 16));
  set(F::LogBlocks, logScaled(s.numBlocks, 16));
  set(F::BlockArgsPerBlock, share(s.numBlockArgs, 8.0 * std::max(1u, s.numBlocks)));
  set(F::LogFuncs, logScaled(s.numFuncs, 8));
  set(F::MaxLoopDepth, clamp01(s.maxLoopDepth / 8.0));
  set(F::MaxAffineDepth, clamp01(s.maxAffineDepth / 8.0));
  set(F::TopLevelNests, clamp01(s.maxTopLevelAffineLoops / 8.0));
  set(F::LogLinalgOps, logScaled(linalg, 8));
  set(F::ShareNamedLinalg, share(s.numNamedLinalg, linalg));
  set(F::ShareContraction, share(s.countLinalg(K::Contraction), linalg));
  set(F::ShareConvolution, share(s.countLinalg(K::Convolution), linalg));
  set(F::ShareElementwise, share(s.countLinalg(K::Elementwise), linalg));
  set(F::ShareReductionOps, share(llvm::count_if(s.linalgOps, [](const LinalgOpInfo &op) {
                                    return op.numReduction > 0;
                                  }),
                                  linalg));
  double parallelLoops = 0, reductionLoops = 0, largestSpace = 0;
  unsigned divisible8 = 0, divisible32 = 0;
  bool dynamic = false;
  for (const LinalgOpInfo &op : s.linalgOps) {
    parallelLoops += op.numParallel;
    reductionLoops += op.numReduction;
    if (!op.allStatic()) {
      dynamic = true;
      continue;
    }
    double space = 1;
    for (int64_t r : op.loopRanges)
      space *= std::max<int64_t>(r, 1);
    largestSpace = std::max(largestSpace, space);
    divisible8 += llvm::all_of(op.loopRanges, [](int64_t r) { return r % 8 == 0; });
    divisible32 += llvm::all_of(op.loopRanges, [](int64_t r) { return r % 32 == 0; });
  }
  set(F::ParallelIterators, share(parallelLoops, parallelLoops + reductionLoops));
  set(F::ReductionIterators, share(reductionLoops, parallelLoops + reductionLoops));
  set(F::LogIterationSpace, largestSpace > 0 ? clamp01(std::log2(largestSpace) / 40) : 0);
  std::vector<int64_t> trips = s.innermostTripCounts;
  if (!trips.empty()) {
    std::nth_element(trips.begin(), trips.begin() + trips.size() / 2, trips.end());
    set(F::LogInnermostTrip, logScaled(trips[trips.size() / 2], 16));
  }
  set(F::ArithIntensity, logScaled(arithmeticIntensity(s), 8));
  set(F::ShareMemoryOps, share(s.numMemoryOps, ops));
  set(F::ShareVectorisableArith, share(s.numVectorisableArith, ops));
  set(F::ShareVectorOps, share(s.numVectorOps, ops));
  set(F::HasTensors, s.hasTensors ? 1 : 0);
  set(F::HasDynamicShapes, dynamic ? 1 : 0);
  set(F::Divisible8, share(divisible8, linalg));
  set(F::Divisible32, share(divisible32, linalg));
  set(F::ParallelLoops, share(s.numParallelLoops,
                              s.numParallelLoops + s.numAffineFor + s.numScfFor));

  // Statistical: op vocabulary and dialect shares.
  const Vocabulary &vocab = vocabulary();
  // Counts are summed as integers, so the shares do not depend on the
  // order opCounts lists the names in.
  std::array<unsigned, kNumFeatures> counts{};
  for (const auto &[name, count] : s.opCounts) {
    auto op = vocab.ops.find(name);
    if (op != vocab.ops.end())
      counts[op->second] += count;
    auto dialect = vocab.dialects.find(name.split('.').first);
    if (dialect != vocab.dialects.end())
      counts[dialect->second] += count;
  }
  for (unsigned i = 0; i < kNumFeatures; ++i)
    if (counts[i])
      f[i] += static_cast<float>(counts[i] / ops);

  // Contextual.
  set(F::StageTensor, context.stage == Stage::Tensor);
  set(F::StageLinalg, context.stage == Stage::Linalg);
  set(F::StageLoops, context.stage == Stage::Loops);
  set(F::TargetAvx512, context.vectorBits >= 512);
  set(F::TargetAvx2, context.vectorBits == 256);
  set(F::TargetSse4, context.vectorBits <= 128);
  set(F::StepIndex, share(context.step, std::max(1u, context.maxSteps)));
  auto categoryFeature = [](ActionCategory c, bool last) -> std::optional<FeatureId> {
    switch (c) {
    case ActionCategory::Cleanup: return last ? F::LastCleanup : F::HistCleanup;
    case ActionCategory::Fuse: return last ? F::LastFuse : F::HistFuse;
    case ActionCategory::Layout: return last ? F::LastLayout : F::HistLayout;
    case ActionCategory::Tile: return last ? F::LastTile : F::HistTile;
    case ActionCategory::Unroll: return last ? F::LastUnroll : F::HistUnroll;
    case ActionCategory::Vectorize: return last ? F::LastVectorize : F::HistVectorize;
    case ActionCategory::Schedule: return last ? F::LastSchedule : F::HistSchedule;
    case ActionCategory::Lower: return last ? F::LastLower : F::HistLower;
    case ActionCategory::Bufferize: return last ? F::LastBufferize : F::HistBufferize;
    case ActionCategory::Memory: return last ? F::LastMemory : F::HistMemory;
    case ActionCategory::Finish: return std::nullopt;
    }
    return std::nullopt;
  };
  if (!context.history.empty())
    if (auto id = categoryFeature(context.history.back()->category, true))
      set(*id, 1);
  for (const Action *action : context.history)
    if (auto id = categoryFeature(action->category, false))
      f[static_cast<unsigned>(*id)] += 1.0f / context.history.size();
  return f;
}

} // namespace mqss
