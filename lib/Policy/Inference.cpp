//===- Inference.cpp - The trained MLP as a Policy, in plain C++ ----------===//
//
// Decisions take one sample at a time: a forward pass over the weights,
// transposed and padded for vector registers, costs a few microseconds.
//
//===----------------------------------------------------------------------===//

#include "mqss/Policy/Model.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace mqss {

//===----------------------------------------------------------------------===//
// The network as a Policy
//===----------------------------------------------------------------------===//

namespace {
/// tanh as a rational function of odd degree 13 over even degree 6 (the
/// minimax coefficients Eigen and MLIR's math polynomial approximation use),
/// within 2.4e-7 of tanh on the clamped range. Plain arithmetic, so the
/// activation loop vectorizes; libm's tanhf was half of a decision's time.
[[gnu::always_inline]] inline float fastTanh(float x) {
  constexpr float clamp = 7.90531110763549805f;
  x = std::min(clamp, std::max(-clamp, x));
  const float x2 = x * x;
  float p = -2.76076847742355e-16f;
  p = p * x2 + 2.00018790482477e-13f;
  p = p * x2 - 8.60467152213735e-11f;
  p = p * x2 + 5.12229709037114e-08f;
  p = p * x2 + 1.48572235717979e-05f;
  p = p * x2 + 6.37261928875436e-04f;
  p = p * x2 + 4.89352455891786e-03f;
  float q = 1.19825839466702e-06f;
  q = q * x2 + 1.18534705686654e-04f;
  q = q * x2 + 2.26843463243900e-03f;
  q = q * x2 + 4.89352518554385e-03f;
  return x * p / q;
}

/// Floats as one register of each instruction set: SSE, AVX2, AVX-512.
/// The aligned(4) typedefs load and store at any float address (members of
/// a template, since a typedef's attributes do not survive being a template
/// argument). Each copy of the layer below works in its own set's width:
/// GCC splits a vector wider than the target's registers into pieces that
/// spill to the stack (AVX2 on 16-float vectors ran at a tenth of its speed).
template <unsigned Lanes>
struct Floats {
  typedef float type __attribute__((vector_size(Lanes * sizeof(float)), aligned(4)));
};
/// Layers' rows are padded to a multiple of this many floats.
constexpr unsigned kLanes = 16;

/// y[0, Blocks vectors) = bias + x^T W over the columns from \p weights on,
/// the accumulators held in registers across the whole input loop.
template <unsigned Lanes, unsigned Blocks>
[[gnu::always_inline]] inline void accumulateColumns(const float *weights, unsigned stride,
                                                     const float *bias, const float *x,
                                                     unsigned in, float *y) {
  using Vector = typename Floats<Lanes>::type;
  Vector sum[Blocks];
  for (unsigned b = 0; b < Blocks; ++b)
    std::memcpy(&sum[b], bias + b * Lanes, sizeof(Vector));
  for (unsigned i = 0; i < in; ++i) {
    const float xi = x[i];
    if (xi == 0.0f)
      continue; // features are sparse: many are zero
    const float *row = weights + size_t(i) * stride;
    for (unsigned b = 0; b < Blocks; ++b)
      sum[b] += *reinterpret_cast<const Vector *>(row + b * Lanes) * xi;
  }
  for (unsigned b = 0; b < Blocks; ++b)
    *reinterpret_cast<Vector *>(y + b * Lanes) = sum[b];
}

/// accumulateColumns for the last \p blocks (< Blocks) vectors of a row, in
/// one pass over the inputs.
template <unsigned Lanes, unsigned Blocks>
[[gnu::always_inline]] inline void accumulateLastColumns(unsigned blocks, const float *weights,
                                                         unsigned stride, const float *bias,
                                                         const float *x, unsigned in,
                                                         float *y) {
  if constexpr (Blocks > 1) {
    if (blocks == Blocks - 1)
      return accumulateColumns<Lanes, Blocks - 1>(weights, stride, bias, x, in, y);
    accumulateLastColumns<Lanes, Blocks - 1>(blocks, weights, stride, bias, x, in, y);
  }
}

/// y = bias + x^T W for W stored [in][stride], stride a multiple of 16, in
/// column blocks of up to 8 registers (half of what AVX2 and SSE have, the
/// rest holding the inputs); then tanh on the first \p activated outputs.
/// Inlined into one copy per instruction set below.
template <unsigned Lanes>
[[gnu::always_inline]] inline void denseForwardBody(const float *weights, unsigned stride,
                                                    const float *bias, const float *x,
                                                    unsigned in, float *y,
                                                    unsigned activated) {
  constexpr unsigned blocks = std::min(8u, 64u / Lanes);
  unsigned column = 0;
  for (; column + blocks * Lanes <= stride; column += blocks * Lanes)
    accumulateColumns<Lanes, blocks>(weights + column, stride, bias + column, x, in,
                                      y + column);
  accumulateLastColumns<Lanes, blocks>((stride - column) / Lanes, weights + column, stride,
                                        bias + column, x, in, y + column);
  for (unsigned o = 0; o < activated; ++o)
    y[o] = fastTanh(y[o]);
}

#if defined(__x86_64__)
__attribute__((target("avx512f"))) void
denseForwardAvx512(const float *weights, unsigned stride, const float *bias, const float *x,
                   unsigned in, float *y, unsigned activated) {
  denseForwardBody<16>(weights, stride, bias, x, in, y, activated);
}

__attribute__((target("avx2,fma"))) void
denseForwardAvx2(const float *weights, unsigned stride, const float *bias, const float *x,
                 unsigned in, float *y, unsigned activated) {
  denseForwardBody<8>(weights, stride, bias, x, in, y, activated);
}
#endif

void denseForwardBaseline(const float *weights, unsigned stride, const float *bias,
                          const float *x, unsigned in, float *y, unsigned activated) {
  denseForwardBody<4>(weights, stride, bias, x, in, y, activated);
}

/// The copy decisions use: the widest this CPU runs, chosen once, by
/// feature. (GCC's target_clones("arch=haswell"), used before, is chosen by
/// CPU model, which no AMD CPU matches: they all ran the baseline copy.)
void denseForward(const float *weights, unsigned stride, const float *bias, const float *x,
                  unsigned in, float *y, unsigned activated) {
  static const auto chosen = [] {
    for (const DenseKernel &kernel : denseKernels())
      if (kernel.supported)
        return kernel.forward;
    return denseForwardBaseline;
  }();
  chosen(weights, stride, bias, x, in, y, activated);
}

/// One dense layer, copied out of the network for single-sample inference.
/// The weights are stored transposed ([in][stride]) so that the inner loop
/// runs over independent outputs and vectorizes without reassociating sums;
/// rows are padded with zero columns to a whole number of vectors.
struct DenseLayer {
  std::vector<float> weightT; ///< [in][stride], row-major, zero-padded
  std::vector<float> bias;    ///< [stride], zero-padded
  unsigned in = 0, out = 0, stride = 0;
  /// Writes `stride` outputs to \p y; the first `out` are the layer's.
  void apply(const float *x, float *y, bool tanhActivation) const {
    denseForward(weightT.data(), stride, bias.data(), x, in, y, tanhActivation ? out : 0);
  }
};

DenseLayer copyLayer(const DenseWeights &dense) {
  DenseLayer layer;
  layer.out = dense.out;
  layer.in = dense.in;
  layer.stride = (layer.out + kLanes - 1) / kLanes * kLanes;
  layer.weightT.assign(size_t(layer.in) * layer.stride, 0.0f);
  for (unsigned o = 0; o < layer.out; ++o)
    for (unsigned i = 0; i < layer.in; ++i)
      layer.weightT[size_t(i) * layer.stride + o] = dense.weight[size_t(o) * layer.in + i];
  layer.bias.assign(layer.stride, 0.0f);
  std::copy(dense.bias.begin(), dense.bias.end(), layer.bias.begin());
  return layer;
}

/// Decisions take one sample at a time: a plain C++ forward pass over a
/// snapshot of the weights costs a few microseconds, a libtorch call tens.
class NetworkPolicy final : public Policy {
public:
  NetworkPolicy(const ModelWeights &weights, ModelMetadata metadata)
      : meta(std::move(metadata)) {
    for (const DenseWeights &dense : weights.trunk) {
      trunk.push_back(copyLayer(dense));
      widest = std::max(widest, trunk.back().stride);
    }
    policyHead = copyLayer(weights.policy);
    valueHead = copyLayer(weights.value);
  }

  Decision decide(const FeatureVector &features, const std::vector<bool> &mask) override {
    Decision decision = evaluate(features, mask);
    unsigned best = std::max_element(decision.probabilities.begin(),
                                     decision.probabilities.end()) -
                    decision.probabilities.begin();
    return pick(std::move(decision), best);
  }

  Decision sample(const FeatureVector &features, const std::vector<bool> &mask,
                  double random) override {
    Decision decision = evaluate(features, mask);
    unsigned index = drawFromDistribution(decision.probabilities, random);
    return pick(std::move(decision), index);
  }

  /// Backpropagates d log p(action) / d logits = onehot(action) - p through
  /// the policy head and the tanh trunk, then multiplies by the input.
  std::vector<float> attribute(const FeatureVector &features, const std::vector<bool> &mask,
                               unsigned action) override {
    // Forward pass, keeping every layer's activations.
    std::vector<std::vector<float>> activations{
        std::vector<float>(features.begin(), features.end())};
    for (const DenseLayer &layer : trunk) {
      std::vector<float> next(layer.stride);
      layer.apply(activations.back().data(), next.data(), /*tanhActivation=*/true);
      next.resize(layer.out);
      activations.push_back(std::move(next));
    }
    Decision decision = heads(activations.back().data(), mask);
    std::vector<float> gradient(policyHead.out, 0.0f);
    for (unsigned j = 0; j < policyHead.out; ++j)
      if (mask[j])
        gradient[j] = (j == action ? 1.0f : 0.0f) - decision.probabilities[j];
    gradient = backThroughLinear(policyHead, gradient);
    for (size_t l = trunk.size(); l-- > 0;) {
      const std::vector<float> &out = activations[l + 1];
      for (unsigned o = 0; o < out.size(); ++o)
        gradient[o] *= 1.0f - out[o] * out[o]; // tanh'
      gradient = backThroughLinear(trunk[l], gradient);
    }
    for (unsigned i = 0; i < gradient.size(); ++i)
      gradient[i] *= features[i];
    return gradient;
  }

  llvm::StringRef kind() const override { return "mlp"; }
  const ModelMetadata &metadata() const override { return meta; }

private:
  Decision evaluate(const FeatureVector &features, const std::vector<bool> &mask) {
    llvm::SmallVector<float, 256> a(widest), b(widest);
    const float *x = features.data();
    float *y = a.data();
    for (const DenseLayer &layer : trunk) {
      layer.apply(x, y, /*tanhActivation=*/true);
      x = y;
      y = (y == a.data()) ? b.data() : a.data();
    }
    return heads(x, mask);
  }

  /// The masked softmax and the value from the last hidden layer.
  Decision heads(const float *hidden, const std::vector<bool> &mask) const {
    std::vector<float> logits(policyHead.stride);
    policyHead.apply(hidden, logits.data(), false);
    logits.resize(policyHead.out);
    float value[kLanes];
    valueHead.apply(hidden, value, false);

    Decision decision;
    decision.value = value[0];
    decision.probabilities.assign(logits.size(), 0.0f);
    float maxLogit = -std::numeric_limits<float>::infinity();
    for (size_t i = 0; i < logits.size(); ++i)
      if (mask[i])
        maxLogit = std::max(maxLogit, logits[i]);
    double total = 0;
    for (size_t i = 0; i < logits.size(); ++i)
      if (mask[i])
        total += decision.probabilities[i] = std::exp(logits[i] - maxLogit);
    for (float &p : decision.probabilities)
      p = total > 0 ? static_cast<float>(p / total) : 0.0f;
    return decision;
  }

  /// The gradient with respect to a dense layer's input, given its output's.
  static std::vector<float> backThroughLinear(const DenseLayer &layer,
                                              const std::vector<float> &outGradient) {
    std::vector<float> inGradient(layer.in, 0.0f);
    for (unsigned i = 0; i < layer.in; ++i) {
      const float *row = layer.weightT.data() + size_t(i) * layer.stride;
      float sum = 0;
      for (unsigned o = 0; o < layer.out; ++o)
        sum += row[o] * outGradient[o];
      inGradient[i] = sum;
    }
    return inGradient;
  }

  static Decision pick(Decision decision, unsigned index) {
    decision.action = &actionCatalog()[index];
    decision.probability = decision.probabilities[index];
    return decision;
  }

  std::vector<DenseLayer> trunk;
  DenseLayer policyHead, valueHead;
  unsigned widest = 0; ///< the widest trunk layer's stride
  ModelMetadata meta;
};
} // namespace

llvm::ArrayRef<DenseKernel> denseKernels() {
  static const std::vector<DenseKernel> kernels = [] {
    std::vector<DenseKernel> list;
#if defined(__x86_64__)
    __builtin_cpu_init();
    list.push_back({"avx512f", bool(__builtin_cpu_supports("avx512f")), denseForwardAvx512});
    list.push_back({"avx2+fma",
                    __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"),
                    denseForwardAvx2});
#endif
    list.push_back({"baseline", true, denseForwardBaseline});
    return list;
  }();
  return kernels;
}

std::unique_ptr<Policy> createModelPolicy(const ModelWeights &weights, ModelMetadata metadata) {
  return std::make_unique<NetworkPolicy>(weights, std::move(metadata));
}

} // namespace mqss
