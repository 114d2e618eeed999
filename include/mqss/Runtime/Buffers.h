//===- Buffers.h - Kernel arguments, results and their values --------------===//
//
// The harness calls the entry through MLIR's C interface: each memref is a
// descriptor {allocated, aligned, offset, sizes[R], strides[R]}, scalars are
// passed by value, and results that lower to a struct come back through a
// pointer passed first. This file owns that memory: seeded inputs, their
// restoration between runs, and the readout of everything the kernel wrote.
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_RUNTIME_BUFFERS_H
#define MQSS_RUNTIME_BUFFERS_H

#include "mqss/IR/Signature.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mqss {

/// How inputs are made: seeded pseudo-random values, with user-given sizes for
/// dynamic dimensions and values for scalar arguments.
struct InputOptions {
  uint64_t seed = 1;
  /// `arg3` -> sizes (all dimensions, or only the dynamic ones in order).
  std::map<std::string, std::vector<int64_t>> shapes;
  /// `arg0` -> value for a scalar argument.
  std::map<std::string, double> scalars;
};

/// N, when \p name names an entry argument as --shape, --arg and the
/// service's "shapes"/"args" keys do: `argN`, N a decimal index.
std::optional<unsigned> argumentIndex(llvm::StringRef name);
/// Parses `arg3=20x30` (for --shape) into \p shapes.
llvm::Error parseShapeOption(llvm::StringRef text,
                             std::map<std::string, std::vector<int64_t>> &shapes);
/// Parses `arg0=20` or `arg1=0.5` (for --arg) into \p scalars.
llvm::Error parseScalarOption(llvm::StringRef text,
                              std::map<std::string, double> &scalars);

/// Whether \p message advises the command line's --entry, --shape or --arg:
/// callers that take them otherwise (a pass's options, a request's fields)
/// add how. (Inline: the mlir-opt plugin does not link Buffers.cpp.)
inline bool advisesRunOptions(llvm::StringRef message) {
  return message.contains("--entry") || message.contains("--shape") ||
         message.contains("--arg");
}

/// Values read back from one kernel output, widened for comparison.
struct OutputArray {
  std::string name; ///< "arg2", "result0" or "stdout"
  ElementKind element = ElementKind::F32;
  /// The value's shape; complex values add a last dimension of 2 (real,
  /// imaginary), and `element` is then the kind of each part.
  std::vector<int64_t> shape;
  std::vector<double> floats; ///< for float elements
  std::vector<int64_t> ints;  ///< for integer, i1 and index elements
  std::string text;           ///< for printed output
};

/// A memref the harness owns: 64-byte aligned storage and its descriptor.
class MemRefBuffer {
public:
  /// \p components is 2 for complex elements (see ValueSpec).
  MemRefBuffer(ElementKind element, std::vector<int64_t> sizes,
               std::vector<int64_t> strides, int64_t offset, unsigned components = 1);
  ElementKind element() const { return elementKind; }
  unsigned components() const { return numComponents; }
  const std::vector<int64_t> &sizes() const { return shapeSizes; }
  size_t storageElements() const { return numElements; }
  size_t storageBytes() const {
    return numElements * numComponents * elementByteSize(elementKind);
  }
  uint8_t *data() { return storage.get(); }
  const uint8_t *data() const { return storage.get(); }
  /// The descriptor as the C interface expects it.
  void *descriptor() { return descriptorWords.data(); }

private:
  ElementKind elementKind;
  unsigned numComponents;
  std::vector<int64_t> shapeSizes;
  size_t numElements = 0;
  std::unique_ptr<uint8_t, void (*)(void *)> storage;
  std::vector<int64_t> descriptorWords;
};

/// The arguments of one call, and the pristine copy restored before each run
/// so that every run of every pipeline starts from the same inputs.
class KernelArguments {
public:
  /// Builds seeded inputs for \p signature. Errors name the argument (a
  /// dynamic size with no --shape, a shape that does not fit the type).
  static llvm::Expected<KernelArguments> create(const Signature &signature,
                                                const InputOptions &options,
                                                std::vector<std::string> &notes);

  /// Copies the pristine inputs back into the buffers the kernel writes.
  void restore();
  /// Reads every memref argument (they may have been written).
  void readArguments(std::vector<OutputArray> &outputs) const;
  /// Total bytes of input storage, for memory estimates.
  size_t totalBytes() const;

  struct Argument {
    const ValueSpec *spec = nullptr;
    std::unique_ptr<MemRefBuffer> buffer; ///< memrefs and tensors
    std::vector<uint8_t> pristine;        ///< initial memref contents
    uint64_t scalarBits[2] = {0, 0};      ///< scalars (complex<f64> takes both), little-endian
    void *descriptorPtr = nullptr;        ///< what the C interface receives
  };
  std::vector<Argument> &arguments() { return args; }

private:
  std::vector<Argument> args;
};

/// Storage for the results of one call and the packed argument array the
/// ExecutionEngine's `_mlir_` wrapper takes.
class KernelCall {
public:
  KernelCall(const Signature &signature, KernelArguments &arguments);
  /// `void **` for ExecutionEngine::invokePacked.
  llvm::MutableArrayRef<void *> packedArguments() { return packed; }
  /// Reads the results written by the last call into \p outputs.
  void readResults(std::vector<OutputArray> &outputs) const;
  /// Base pointers of memref results (as malloc'ed by the kernel), so the
  /// caller can release what the kernel allocated.
  std::vector<void *> resultAllocations() const;

private:
  const Signature &signature;
  std::vector<void *> packed;
  std::vector<void *> pointerSlots;
  /// Result storage: one struct when results lower to a struct, or a single
  /// scalar slot.
  std::vector<uint64_t> resultStorage;
  std::vector<size_t> resultOffsets; ///< byte offset of each result
  bool resultsViaPointer = false;
  void *resultStructPtr = nullptr;
};

/// Element access helpers, shared with the output check.
double loadFloat(const uint8_t *ptr, ElementKind element);
int64_t loadInt(const uint8_t *ptr, ElementKind element);
void storeFloat(uint8_t *ptr, ElementKind element, double value);
void storeInt(uint8_t *ptr, ElementKind element, int64_t value);

} // namespace mqss

#endif // MQSS_RUNTIME_BUFFERS_H
