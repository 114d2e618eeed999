//===- Context.cpp - Registration of dialects, passes and translations ----===//
//
// Users' pipelines may name any upstream pass and their modules may use any
// upstream dialect (Polygeist emits llvm + affine, torch-mlir emits linalg +
// tensor + ml_program, upstream tests use vector, transform, ...). Registering
// everything is therefore a product requirement; it costs one slow translation
// unit, which is why nothing else includes the InitAll* headers.
//
//===----------------------------------------------------------------------===//

#include "mqss/IR/Context.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/Support/TargetSelect.h"

#include <mutex>

namespace mqss {

void registerDialects(mlir::DialectRegistry &registry) {
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
}

void registerPasses() {
  static std::once_flag once;
  std::call_once(once, [] { mlir::registerAllPasses(); });
}

void initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

void completeRegistrations(mlir::MLIRContext &context) {
  // What a context its owner filled with registerAllDialects alone (or with
  // only its own dialects) lacks: the transform ops of the schedule
  // library's actions and the bufferization of tensor ops, both extensions.
  context.getOrLoadDialect<mlir::transform::TransformDialect>();
  context.getOrLoadDialect<mlir::tensor::TensorDialect>();
  auto empty = mlir::RegisteredOperationName::lookup("tensor.empty", &context);
  if (mlir::RegisteredOperationName::lookup("transform.structured.tile_using_for", &context) &&
      empty && empty->hasInterface<mlir::bufferization::BufferizableOpInterface>())
    return;
  mlir::DialectRegistry registry;
  registerDialects(registry);
  context.appendDialectRegistry(registry);
}

std::unique_ptr<mlir::MLIRContext> createContext() {
  mlir::DialectRegistry registry;
  registerDialects(registry);
  auto context = std::make_unique<mlir::MLIRContext>(
      registry, mlir::MLIRContext::Threading::DISABLED);
  return context;
}

} // namespace mqss
