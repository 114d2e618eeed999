//===- Pipeline.h - Textual pass pipelines and the mandatory lowering -----===//
//
// A candidate is a textual pass pipeline in mlir-opt's `--pass-pipeline`
// syntax. Whatever it leaves above the LLVM dialect, the mandatory lowering
// takes down: bufferization when tensors remain, linalg to loops, then vector,
// affine, scf, arith, math, index, memref, func and cf to LLVM.
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_RUNTIME_PIPELINE_H
#define MQSS_RUNTIME_PIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace mqss {

enum class PipelineFailure { Invalid, PassFailed, LoweringFailed };

/// A pipeline that does not parse, a pass that fails, or a lowering that
/// fails, with the diagnostics the passes emitted.
class PipelineError : public llvm::ErrorInfo<PipelineError> {
public:
  static char ID;
  PipelineError(PipelineFailure kind, std::string message)
      : kind(kind), message(std::move(message)) {}
  void log(llvm::raw_ostream &os) const override { os << message; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }
  PipelineFailure kind;
  std::string message;
};

/// The pipeline that applies no transformation: only the mandatory lowering
/// runs (linalg becomes plain loops). It is the output-check reference.
inline constexpr llvm::StringLiteral kNaivePipelineName = "naive";

/// The first line of `mqss select --emit=pipeline`'s listing when the
/// functions of a module get different pipelines (one line per function
/// follows): a listing, not one pipeline.
inline constexpr llvm::StringLiteral kPerFunctionListingHeader =
    "// One pipeline per function; each applies to a module holding that function.";

/// Turns what a user wrote into pipeline text for a module-anchored pass
/// manager: resolves the name `naive`, strips an outer `builtin.module(...)`.
std::string normalizePipeline(llvm::StringRef text);

/// Checks that \p pipeline parses and names registered passes, without
/// running it. The error names the offending pass.
llvm::Error validatePipeline(mlir::MLIRContext &context,
                             llvm::StringRef pipeline);

/// Runs \p pipeline (normalised text) on \p module, verifying after each pass.
llvm::Error applyPipeline(mlir::ModuleOp module, llvm::StringRef pipeline);

/// Passes that take a frontend's dialect to where the stages start (linalg
/// on tensors): TOSA, as TFLite and torch-mlir's TOSA backend emit it. Empty
/// when \p module holds none. Selections and named baselines begin with it,
/// and the mandatory lowering runs it on whatever a pipeline left.
std::string frontendLoweringPipeline(mlir::ModuleOp module);

/// \p first, then \p second: pipeline texts joined, either may be empty.
std::string joinPipelines(llvm::StringRef first, llvm::StringRef second);

/// Whether \p op is a linalg.transpose whose permutation is the identity,
/// as lowering a pack whose tiles are already in order makes. MLIR 19's
/// canonicalizer erases one on buffers as if it did nothing, losing its copy;
/// selections (the schedule library's generalize_identity_transposes) and
/// the mandatory lowering make them linalg.generic copies first.
bool isIdentityTranspose(mlir::Operation *op);

/// True if \p root holds an op of type \p OpTy (stops at the first).
template <typename OpTy>
bool containsOp(mlir::Operation *root) {
  bool found = false;
  root->walk([&](OpTy) {
    found = true;
    return mlir::WalkResult::interrupt();
  });
  return found;
}

/// Makes \p module hold what \p with holds (body and attributes), e.g. a
/// copy taken before a pipeline that failed or crashed halfway.
void replaceModuleContents(mlir::ModuleOp module, mlir::OwningOpRef<mlir::ModuleOp> with);

/// True if a tensor is among \p function's argument or result types.
bool hasTensorSignature(mlir::func::FuncOp function);

/// Erases the functions of \p module that have no body, return a tensor and
/// have no use. One-shot bufferization across function boundaries refuses
/// every bodiless function that returns a tensor, used or not, and an unused
/// declaration has nothing to lower. Those that only take tensors stay: it
/// gives them memref arguments, as mlir-opt does with the printed pipeline.
void eraseUnusedTensorDeclarations(mlir::ModuleOp module);
/// The functions eraseUnusedTensorDeclarations would erase, in module order.
std::vector<mlir::func::FuncOp> unusedTensorDeclarations(mlir::ModuleOp module);

/// The modules nested in \p module that hold payload of their own (not
/// transform scripts) and that nothing outside them refers to. mqss
/// decides and runs the top level's functions only, and leaves these as
/// they are: a module-wide pass (bufferization, canonicalize, the lowering)
/// would otherwise rewrite their functions too, or fail on them.
std::vector<mlir::ModuleOp> nestedPayloadModules(mlir::ModuleOp module);
/// Erases \p module's nestedPayloadModules.
void eraseNestedPayloadModules(mlir::ModuleOp module);

/// Erases from \p module what no pipeline mqss runs on it may see: unused
/// declarations returning tensors (eraseUnusedTensorDeclarations) and
/// nested payload modules (nestedPayloadModules).
void stripToTopLevelPayload(mlir::ModuleOp module);

/// The mandatory lowering as pipeline text; \p bufferize prepends one-shot
/// bufferization across function boundaries (identity layouts). It does not
/// free buffers: lowerToLLVMDialect() adds that where the IR allows it.
std::string mandatoryLoweringPipeline(bool bufferize);

/// Whether \p op, at the top level of a module, is part of the module's own
/// transform scripts: a transform op, or a nested module of named sequences
/// (as upstream tests and users embed them next to the payload).
/// applyPipeline() sets such ops aside while a pipeline runs.
bool isTransformScript(mlir::Operation &op);

/// A dense_resource constant without data (a LoweringFailed PipelineError
/// naming it): the IR was printed with its elements elided
/// (`dense_resource<__elided__>`, as in pasted reports), or the file's
/// {-# dialect_resources #-} section lacks the resource. Optimizing refuses
/// it too: upstream folds (vector.shuffle's) read made-up values from it.
llvm::Error checkResourceData(mlir::ModuleOp module);

/// What no pipeline can change and the lowering cannot compile, refused by
/// name (a LoweringFailed PipelineError): constants printed elided, a data
/// layout with an index narrower than 64 bits, the async dialect. The
/// lowering checks it first; the harness checks it before any pipeline, as
/// a fault of the module rather than of a pipeline.
llvm::Error checkLowerable(mlir::ModuleOp module);

/// Erases the functions (defined or declared) that neither \p entry nor
/// any other top-level op but a function reaches through symbol uses,
/// transitively. The harness runs one entry: another function's call of a
/// declaration no library defines, or its IR the lowering cannot take,
/// stopped the JIT although the entry never runs it.
void eraseFunctionsUnreachableFrom(mlir::ModuleOp module, llvm::StringRef entry);

/// Lowers whatever \p module still holds to the LLVM dialect, erasing any
/// transform-dialect schedule left in the payload first. Buffers that
/// bufferization allocated are freed after their last use, unless the module
/// frees memory itself (memref.dealloc). Refused by name: a memref whose
/// layout has no strided form (an affine map such as a transpose; MLIR
/// lowers strided layouts only), a memref.generic_atomic_rmw on floats
/// (lowered to a cmpxchg LLVM rejects).
///
/// With \p boundsChecks, every access to a buffer is checked against its
/// bounds at run time (insertBoundsChecks): an access out of bounds prints
/// which op and where, and aborts. The harness lowers its naive reference
/// so.
llvm::Error lowerToLLVMDialect(mlir::ModuleOp module, bool boundsChecks = false);

} // namespace mqss

#endif // MQSS_RUNTIME_PIPELINE_H
