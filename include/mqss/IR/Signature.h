//===- Signature.h - The entry function and the values it takes -----------===//
//
// The measurement harness needs to know, before lowering, which function to
// call and what each argument and result is: its element type, its shape
// (dynamic dimensions included) and its memory layout.
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_IR_SIGNATURE_H
#define MQSS_IR_SIGNATURE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mqss {

/// Element types the harness can synthesise, compare and pass to the JIT.
enum class ElementKind { F16, BF16, F32, F64, I1, I8, I16, I32, I64, Index };

llvm::StringRef elementKindName(ElementKind kind);
/// Bytes one element occupies in memory as the LLVM lowering lays it out.
unsigned elementByteSize(ElementKind kind);
bool isFloatKind(ElementKind kind);

/// Marks a dynamic size, as in mlir::ShapedType::kDynamic.
constexpr int64_t kDynamicSize = INT64_MIN;

/// One argument or result of the entry function.
struct ValueSpec {
  enum class Kind { Scalar, MemRef, Tensor };
  Kind kind = Kind::Scalar;
  /// For complex elements (complex<f32>, ...), the kind of each part.
  ElementKind element = ElementKind::F32;
  /// 2 for complex elements, which LLVM lays out as (real, imaginary) pairs
  /// of `element`; 1 otherwise.
  unsigned components = 1;
  /// Sizes per dimension; kDynamicSize where the type says `?`.
  std::vector<int64_t> shape;
  /// Static strides and offset from the memref layout, when it has them;
  /// empty means row-major (identity layout, or fully dynamic strides).
  std::vector<int64_t> strides;
  int64_t offset = 0;
  /// The type as written, for messages.
  std::string typeText;

  bool isShaped() const { return kind != Kind::Scalar; }
  bool isComplex() const { return components == 2; }
  /// Bytes one element (all its components) occupies in memory.
  unsigned elementBytes() const { return components * elementByteSize(element); }
  unsigned rank() const { return shape.size(); }
  bool hasDynamicShape() const;
};

struct Signature {
  std::string name;
  std::vector<ValueSpec> args;
  std::vector<ValueSpec> results;
  /// True when a function takes tensors or returns them, so bufferization at
  /// function boundaries is needed before it can be called.
  bool usesTensors() const;
};

/// Picks the function to run: \p requested if given; otherwise `main` if the
/// module defines one; otherwise its only public function definition. Errors
/// list the candidates.
llvm::Expected<mlir::func::FuncOp> selectEntry(mlir::ModuleOp module,
                                               llvm::StringRef requested);

/// Whether \p module defines a func.func with a body at its top level.
bool definesFunctions(mlir::ModuleOp module);

/// The modules nested directly in \p module that define a func.func with a
/// body, in order, each named as `@name` or `<unnamed>`: functions a tool
/// given \p module does not reach (some frontends wrap their output so).
std::vector<std::string> nestedModulesWithFunctions(mlir::ModuleOp module);

/// Describes \p func's arguments and results; an unsupported type is an error
/// that names the argument (`arg2`) and the type.
llvm::Expected<Signature> describeSignature(mlir::func::FuncOp func);

} // namespace mqss

#endif // MQSS_IR_SIGNATURE_H
