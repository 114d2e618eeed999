//===- Signature.cpp - Entry selection and argument description -----------===//

#include "mqss/IR/Signature.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace mqss {

llvm::StringRef elementKindName(ElementKind kind) {
  switch (kind) {
  case ElementKind::F16: return "f16";
  case ElementKind::BF16: return "bf16";
  case ElementKind::F32: return "f32";
  case ElementKind::F64: return "f64";
  case ElementKind::I1: return "i1";
  case ElementKind::I8: return "i8";
  case ElementKind::I16: return "i16";
  case ElementKind::I32: return "i32";
  case ElementKind::I64: return "i64";
  case ElementKind::Index: return "index";
  }
  llvm_unreachable("unknown element kind");
}

unsigned elementByteSize(ElementKind kind) {
  switch (kind) {
  case ElementKind::F16:
  case ElementKind::BF16:
  case ElementKind::I16: return 2;
  case ElementKind::F32:
  case ElementKind::I32: return 4;
  case ElementKind::F64:
  case ElementKind::I64:
  case ElementKind::Index: return 8;
  case ElementKind::I1:
  case ElementKind::I8: return 1;
  }
  llvm_unreachable("unknown element kind");
}

bool isFloatKind(ElementKind kind) {
  return kind == ElementKind::F16 || kind == ElementKind::BF16 ||
         kind == ElementKind::F32 || kind == ElementKind::F64;
}

bool ValueSpec::hasDynamicShape() const {
  return llvm::is_contained(shape, kDynamicSize);
}

bool Signature::usesTensors() const {
  auto isTensor = [](const ValueSpec &v) { return v.kind == ValueSpec::Kind::Tensor; };
  return llvm::any_of(args, isTensor) || llvm::any_of(results, isTensor);
}

static std::string typeToString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

static std::optional<ElementKind> classifyElement(Type type) {
  if (type.isF16()) return ElementKind::F16;
  if (type.isBF16()) return ElementKind::BF16;
  if (type.isF32()) return ElementKind::F32;
  if (type.isF64()) return ElementKind::F64;
  if (type.isIndex()) return ElementKind::Index;
  if (type.isSignlessInteger(1)) return ElementKind::I1;
  if (type.isSignlessInteger(8)) return ElementKind::I8;
  if (type.isSignlessInteger(16)) return ElementKind::I16;
  if (type.isSignlessInteger(32)) return ElementKind::I32;
  if (type.isSignlessInteger(64)) return ElementKind::I64;
  return std::nullopt;
}

static std::vector<int64_t> toShape(ArrayRef<int64_t> dims) {
  std::vector<int64_t> shape;
  for (int64_t d : dims)
    shape.push_back(ShapedType::isDynamic(d) ? kDynamicSize : d);
  return shape;
}

static llvm::Expected<ValueSpec> describeType(Type type, llvm::StringRef what) {
  ValueSpec spec;
  spec.typeText = typeToString(type);
  auto unsupported = [&](llvm::StringRef why) {
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("{0} has type {1}, which the harness cannot pass: {2}",
                      what, spec.typeText, why));
  };

  Type element = type;
  if (auto memref = dyn_cast<MemRefType>(type)) {
    spec.kind = ValueSpec::Kind::MemRef;
    spec.shape = toShape(memref.getShape());
    element = memref.getElementType();
    if (!memref.getLayout().isIdentity()) {
      SmallVector<int64_t> strides;
      int64_t offset;
      if (failed(getStridesAndOffset(memref, strides, offset)))
        return unsupported("its layout is not strided");
      bool allStatic = !ShapedType::isDynamic(offset) &&
                       llvm::none_of(strides, ShapedType::isDynamic);
      if (allStatic) {
        spec.strides.assign(strides.begin(), strides.end());
        spec.offset = offset;
      }
    }
  } else if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    spec.kind = ValueSpec::Kind::Tensor;
    spec.shape = toShape(tensor.getShape());
    element = tensor.getElementType();
  } else if (isa<UnrankedMemRefType, UnrankedTensorType>(type)) {
    return unsupported("unranked shapes are not supported");
  } else if (isa<VectorType>(type)) {
    return unsupported("it passes memrefs, ranked tensors and scalars, not vectors (make "
                       "the entry take a memref and vector.transfer_read it)");
  } else {
    spec.kind = ValueSpec::Kind::Scalar;
  }

  if (auto complex = dyn_cast<ComplexType>(element)) {
    element = complex.getElementType();
    spec.components = 2;
  }
  std::optional<ElementKind> kind = classifyElement(element);
  if (!kind || (spec.isComplex() && !isFloatKind(*kind)))
    return unsupported("supported element types are f16, bf16, f32, f64, i1, "
                       "i8, i16, i32, i64, index, and complex numbers of the float types");
  spec.element = *kind;
  return spec;
}

bool definesFunctions(ModuleOp module) {
  return llvm::any_of(module.getOps<func::FuncOp>(),
                      [](func::FuncOp f) { return !f.isExternal(); });
}

std::vector<std::string> nestedModulesWithFunctions(ModuleOp module) {
  std::vector<std::string> names;
  for (auto inner : module.getOps<ModuleOp>())
    if (definesFunctions(inner))
      names.push_back(inner.getName() ? "@" + inner.getName()->str() : "<unnamed>");
  return names;
}

llvm::Expected<func::FuncOp> selectEntry(ModuleOp module,
                                         llvm::StringRef requested) {
  SmallVector<func::FuncOp> definitions;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal())
      definitions.push_back(func);

  auto listNames = [](ArrayRef<func::FuncOp> funcs) {
    std::string names;
    for (auto func : funcs)
      names += (names.empty() ? "@" : ", @") + func.getSymName().str();
    return names.empty() ? std::string("none") : names;
  };

  if (!requested.empty()) {
    for (auto func : definitions)
      if (func.getSymName() == requested)
        return func;
    // Defined, but as something else: an llvm.func of an already lowered
    // module, a private declaration.
    if (Operation *other = SymbolTable::lookupSymbolIn(module, requested)) {
      std::string what = "defined by '" + other->getName().getStringRef().str() +
                         "', not by func.func";
      if (isa<func::FuncOp>(other))
        what = "only declared (it has no body)";
      else if (other->getDialect() && other->getDialect()->getNamespace() == "llvm")
        what += " (mqss runs func.func kernels: MLIR before its lowering to the LLVM dialect)";
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          llvm::formatv("entry @{0} is {1}; func.func definitions: {2}", requested, what,
                        listNames(definitions)));
    }
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("entry function @{0} is not defined in the module "
                      "(defined functions: {1})",
                      requested, listNames(definitions)));
  }

  for (auto func : definitions)
    if (func.getSymName() == "main")
      return func;

  SmallVector<func::FuncOp> publicDefs;
  for (auto func : definitions)
    if (func.isPublic())
      publicDefs.push_back(func);
  if (publicDefs.size() == 1)
    return publicDefs.front();
  if (publicDefs.empty() && !definitions.empty())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the module defines no public func.func to run; name one of its private ones (" +
            listNames(definitions) + ") with --entry");
  if (publicDefs.empty()) {
    // Functions of another dialect: a module already lowered, most often.
    std::string others, dialect;
    unsigned count = 0;
    for (auto function : module.getOps<FunctionOpInterface>()) {
      if (function.isExternal())
        continue;
      if (++count <= 4)
        others += (others.empty() ? "@" : ", @") + function.getName().str();
      std::string kind = function->getName().getStringRef().str();
      dialect = dialect.empty() || dialect == kind ? kind : "non-func.func";
    }
    if (others.empty()) {
      // A module nested in this one (as some tools wrap their output) may.
      std::vector<std::string> nested = nestedModulesWithFunctions(module);
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "the module defines no function with a body to run" +
              (nested.empty() ? std::string()
                              : " at its top level; the nested module " + nested.front() +
                                    " does: give that module on its own"));
    }
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the module defines no func.func to run: " + others + (count > 4 ? ", ..." : "") +
            (count == 1 ? " is an '" + dialect + "' op" : " are '" + dialect + "' ops") +
            ". mqss runs func.func kernels, before their lowering to the LLVM dialect "
            "(mlir-cpu-runner-19 runs a module already lowered)");
  }
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      llvm::formatv("the module has several public functions ({0}); choose "
                    "one with --entry=NAME",
                    listNames(publicDefs)));
}

llvm::Expected<Signature> describeSignature(func::FuncOp func) {
  Signature signature;
  signature.name = func.getSymName().str();
  FunctionType type = func.getFunctionType();
  for (auto [index, input] : llvm::enumerate(type.getInputs())) {
    auto spec = describeType(input, llvm::formatv("argument arg{0}", index).str());
    if (!spec)
      return spec.takeError();
    signature.args.push_back(std::move(*spec));
  }
  for (auto [index, result] : llvm::enumerate(type.getResults())) {
    auto spec = describeType(result, llvm::formatv("result {0}", index).str());
    if (!spec)
      return spec.takeError();
    signature.results.push_back(std::move(*spec));
  }
  return signature;
}

} // namespace mqss
