//===- Model.h - A trained model's file: weights and metadata, no libtorch -===//
//
// Selecting needs a model's weights, not libtorch: loading libtorch (and the
// hundreds of libraries Debian's build of it pulls in) took 0.43 s of every
// process's start, forty times `mlir-opt`'s. So a model file is MQSS's own
// (a JSON header and the float32 weights), read and written here; training
// (lib/Policy/Network.cpp, lib/Train) converts between it and libtorch.
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_POLICY_MODEL_H
#define MQSS_POLICY_MODEL_H

#include "mqss/Policy/Policy.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <vector>

namespace mqss {

/// One dense layer: y = weight x + bias.
struct DenseWeights {
  unsigned in = 0, out = 0;
  std::vector<float> weight; ///< [out][in], row-major (libtorch's layout)
  std::vector<float> bias;   ///< [out]
};

/// The actor-critic MLP: a tanh trunk, a policy head (one logit per catalog
/// action) and a value head.
struct ModelWeights {
  std::vector<DenseWeights> trunk;
  DenseWeights policy, value;
};

/// A model file's contents (readModel); a server holds one for its
/// workers' selectors.
struct LoadedModel {
  ModelWeights weights;
  ModelMetadata metadata;
};

/// Writes \p weights and \p metadata to \p path, through a temporary file
/// renamed over it, so that a reader never sees half a model (checkpoints
/// are written while training may be killed).
llvm::Error writeModel(const ModelWeights &weights, const ModelMetadata &metadata,
                       llvm::StringRef path);

/// Reads a model file written by writeModel, checked against this build as
/// loadPolicy() says, and its weights against the SHA-256 writeModel
/// recorded (files written before it was have none). Every failure names
/// the file and what is wrong.
llvm::Expected<LoadedModel> readModel(llvm::StringRef path);

/// What lib/Policy/Network.cpp needs to read the models written before this
/// format, libtorch archives, as readModel reads the current ones:
/// - whether \p path begins as such an archive (a zip file) does;
bool isTorchArchive(llvm::StringRef path);
/// - the metadata in a model file's \p header, checked against this build;
llvm::Expected<ModelMetadata> modelMetadata(const llvm::json::Value &header,
                                            llvm::StringRef path);
/// - the error saying why the model at \p path cannot be used.
llvm::Error modelError(llvm::StringRef path, const llvm::Twine &why);

/// The network as a Policy: a plain C++ forward pass, a few microseconds a
/// decision.
std::unique_ptr<Policy> createModelPolicy(const ModelWeights &weights, ModelMetadata metadata);

/// One copy of a dense layer's forward pass (y = bias + x^T W, then tanh on
/// the first `activated` outputs; W stored [in][stride], stride a multiple
/// of 16), compiled for one instruction set.
struct DenseKernel {
  const char *isa;  ///< "avx512f", "avx2+fma" or "baseline"
  bool supported;   ///< whether this CPU runs it
  void (*forward)(const float *weights, unsigned stride, const float *bias, const float *x,
                  unsigned in, float *y, unsigned activated);
};
/// The copies, widest first; decisions use the first this CPU supports.
/// Listed for the tests (each is checked against a scalar sum) and the
/// decision benchmark (which says which one it timed).
llvm::ArrayRef<DenseKernel> denseKernels();

} // namespace mqss

#endif // MQSS_POLICY_MODEL_H
