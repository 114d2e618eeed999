//===- Baselines.h - Named pipelines: naive, default, expert:<family> ------===//
//
// The bars a learned policy must clear. `default` is one fixed action
// sequence for every kernel (the best single one found over the train split).
// `expert:<family>` is a compiler engineer's ordered preference list per
// stage: at each step the first legal action not yet applied is taken, so an
// expert adapts to the module's shapes instead of failing on them.
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_ACTIONS_BASELINES_H
#define MQSS_ACTIONS_BASELINES_H

#include "mqss/Actions/Catalog.h"
#include "mqss/Runtime/Harness.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mqss {

/// Families with an expert (the suite's families).
std::vector<std::string> expertFamilies();

/// The fixed `default` preference list.
std::vector<const Action *> defaultSequence();

/// A preference list's step: the first action of \p preferences that
/// \p mask allows and \p taken does not rule out (already applied, or
/// failed); null when there is none.
const Action *firstPreference(llvm::ArrayRef<const Action *> preferences,
                              const std::vector<bool> &mask,
                              llvm::function_ref<bool(const Action *)> taken);

/// Plans a sequence from an ordered preference list: at each step the first
/// action of the list that is legal on the current IR and not yet applied
/// (applies it to \p module while planning). An action whose passes fail on
/// the module is left out, and the list goes on from the IR before it; with
/// \p leftOut, a line saying which and why is added for each; with
/// \p ruledOut, it and the actions failing with it (actionsFailingWith);
/// with \p notLegal, why each action of the list the plan passed over as
/// not legal was not (what its rule needs, or that it is another stage's).
llvm::Expected<std::vector<const Action *>>
planSequence(mlir::ModuleOp module, llvm::ArrayRef<const Action *> preferences,
             std::vector<std::string> *leftOut = nullptr,
             std::vector<const Action *> *ruledOut = nullptr,
             llvm::DenseMap<const Action *, std::string> *notLegal = nullptr);

/// The `default` baseline planned for \p module: the fixed list, with the
/// actions its masks rule out on this module skipped.
llvm::Expected<std::vector<const Action *>>
planDefault(mlir::ModuleOp module, std::vector<std::string> *leftOut = nullptr);

/// Plans the expert's sequence for \p module (applies it to \p module while
/// planning). Errors for an unknown family, listing the known ones.
llvm::Expected<std::vector<const Action *>>
planExpert(mlir::ModuleOp module, llvm::StringRef family,
           std::vector<std::string> *leftOut = nullptr);

/// True if \p spec names a baseline or an action list rather than spelling a
/// pipeline: `default`, `expert:<family>`, `actions:a,b,c` (applied as
/// given) or `plan:a,b,c` (a preference list, planned with the masks).
bool isNamedPipeline(llvm::StringRef spec);

/// Checks a named spec without a module (unknown family, unknown action).
llvm::Error validateNamedPipeline(llvm::StringRef spec);

/// Resolves \p spec for \p module to pipeline text (see isNamedPipeline);
/// other text is returned as written. A named spec on a module in a frontend
/// dialect begins with its lowering (frontendLoweringPipeline) and is
/// planned on the lowered IR. \p llvmOptLevel is set when the spec fixes one
/// (a finish action).
llvm::Expected<std::string>
resolveNamedPipeline(mlir::ModuleOp module, llvm::StringRef spec,
                     unsigned *llvmOptLevel = nullptr,
                     std::vector<std::string> *leftOut = nullptr);

/// Installs resolveNamedPipeline as \p request's resolver, so that names are
/// resolved inside the measurement child against the module being measured.
void useNamedPipelines(RunRequest &request);

} // namespace mqss

#endif // MQSS_ACTIONS_BASELINES_H
