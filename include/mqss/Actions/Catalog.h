//===- Catalog.h - The action catalog: what the policy may do, by stage ---===//
//
// One table is the source of truth: each action has a name, the stage whose
// pool it belongs to, what it runs (a pass pipeline fragment, a schedule of
// the schedule library, or the final lowering at an LLVM opt level), and a
// legality predicate over the IR summary. Nothing else spells pass names.
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_ACTIONS_CATALOG_H
#define MQSS_ACTIONS_CATALOG_H

#include "mqss/IR/Summary.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace mqss {

enum class ActionKind {
  Pass,     ///< a textual pass pipeline fragment
  Schedule, ///< a named sequence of the schedule library
  Finish,   ///< ends the episode: mandatory lowering at an LLVM opt level
};

/// Coarse families of actions, used by the contextual features.
enum class ActionCategory {
  Cleanup, Fuse, Layout, Tile, Unroll, Vectorize, Schedule, Lower, Bufferize,
  Memory, Finish
};
constexpr unsigned kNumActionCategories = 11;
llvm::StringRef actionCategoryName(ActionCategory category);

struct Action {
  llvm::StringLiteral name;
  Stage stage;
  ActionKind kind;
  ActionCategory category;
  /// Pass pipeline fragment (Pass), schedule entry point (Schedule), empty
  /// for Finish.
  llvm::StringLiteral body;
  /// May the action be applied to IR like this?
  bool (*legal)(const IRSummary &);
  llvm::StringLiteral doc;
  /// LLVM optimisation level of a Finish action.
  unsigned llvmOptLevel = 3;
  /// A check of the IR itself that is too costly for the legality mask, made
  /// by applyAction() before the action runs. Actions sharing one fail
  /// together, and a plan rules them out together.
  llvm::Error (*precondition)(mlir::ModuleOp) = nullptr;

  /// The fragment for a textual pipeline (empty for Finish).
  std::string pipelineFragment() const;
};

/// How many failed actions a plan passes over before it gives up: an
/// upstream pass may fail on some module (a limitation or a bug), and both
/// the policy's plan and the baselines' then go on without that action.
constexpr unsigned kMaxFailedActions = 4;

/// Every action, in a fixed order (the policy's output index).
llvm::ArrayRef<Action> actionCatalog();
/// \p action and, when it has a precondition, the other actions with the
/// same one: when it fails, they would too.
std::vector<const Action *> actionsFailingWith(const Action &action);
/// Index of an action in the catalog.
unsigned actionIndex(const Action &action);
const Action *lookupAction(llvm::StringRef name);
/// The pool of a stage: its own actions and the finish actions.
std::vector<const Action *> actionsForStage(Stage stage);
/// Over the whole catalog: true where the action is in \p stage's pool and
/// legal on \p summary.
std::vector<bool> legalMask(const IRSummary &summary, Stage stage);
/// The same, after \p history: a cleanup action (canonicalize, cse, sccp,
/// licm, ...) is idempotent, so it is not legal again right after itself.
std::vector<bool> legalMask(const IRSummary &summary, Stage stage,
                            llvm::ArrayRef<const Action *> history);
/// Why \p action is not legal on IR like \p summary, in words (what its
/// rule needs); empty when it is. With \p unsafe: whether the rule keeps
/// the action from IR an upstream pass gets wrong or crashes on (then an
/// action a user names is refused), not only from IR it has nothing to do
/// on (`linalg.to-affine` without linalg ops).
std::string illegalBecause(const Action &action, const IRSummary &summary,
                           bool *unsafe = nullptr);
/// What \p action's legality rule needs, in words ("a linalg op"), and,
/// where the rule has several conditions, which one fails on \p summary;
/// empty where the catalog gives none.
std::string legalityNeeds(const Action &action, const IRSummary &summary);
/// Why \p action is not in the pool of legal actions on IR like \p summary
/// (legalMask for the IR's own stage): another stage's, or what its
/// legality rule needs; empty when it is in the pool. Every action the
/// policy or a plan proposes is.
std::string notInPoolBecause(const Action &action, const IRSummary &summary);
/// Identifies the catalog (names, stages, bodies) for model compatibility.
uint64_t catalogHash();

/// Parses "a,b,c" into actions; the error names an unknown one, or one
/// after a finish action (which can only be the last).
llvm::Expected<std::vector<const Action *>> parseActionList(llvm::StringRef text);

} // namespace mqss

#endif // MQSS_ACTIONS_CATALOG_H
