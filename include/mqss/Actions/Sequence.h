//===- Sequence.h - Action sequences as pipelines, and their application ---===//
#ifndef MQSS_ACTIONS_SEQUENCE_H
#define MQSS_ACTIONS_SEQUENCE_H

#include "mqss/Actions/Catalog.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mqss {

/// The schedule library (transform-dialect named sequences) as shipped.
llvm::StringRef scheduleLibrarySource();

/// A file holding the schedule library, written once into the cache
/// directory ($MQSS_CACHE_DIR, else $XDG_CACHE_HOME/mqss, else ~/.cache/mqss)
/// under a name carrying its hash, so printed pipelines name a real file.
llvm::Expected<std::string> scheduleLibraryPath();

/// The textual pipeline equivalent to applying \p actions in order: one
/// preload of the schedule library when any schedule is used, then each
/// action's fragment. Finish actions contribute nothing.
llvm::Expected<std::string> pipelineForActions(llvm::ArrayRef<const Action *> actions);

/// Brings \p module to where the stages start and returns the pipeline text
/// that does the same (empty when there was nothing to do): TOSA lowered to
/// linalg on tensors (frontendLoweringPipeline), elementwise ops on whole
/// tensors made linalg.generic ops, then the ops MLIR 19 cannot
/// bufferize rewritten by the schedule library: tensor.concat into
/// tensor.insert_slice ops (decompose_concat), tensor.pack and tensor.unpack
/// with static tiles into pad, reshape and transpose (lower_pack_unpack),
/// and linalg.softmax, which nothing lowers to loops, into the
/// linalg.generic ops of its definition (decompose_softmax). Selections and
/// named baselines begin with it.
llvm::Expected<std::string> prepareForStages(mlir::ModuleOp module);

/// Whether prepareForStages would change \p module. It runs no pass.
bool needsPreparation(mlir::ModuleOp module);

/// Whether \p module has an op on tensors that one-shot bufferization does
/// not know (no BufferizableOpInterface, e.g. tensor.bitcast in MLIR 19), so
/// that `tensor.bufferize` fails on it. It runs no pass.
bool hasUnbufferizableTensorOp(mlir::ModuleOp module);

/// Whether \p pipeline (textual, nested or not) preloads a transform
/// library, as pipelines using mqss's schedules do, from a path on the
/// machine that made them.
bool preloadsLibrary(llvm::StringRef pipeline);

/// \p preparation (from prepareForStages), then \p pipeline, preloading the
/// schedule library once, first, when either does.
std::string joinAfterPreparation(llvm::StringRef preparation, llvm::StringRef pipeline);

/// The LLVM opt level the sequence asks for (its finish action), else 3.
unsigned llvmOptLevelFor(llvm::ArrayRef<const Action *> actions);

/// An action whose precondition does not hold on a module: nothing was
/// applied, so the module is as it was (unlike after a failed pass).
class ActionRefused : public llvm::ErrorInfo<ActionRefused> {
public:
  static char ID;
  explicit ActionRefused(std::string reason) : reason(std::move(reason)) {}
  void log(llvm::raw_ostream &os) const override { os << reason; }
  std::error_code convertToErrorCode() const override { return llvm::inconvertibleErrorCode(); }
  std::string reason;
};

/// Whether \p action's precondition refuses \p module (applyAction would
/// answer ActionRefused): for deciding without applying.
bool refuses(const Action &action, mlir::ModuleOp module);

/// Applies one action to \p module in-process and verifies the result. The
/// schedule library is loaded into the context the first time it is needed.
/// An ActionRefused error when the action's precondition fails.
llvm::Error applyAction(mlir::ModuleOp module, const Action &action);

/// "action NAME refused: ..." for an ActionRefused \p error (its
/// precondition), else "action NAME failed: ...". Consumes \p error.
std::string describeActionError(const Action &action, llvm::Error error);

/// prepareForStages, then \p actions one by one with applyAction: what the
/// pipeline text of `actions:` does, with each action's precondition
/// checked on the IR it meets. A refusal or failure is a PipelineError
/// (PassFailed) naming the action.
llvm::Error applyActionsInTurn(mlir::ModuleOp module, llvm::ArrayRef<const Action *> actions);

} // namespace mqss

#endif // MQSS_ACTIONS_SEQUENCE_H
