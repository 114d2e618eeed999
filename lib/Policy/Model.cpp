//===- Model.cpp - A model file: a JSON header, then the float32 weights --===//
//
// The file:
//   MQSS-Selector model\n
//   {metadata, "tensors": [{"name", "shape"}, ...], "weights_sha256"}\n
//   the tensors' floats, little-endian, one after another in that order
//
// The digest covers the weights: a file damaged where the values stay
// finite (a flipped byte, a partial copy over an older model) would
// otherwise load and change decisions silently. Files written before it
// was recorded have none and load unchecked.
//
//===----------------------------------------------------------------------===//

#include "mqss/Policy/Model.h"

#include "mqss/Runtime/TemporaryFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <type_traits>

namespace mqss {

static constexpr llvm::StringLiteral kMagic = "MQSS-Selector model\n";
/// How a libtorch archive (a zip file) begins.
static constexpr llvm::StringLiteral kTorchArchiveMagic = "PK\x03\x04";
/// The header's field holding the weights' digest.
static constexpr llvm::StringLiteral kDigestKey = "weights_sha256";

static std::string hexDigest(llvm::SHA256 &hasher) {
  return llvm::toHex(hasher.final(), /*LowerCase=*/true);
}

static llvm::json::Value toJSON(const ModelMetadata &m) {
  llvm::json::Array hidden, targets;
  for (unsigned h : m.hidden)
    hidden.push_back(h);
  for (const std::string &t : m.targets)
    targets.push_back(t);
  llvm::json::Object object{{"format", m.formatVersion},
                            {"mlir_version", m.mlirVersion},
                            {"feature_spec_hash", m.featureSpecHash},
                            {"catalog_hash", m.catalogHash},
                            {"num_features", m.numFeatures},
                            {"num_actions", m.numActions},
                            {"hidden", std::move(hidden)},
                            {"targets", std::move(targets)},
                            {"training_command", m.trainingCommand},
                            {"figures", llvm::json::Object(m.figures)}};
  if (m.minTrainedLog2Ops && m.maxTrainedLog2Ops)
    object["trained_log2_ops"] =
        llvm::json::Object{{"min", *m.minTrainedLog2Ops}, {"max", *m.maxTrainedLog2Ops}};
  return object;
}

static bool fromJSON(const llvm::json::Value &value, ModelMetadata &m, llvm::json::Path path) {
  llvm::json::ObjectMapper mapper(value, path);
  int64_t numFeatures = 0, numActions = 0;
  std::vector<int64_t> hidden;
  bool ok = mapper && mapper.map("format", m.formatVersion) &&
            mapper.map("mlir_version", m.mlirVersion) &&
            mapper.map("feature_spec_hash", m.featureSpecHash) &&
            mapper.map("catalog_hash", m.catalogHash) &&
            mapper.map("num_features", numFeatures) &&
            mapper.map("num_actions", numActions) && mapper.map("hidden", hidden) &&
            mapper.mapOptional("targets", m.targets) &&
            mapper.mapOptional("training_command", m.trainingCommand);
  m.numFeatures = static_cast<unsigned>(numFeatures);
  m.numActions = static_cast<unsigned>(numActions);
  m.hidden.assign(hidden.begin(), hidden.end());
  if (ok)
    if (const llvm::json::Object *figures = value.getAsObject()->getObject("figures"))
      m.figures = *figures;
  if (ok)
    if (const llvm::json::Value *given = value.getAsObject()->get("trained_log2_ops")) {
      // Malformed, it would turn the small-kernel rule off without a word.
      const llvm::json::Object *range = given->getAsObject();
      m.minTrainedLog2Ops = range ? range->getNumber("min") : std::nullopt;
      m.maxTrainedLog2Ops = range ? range->getNumber("max") : std::nullopt;
      if (!m.minTrainedLog2Ops || !m.maxTrainedLog2Ops) {
        path.field("trained_log2_ops").report("expected {\"min\": N, \"max\": N}");
        return false;
      }
    }
  return ok;
}

/// Why a model cannot be used with this build, or nothing.
static std::optional<std::string> incompatibility(const ModelMetadata &model) {
  ModelMetadata here = currentMetadata();
  auto mismatch = [](llvm::StringRef what, llvm::StringRef theirs, llvm::StringRef ours) {
    return llvm::formatv("it was trained against {0} {1}, but this build has {2}; "
                         "retrain it with `mqss train` (or use a model made by this "
                         "version)",
                         what, theirs, ours)
        .str();
  };
  if (model.formatVersion != here.formatVersion)
    return mismatch("model format", model.formatVersion, here.formatVersion);
  if (model.featureSpecHash != here.featureSpecHash)
    return mismatch("feature spec", model.featureSpecHash, here.featureSpecHash);
  if (model.numFeatures != here.numFeatures)
    return mismatch("a feature count of", std::to_string(model.numFeatures),
                    std::to_string(here.numFeatures));
  if (model.catalogHash != here.catalogHash)
    return mismatch("action catalog", model.catalogHash, here.catalogHash);
  if (model.numActions != here.numActions)
    return mismatch("an action count of", std::to_string(model.numActions),
                    std::to_string(here.numActions));
  if (model.mlirVersion != here.mlirVersion)
    return mismatch("MLIR", model.mlirVersion, here.mlirVersion);
  return std::nullopt;
}

llvm::Error modelError(llvm::StringRef path, const llvm::Twine &why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "cannot use the model '" + path + "': " + why);
}

bool isTorchArchive(llvm::StringRef path) {
  char start[4] = {};
  std::FILE *file = std::fopen(path.str().c_str(), "rb");
  if (!file)
    return false;
  size_t read = std::fread(start, 1, sizeof(start), file);
  std::fclose(file);
  return llvm::StringRef(start, read) == kTorchArchiveMagic;
}

llvm::Expected<ModelMetadata> modelMetadata(const llvm::json::Value &header,
                                            llvm::StringRef path) {
  ModelMetadata metadata;
  llvm::json::Path::Root root("metadata");
  if (!fromJSON(header, metadata, root))
    return modelError(path, "its metadata is incomplete: " + llvm::toString(root.getError()));
  if (auto why = incompatibility(metadata))
    return modelError(path, *why);
  return metadata;
}

namespace {
/// One tensor of a model file: its name, its shape and where its values are.
template <typename Values> struct Tensor {
  std::string name;
  std::vector<int64_t> shape;
  Values *values;
};

/// The tensors of \p weights in file order.
template <typename Weights> auto tensorsOf(Weights &weights) {
  using Values = std::conditional_t<std::is_const_v<Weights>, const std::vector<float>,
                                    std::vector<float>>;
  std::vector<Tensor<Values>> tensors;
  auto layer = [&](const std::string &name, auto &dense) {
    tensors.push_back({name + ".weight", {dense.out, dense.in}, &dense.weight});
    tensors.push_back({name + ".bias", {dense.out}, &dense.bias});
  };
  for (size_t i = 0; i < weights.trunk.size(); ++i)
    layer("trunk." + std::to_string(i), weights.trunk[i]);
  layer("policy", weights.policy);
  layer("value", weights.value);
  return tensors;
}

/// "name [rows x columns]", for errors.
std::string describe(llvm::StringRef name, llvm::ArrayRef<int64_t> shape) {
  std::string text = name.str() + " [";
  for (size_t d = 0; d < shape.size(); ++d)
    text += (d ? "x" : "") + std::to_string(shape[d]);
  return text + "]";
}
} // namespace

llvm::Error writeModel(const ModelWeights &weights, const ModelMetadata &metadata,
                       llvm::StringRef path) {
  llvm::json::Value header = toJSON(metadata);
  llvm::json::Array listed;
  auto tensors = tensorsOf(weights);
  for (const auto &tensor : tensors)
    listed.push_back(llvm::json::Object{
        {"name", tensor.name},
        {"shape", llvm::json::Array(tensor.shape)}});
  (*header.getAsObject())["tensors"] = std::move(listed);
  llvm::SHA256 hasher;
  for (const auto &tensor : tensors)
    hasher.update(llvm::ArrayRef(reinterpret_cast<const uint8_t *>(tensor.values->data()),
                                 tensor.values->size() * sizeof(float)));
  (*header.getAsObject())[kDigestKey] = hexDigest(hasher);

  std::string contents;
  llvm::raw_string_ostream os(contents);
  os << kMagic << header << "\n";
  for (const auto &tensor : tensors)
    os.write(reinterpret_cast<const char *>(tensor.values->data()),
             tensor.values->size() * sizeof(float));
  // Checkpoints are written while training may be killed: whole or not.
  return writeFileAtomically(path, contents);
}

llvm::Expected<LoadedModel> readModel(llvm::StringRef path) {
  if (!llvm::sys::fs::exists(path))
    return modelError(path, "no such file");
  // Read whole below: a device (/dev/zero) would never end.
  if (!llvm::sys::fs::is_regular_file(path))
    return modelError(path, "it is not a regular file");
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return modelError(path, buffer.getError().message());
  llvm::StringRef text = (*buffer)->getBuffer();
  if (text.starts_with(kTorchArchiveMagic))
    return modelError(path, "it is a libtorch archive, the model format of MQSS-Selector "
                            "before 2026-11-30; `mqss train --annotate=" + path +
                                "` rewrites it in the current format (weights unchanged)");
  if (!text.consume_front(kMagic))
    return modelError(path, "it is not a readable model file (it does not begin with an "
                            "MQSS-Selector model's header)");
  auto [line, data] = text.split('\n');
  auto parsed = llvm::json::parse(line);
  if (!parsed)
    return modelError(path,
                      "its metadata is not valid JSON: " + llvm::toString(parsed.takeError()));
  auto checked = modelMetadata(*parsed, path);
  if (!checked)
    return checked.takeError();
  ModelMetadata metadata = std::move(*checked);

  // The network its metadata describes, filled from the file in order.
  ModelWeights weights;
  unsigned width = metadata.numFeatures;
  auto shape = [](DenseWeights &dense, unsigned in, unsigned out) {
    dense.in = in;
    dense.out = out;
    dense.weight.resize(size_t(in) * out);
    dense.bias.resize(out);
  };
  for (unsigned size : metadata.hidden) {
    shape(weights.trunk.emplace_back(), width, size);
    width = size;
  }
  shape(weights.policy, width, metadata.numActions);
  shape(weights.value, width, 1);
  const llvm::json::Array *listed = parsed->getAsObject()->getArray("tensors");
  if (!listed)
    return modelError(path, "its metadata lists no tensors");
  auto misfit = [&](const llvm::Twine &what) {
    return modelError(path, "its parameters do not fit the network its metadata describes (" +
                                what + ")");
  };
  auto tensors = tensorsOf(weights);
  size_t offset = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto &expected = tensors[i];
    const llvm::json::Object *tensor = i < listed->size() ? (*listed)[i].getAsObject() : nullptr;
    std::optional<llvm::StringRef> name = tensor ? tensor->getString("name") : std::nullopt;
    std::vector<int64_t> dims;
    if (const llvm::json::Array *shape = tensor ? tensor->getArray("shape") : nullptr)
      for (const llvm::json::Value &d : *shape)
        dims.push_back(d.getAsInteger().value_or(-1));
    if (!name || *name != expected.name || dims != expected.shape)
      return misfit((tensor ? "tensor " + std::to_string(i) + " is " +
                                  describe(name.value_or("?"), dims)
                            : std::string("tensors missing")) +
                    ", expected " + describe(expected.name, expected.shape));
    size_t bytes = expected.values->size() * sizeof(float);
    if (offset + bytes > data.size())
      return modelError(path, "it is truncated (" + std::to_string(data.size()) +
                                  " bytes of weights)");
    std::memcpy(expected.values->data(), data.data() + offset, bytes);
    offset += bytes;
  }
  if (listed->size() != tensors.size())
    return misfit(std::to_string(listed->size()) + " tensors, expected " +
                  std::to_string(tensors.size()));
  if (offset != data.size())
    return modelError(path, "it has " + std::to_string(data.size() - offset) +
                                " bytes after the weights its metadata describes");
  if (const llvm::json::Value *recorded = parsed->getAsObject()->get(kDigestKey)) {
    llvm::SHA256 hasher;
    hasher.update(data);
    std::optional<llvm::StringRef> digest = recorded->getAsString();
    if (!digest || *digest != hexDigest(hasher))
      return modelError(path, "its weights do not match the digest its metadata records "
                              "(" + kDigestKey + "): the file was damaged or changed after "
                              "it was written");
  }
  // A training run that diverged saves NaNs: every decision would be the
  // first action.
  for (const auto &tensor : tensors)
    if (!llvm::all_of(*tensor.values, [](float v) { return std::isfinite(v); }))
      return modelError(path, "its " + tensor.name +
                                  " holds values that are not finite numbers (NaN or "
                                  "infinity): the training that made it diverged");
  return LoadedModel{std::move(weights), std::move(metadata)};
}

llvm::Expected<std::unique_ptr<Policy>> loadPolicy(llvm::StringRef path) {
  auto loaded = readModel(path);
  if (!loaded)
    return loaded.takeError();
  return createModelPolicy(loaded->weights, std::move(loaded->metadata));
}

} // namespace mqss
