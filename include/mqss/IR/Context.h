//===- Context.h - MLIRContext with everything a user's kernel may need ---===//
//
// One place decides which dialects, interfaces, passes and LLVM IR translations
// MQSS-Selector knows. The registration translation unit is the only one that
// includes MLIR's InitAll* headers, so the heavy include cost is paid once.
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_IR_CONTEXT_H
#define MQSS_IR_CONTEXT_H

#include "mlir/IR/MLIRContext.h"

#include <memory>

namespace mqss {

/// Registers every upstream dialect, interface model and LLVM IR translation a
/// user's module or pipeline may mention into \p registry.
void registerDialects(mlir::DialectRegistry &registry);

/// Adds registerDialects()'s registrations to \p context when it lacks those
/// selecting needs (a compiler's own context, made with MLIR's
/// registerAllDialects alone): without them the schedule library's actions
/// and bufferization fail. Cheap when nothing is missing; call it before
/// the context is used from other threads.
void completeRegistrations(mlir::MLIRContext &context);

/// Registers every upstream pass and pass pipeline with the global registry so
/// that textual pipelines (`--pipeline=`) can name them. Idempotent.
void registerPasses();

/// Initialises the LLVM native target and asm printer for the JIT. Idempotent.
void initializeNativeTarget();

/// A context with all dialects registered (loaded lazily) and multithreading
/// off: the measurement child is single-threaded by design, and a context with
/// a thread pool must never be forked.
std::unique_ptr<mlir::MLIRContext> createContext();

} // namespace mqss

#endif // MQSS_IR_CONTEXT_H
