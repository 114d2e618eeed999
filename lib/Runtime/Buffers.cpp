//===- Buffers.cpp - Kernel arguments, results and their values ------------===//

#include "mqss/Runtime/Buffers.h"

#include "mqss/Runtime/Sandbox.h"

#include "llvm/ADT/APInt.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace mqss {

//===----------------------------------------------------------------------===//
// Element conversions
//===----------------------------------------------------------------------===//

static float halfToFloat(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1f;
  uint32_t mantissa = h & 0x3ff;
  uint32_t bits;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else { // subnormal: normalise
      exponent = 127 - 15 + 1;
      while (!(mantissa & 0x400)) {
        mantissa <<= 1;
        --exponent;
      }
      mantissa &= 0x3ff;
      bits = sign | (exponent << 23) | (mantissa << 13);
    }
  } else if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else {
    bits = sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

static uint16_t floatToHalf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  uint16_t sign = (bits >> 16) & 0x8000u;
  int32_t exponent = ((bits >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = bits & 0x7fffff;
  if (((bits >> 23) & 0xff) == 0xff) // inf or nan
    return sign | 0x7c00u | (mantissa ? 0x200u : 0u);
  if (exponent >= 0x1f)
    return sign | 0x7c00u;
  if (exponent <= 0) {
    if (exponent < -10)
      return sign;
    mantissa |= 0x800000u;
    uint32_t shift = 14 - exponent;
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1)))
      ++half;
    return sign | half;
  }
  uint16_t half = sign | (exponent << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half; // may carry into the exponent, which is the correct rounding
  return half;
}

static float bf16ToFloat(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

static uint16_t floatToBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  if (std::isnan(f))
    return 0x7fc0;
  uint32_t rounding = 0x7fff + ((bits >> 16) & 1); // round to nearest even
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

double loadFloat(const uint8_t *ptr, ElementKind element) {
  switch (element) {
  case ElementKind::F16: {
    uint16_t v;
    std::memcpy(&v, ptr, 2);
    return halfToFloat(v);
  }
  case ElementKind::BF16: {
    uint16_t v;
    std::memcpy(&v, ptr, 2);
    return bf16ToFloat(v);
  }
  case ElementKind::F32: {
    float v;
    std::memcpy(&v, ptr, 4);
    return v;
  }
  case ElementKind::F64: {
    double v;
    std::memcpy(&v, ptr, 8);
    return v;
  }
  default:
    return static_cast<double>(loadInt(ptr, element));
  }
}

int64_t loadInt(const uint8_t *ptr, ElementKind element) {
  switch (element) {
  case ElementKind::I1:
    return *ptr & 1;
  case ElementKind::I8:
    return static_cast<int8_t>(*ptr);
  case ElementKind::I16: {
    int16_t v;
    std::memcpy(&v, ptr, 2);
    return v;
  }
  case ElementKind::I32: {
    int32_t v;
    std::memcpy(&v, ptr, 4);
    return v;
  }
  case ElementKind::I64:
  case ElementKind::Index: {
    int64_t v;
    std::memcpy(&v, ptr, 8);
    return v;
  }
  default:
    return static_cast<int64_t>(loadFloat(ptr, element));
  }
}

void storeFloat(uint8_t *ptr, ElementKind element, double value) {
  switch (element) {
  case ElementKind::F16: {
    uint16_t v = floatToHalf(static_cast<float>(value));
    std::memcpy(ptr, &v, 2);
    return;
  }
  case ElementKind::BF16: {
    uint16_t v = floatToBf16(static_cast<float>(value));
    std::memcpy(ptr, &v, 2);
    return;
  }
  case ElementKind::F32: {
    float v = static_cast<float>(value);
    std::memcpy(ptr, &v, 4);
    return;
  }
  case ElementKind::F64:
    std::memcpy(ptr, &value, 8);
    return;
  default:
    storeInt(ptr, element, static_cast<int64_t>(value));
  }
}

void storeInt(uint8_t *ptr, ElementKind element, int64_t value) {
  switch (element) {
  case ElementKind::I1:
    *ptr = value & 1;
    return;
  case ElementKind::I8:
    *ptr = static_cast<uint8_t>(value);
    return;
  case ElementKind::I16: {
    int16_t v = static_cast<int16_t>(value);
    std::memcpy(ptr, &v, 2);
    return;
  }
  case ElementKind::I32: {
    int32_t v = static_cast<int32_t>(value);
    std::memcpy(ptr, &v, 4);
    return;
  }
  case ElementKind::I64:
  case ElementKind::Index:
    std::memcpy(ptr, &value, 8);
    return;
  default:
    storeFloat(ptr, element, static_cast<double>(value));
  }
}

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

/// The largest magnitude up to which every whole number is a double.
static constexpr int64_t kLargestExactInteger = int64_t(1) << 53;

static llvm::Error optionError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::optional<unsigned> argumentIndex(llvm::StringRef name) {
  unsigned index;
  if (!name.consume_front("arg") || name.getAsInteger(10, index))
    return std::nullopt;
  return index;
}

/// Splits `argN=VALUE`, checking the argument name's form.
static llvm::Expected<std::pair<std::string, llvm::StringRef>>
splitArgAssignment(llvm::StringRef text, llvm::StringRef option,
                   llvm::StringRef example) {
  auto [name, value] = text.split('=');
  std::optional<unsigned> index = argumentIndex(name);
  if (value.empty() || !index)
    return optionError(llvm::formatv("malformed {0}='{1}': expected {2}",
                                     option, text, example));
  return std::make_pair("arg" + std::to_string(*index), value); // arg01 is arg1
}

llvm::Error parseShapeOption(llvm::StringRef text,
                             std::map<std::string, std::vector<int64_t>> &shapes) {
  auto parts = splitArgAssignment(text, "--shape", "argN=D0xD1x... (e.g. arg3=20x30)");
  if (!parts)
    return parts.takeError();
  std::vector<int64_t> sizes;
  llvm::SmallVector<llvm::StringRef> dims;
  parts->second.split(dims, 'x');
  for (llvm::StringRef dim : dims) {
    int64_t size;
    if (dim.trim().getAsInteger(10, size) || size < 0)
      return optionError(llvm::formatv(
          "malformed --shape='{0}': '{1}' is not a non-negative size", text, dim));
    sizes.push_back(size);
  }
  shapes[parts->first] = std::move(sizes);
  return llvm::Error::success();
}

llvm::Error parseScalarOption(llvm::StringRef text,
                              std::map<std::string, double> &scalars) {
  auto parts = splitArgAssignment(text, "--arg", "argN=VALUE (e.g. arg0=20)");
  if (!parts)
    return parts.takeError();
  double value;
  if (parts->second.trim().getAsDouble(value))
    return optionError(llvm::formatv(
        "malformed --arg='{0}': '{1}' is not a number", text, parts->second));
  // Scalars travel as doubles: a whole number beyond 2^53 would arrive
  // rounded to another one.
  // (As an APInt, so that 2^64 - 1 is caught too.)
  llvm::StringRef digits = parts->second.trim();
  if (!digits.consume_front("-"))
    digits.consume_front("+");
  llvm::APInt whole;
  if (!digits.getAsInteger(10, whole) && whole.ugt(kLargestExactInteger))
    return optionError(llvm::formatv("--arg='{0}': whole numbers are passed exactly up to "
                                     "2^53 = {1} in magnitude",
                                     text, kLargestExactInteger));
  scalars[parts->first] = value;
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// MemRefBuffer
//===----------------------------------------------------------------------===//

static void freeAligned(void *ptr) { std::free(ptr); }

MemRefBuffer::MemRefBuffer(ElementKind element, std::vector<int64_t> sizes,
                           std::vector<int64_t> strides, int64_t offset,
                           unsigned components)
    : elementKind(element), numComponents(components), shapeSizes(std::move(sizes)),
      storage(nullptr, freeAligned) {
  size_t rank = shapeSizes.size();
  // Sizes past 64 bits (--shape=arg0=4194304x2097152x2097152) would wrap to
  // a small buffer the kernel then writes far beyond: no address space holds
  // such an array.
  bool overflow = false;
  if (strides.empty()) { // row-major
    strides.assign(rank, 1);
    for (size_t d = rank; d-- > 1;)
      overflow |= llvm::MulOverflow(strides[d], std::max<int64_t>(shapeSizes[d], 1), strides[d - 1]);
  }
  bool empty = llvm::is_contained(shapeSizes, 0);
  int64_t extent = offset + 1;
  for (size_t d = 0; d < rank && !empty; ++d) {
    int64_t span;
    overflow |= llvm::MulOverflow(shapeSizes[d] - 1, strides[d], span) ||
                llvm::AddOverflow(extent, span, extent);
  }
  if (overflow || extent < 0)
    exitChildOutOfMemory();
  numElements = empty ? 0 : static_cast<size_t>(extent);
  size_t width = components * elementByteSize(element);
  if (numElements > (SIZE_MAX - 64) / width)
    exitChildOutOfMemory(); // no address space holds it
  size_t bytes = std::max<size_t>(numElements * width, 64);
  bytes = (bytes + 63) / 64 * 64;
  storage.reset(static_cast<uint8_t *>(std::aligned_alloc(64, bytes)));
  if (!storage)
    exitChildOutOfMemory(); // the inputs alone exceed the memory limit
  std::memset(storage.get(), 0, bytes);

  descriptorWords.resize(3 + 2 * rank);
  descriptorWords[0] = reinterpret_cast<int64_t>(storage.get());
  descriptorWords[1] = reinterpret_cast<int64_t>(storage.get());
  descriptorWords[2] = offset;
  for (size_t d = 0; d < rank; ++d) {
    descriptorWords[3 + d] = shapeSizes[d];
    descriptorWords[3 + rank + d] = strides[d];
  }
}

//===----------------------------------------------------------------------===//
// KernelArguments
//===----------------------------------------------------------------------===//

/// splitmix64: tiny, fast and identical on every platform, unlike the
/// standard library's distributions.
namespace {
class InputRandom {
public:
  explicit InputRandom(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double unit() { return (next() >> 11) * (1.0 / 9007199254740992.0); }

private:
  uint64_t state;
};
} // namespace

/// Floats in [-1, 1); integers in [1, 8] so typical accumulations do not
/// overflow and divisions by an input never divide by zero; i1 in {0, 1}.
static void fillRandom(uint8_t *data, size_t count, ElementKind element,
                       InputRandom &random) {
  unsigned width = elementByteSize(element);
  for (size_t i = 0; i < count; ++i) {
    uint8_t *ptr = data + i * width;
    if (isFloatKind(element))
      storeFloat(ptr, element, random.unit() * 2.0 - 1.0);
    else if (element == ElementKind::I1)
      storeInt(ptr, element, random.next() & 1);
    else
      storeInt(ptr, element, 1 + static_cast<int64_t>(random.next() % 8));
  }
}

/// Resolves the sizes of a shaped argument from its type and --shape.
static llvm::Expected<std::vector<int64_t>>
resolveShape(const ValueSpec &spec, llvm::StringRef name,
             const InputOptions &options) {
  auto given = options.shapes.find(name.str());
  if (given == options.shapes.end()) {
    if (!spec.hasDynamicShape())
      return spec.shape;
    // One size per dimension: N, D0xD1, D0xD1xD2, D0xD1x...xD3.
    unsigned rank = spec.rank();
    std::string sizes = rank == 1 ? "N" : "D0";
    for (unsigned d = 1; d < rank; ++d)
      if (rank <= 3 || d == 1 || d == rank - 1)
        sizes += (rank > 3 && d == rank - 1 ? "x...xD" : "xD") + std::to_string(d);
    return optionError(llvm::formatv(
        "{0} has dynamic shape {1}: give its sizes with --shape={0}={2}", name,
        spec.typeText, sizes));
  }
  const std::vector<int64_t> &sizes = given->second;
  std::vector<int64_t> shape = spec.shape;
  unsigned numDynamic = llvm::count(spec.shape, kDynamicSize);
  if (sizes.size() == spec.rank()) {
    for (unsigned d = 0; d < spec.rank(); ++d) {
      if (shape[d] != kDynamicSize && shape[d] != sizes[d])
        return optionError(llvm::formatv(
            "--shape={0}: dimension {1} of {2} is static {3}, not {4}", name, d,
            spec.typeText, shape[d], sizes[d]));
      shape[d] = sizes[d];
    }
    return shape;
  }
  if (sizes.size() == numDynamic) {
    unsigned next = 0;
    for (int64_t &dim : shape)
      if (dim == kDynamicSize)
        dim = sizes[next++];
    return shape;
  }
  return optionError(llvm::formatv(
      "--shape={0} gives {1} sizes but {2} has rank {3} ({4} dynamic)", name,
      sizes.size(), spec.typeText, spec.rank(), numDynamic));
}

llvm::Expected<KernelArguments>
KernelArguments::create(const Signature &signature, const InputOptions &options,
                        std::vector<std::string> &notes) {
  for (auto &entry : options.shapes) {
    size_t index;
    if (!llvm::StringRef(entry.first).consume_front("arg") ||
        (index = std::stoul(entry.first.substr(3))) >= signature.args.size())
      return optionError(llvm::formatv("--shape names {0}, but @{1} has {2} arguments",
                                       entry.first, signature.name,
                                       signature.args.size()));
    if (!signature.args[index].isShaped())
      return optionError(llvm::formatv("--shape names {0}, which is not a memref or tensor "
                                       "argument of @{1} (a scalar takes --arg)",
                                       entry.first, signature.name));
  }
  for (auto &entry : options.scalars) {
    size_t index = std::stoul(entry.first.substr(3));
    if (index >= signature.args.size() ||
        signature.args[index].kind != ValueSpec::Kind::Scalar)
      return optionError(llvm::formatv(
          "--arg names {0}, which is not a scalar argument of @{1}",
          entry.first, signature.name));
    // An integer argument takes a whole number its type holds (signed or
    // unsigned), not one truncated or wrapped silently.
    const ValueSpec &spec = signature.args[index];
    if (isFloatKind(spec.element))
      continue;
    unsigned bits = spec.element == ElementKind::I1 ? 1 : 8 * elementByteSize(spec.element);
    // Up to 2^53 for 64-bit types: what a double passes exactly.
    int64_t low = bits == 1 ? 0 : bits >= 54 ? -kLargestExactInteger : -(int64_t(1) << (bits - 1));
    int64_t high = bits >= 54 ? kLargestExactInteger : (int64_t(1) << bits) - 1;
    double value = entry.second;
    if (std::trunc(value) != value || value < double(low) || value > double(high)) {
      char given[32];
      auto printed = std::to_chars(given, given + sizeof(given), value);
      return optionError(llvm::formatv(
          "--arg={0}={1}: {0} is {2}, which takes a whole number from {3} to {4}{5}",
          entry.first, llvm::StringRef(given, printed.ptr - given), spec.typeText, low, high,
          bits >= 54 && std::trunc(value) == value
              ? " (what a double, which scalars travel as, holds exactly)"
              : ""));
    }
  }

  KernelArguments result;
  for (auto [index, spec] : llvm::enumerate(signature.args)) {
    std::string name = llvm::formatv("arg{0}", index).str();
    Argument arg;
    arg.spec = &spec;
    // Each argument draws from its own stream so that adding an argument
    // does not change the values of the others.
    InputRandom random(options.seed * 0x100000001b3ull + index);
    if (spec.isShaped()) {
      auto shape = resolveShape(spec, name, options);
      if (!shape)
        return shape.takeError();
      arg.buffer = std::make_unique<MemRefBuffer>(spec.element, *shape, spec.strides,
                                                  spec.offset, spec.components);
      fillRandom(arg.buffer->data(), arg.buffer->storageElements() * spec.components,
                 spec.element, random);
      arg.pristine.assign(arg.buffer->data(),
                          arg.buffer->data() + arg.buffer->storageBytes());
      arg.descriptorPtr = arg.buffer->descriptor();
    } else {
      uint8_t bytes[sizeof(arg.scalarBits)] = {0};
      auto given = options.scalars.find(name);
      if (given != options.scalars.end()) {
        // A complex scalar takes its real part; the imaginary part is 0.
        if (isFloatKind(spec.element))
          storeFloat(bytes, spec.element, given->second);
        else
          storeInt(bytes, spec.element, static_cast<int64_t>(given->second));
      } else if (isFloatKind(spec.element)) {
        for (unsigned part = 0; part < spec.components; ++part)
          storeFloat(bytes + part * elementByteSize(spec.element), spec.element,
                     0.5 + random.unit());
      } else {
        notes.push_back(llvm::formatv("{0} ({1}) was not given with --arg; "
                                      "using 0",
                                      name, spec.typeText));
      }
      std::memcpy(arg.scalarBits, bytes, sizeof(bytes));
    }
    result.args.push_back(std::move(arg));
  }
  return result;
}

void KernelArguments::restore() {
  for (Argument &arg : args)
    if (arg.buffer && !arg.pristine.empty())
      std::memcpy(arg.buffer->data(), arg.pristine.data(), arg.pristine.size());
}

size_t KernelArguments::totalBytes() const {
  size_t total = 0;
  for (const Argument &arg : args)
    if (arg.buffer)
      total += arg.buffer->storageBytes();
  return total;
}

/// Reads \p count elements of \p components parts each into \p out.
static void readStorage(const uint8_t *data, size_t count, ElementKind element,
                        unsigned components, OutputArray &out) {
  if (components > 1)
    out.shape.push_back(components);
  count *= components;
  unsigned width = elementByteSize(element);
  if (isFloatKind(element)) {
    out.floats.resize(count);
    for (size_t i = 0; i < count; ++i)
      out.floats[i] = loadFloat(data + i * width, element);
  } else {
    out.ints.resize(count);
    for (size_t i = 0; i < count; ++i)
      out.ints[i] = loadInt(data + i * width, element);
  }
}

void KernelArguments::readArguments(std::vector<OutputArray> &outputs) const {
  for (auto [index, arg] : llvm::enumerate(args)) {
    // Tensors are values: whether bufferization reuses an argument's buffer
    // in place is the pipeline's business, not an output.
    if (!arg.buffer || arg.spec->kind == ValueSpec::Kind::Tensor)
      continue;
    OutputArray out;
    out.name = llvm::formatv("arg{0}", index).str();
    out.element = arg.buffer->element();
    out.shape = arg.buffer->sizes();
    readStorage(arg.buffer->data(), arg.buffer->storageElements(),
                arg.buffer->element(), arg.buffer->components(), out);
    outputs.push_back(std::move(out));
  }
}

//===----------------------------------------------------------------------===//
// KernelCall
//===----------------------------------------------------------------------===//

/// Size and alignment of a result as a member of the LLVM result struct.
static std::pair<size_t, size_t> resultLayout(const ValueSpec &spec) {
  if (spec.isShaped())
    return {(3 + 2 * spec.rank()) * 8, 8};
  unsigned width = elementByteSize(spec.element);
  return {spec.components * width, width};
}

KernelCall::KernelCall(const Signature &signature, KernelArguments &arguments)
    : signature(signature) {
  const auto &results = signature.results;
  // A single scalar result is returned by value; anything else (a complex
  // scalar too) lowers to a struct, which the C interface returns through a
  // leading pointer.
  resultsViaPointer = !results.empty() && (results.size() > 1 || results.front().isShaped() ||
                                           results.front().isComplex());
  size_t offset = 0;
  for (const ValueSpec &spec : results) {
    auto [size, align] = resultLayout(spec);
    offset = (offset + align - 1) / align * align;
    resultOffsets.push_back(offset);
    offset += size;
  }
  resultStorage.assign(std::max<size_t>((offset + 7) / 8, 1), 0);

  auto &args = arguments.arguments();
  pointerSlots.reserve(args.size() + 1);
  if (resultsViaPointer) {
    resultStructPtr = resultStorage.data();
    packed.push_back(&resultStructPtr);
  }
  for (auto &arg : args) {
    if (arg.buffer) {
      pointerSlots.push_back(arg.descriptorPtr);
      packed.push_back(&pointerSlots.back());
    } else {
      packed.push_back(&arg.scalarBits);
    }
  }
  if (!results.empty() && !resultsViaPointer)
    packed.push_back(resultStorage.data());
}

void KernelCall::readResults(std::vector<OutputArray> &outputs) const {
  const uint8_t *base = reinterpret_cast<const uint8_t *>(resultStorage.data());
  for (auto [index, spec] : llvm::enumerate(signature.results)) {
    const uint8_t *slot = base + resultOffsets[index];
    OutputArray out;
    out.name = llvm::formatv("result{0}", index).str();
    out.element = spec.element;
    if (!spec.isShaped()) {
      readStorage(slot, 1, spec.element, spec.components, out);
      outputs.push_back(std::move(out));
      continue;
    }
    int64_t words[3 + 2 * 16];
    unsigned rank = spec.rank();
    std::memcpy(words, slot, (3 + 2 * rank) * 8);
    const uint8_t *aligned = reinterpret_cast<const uint8_t *>(words[1]);
    int64_t offset = words[2];
    out.shape.assign(words + 3, words + 3 + rank);
    std::vector<int64_t> strides(words + 3 + rank, words + 3 + 2 * rank);
    size_t count = 1;
    for (int64_t size : out.shape)
      count *= std::max<int64_t>(size, 0);
    // Gather in row-major order whatever the result's layout.
    unsigned width = spec.elementBytes();
    std::vector<uint8_t> gathered(count * width);
    std::vector<int64_t> position(rank, 0);
    for (size_t i = 0; i < count && aligned; ++i) {
      int64_t linear = offset;
      for (unsigned d = 0; d < rank; ++d)
        linear += position[d] * strides[d];
      std::memcpy(&gathered[i * width], aligned + linear * width, width);
      for (unsigned d = rank; d-- > 0;) {
        if (++position[d] < out.shape[d])
          break;
        position[d] = 0;
      }
    }
    readStorage(gathered.data(), count, spec.element, spec.components, out);
    outputs.push_back(std::move(out));
  }
}

std::vector<void *> KernelCall::resultAllocations() const {
  std::vector<void *> pointers;
  const uint8_t *base = reinterpret_cast<const uint8_t *>(resultStorage.data());
  for (auto [index, spec] : llvm::enumerate(signature.results)) {
    if (!spec.isShaped())
      continue;
    void *allocated;
    std::memcpy(&allocated, base + resultOffsets[index], sizeof(void *));
    pointers.push_back(allocated);
  }
  return pointers;
}

} // namespace mqss
