//===- Environment.h - Stepping through action sequences, measured ---------===//
//
// The pieces the search baselines (and the RL environment) are made of, each
// running untrusted passes in a sandboxed child: probe the state reached by a
// prefix of actions (stage, legal actions), roll out a random legal
// sequence, and evaluate a sequence against `default` with real
// measurements, through a cache keyed by the hash of the lowered IR.
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_ENV_ENVIRONMENT_H
#define MQSS_ENV_ENVIRONMENT_H

#include "mqss/Actions/Catalog.h"
#include "mqss/Env/Objective.h"
#include "mqss/Runtime/Harness.h"
#include "mqss/Store/Store.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace mqss {

/// runOnModuleInChild()'s error when the child outlived its time limit.
class ChildTimedOut : public llvm::ErrorInfo<ChildTimedOut> {
public:
  static char ID;
  explicit ChildTimedOut(std::string message) : message(std::move(message)) {}
  void log(llvm::raw_ostream &os) const override { os << message; }
  std::error_code convertToErrorCode() const override { return llvm::inconvertibleErrorCode(); }

private:
  std::string message;
};

/// Parses \p kernel's module in a sandboxed child and runs \p body on it;
/// returns the JSON object the body produced. A module that does not load,
/// an error from the body and a child that dies are all errors; one that
/// runs out of time is a ChildTimedOut.
llvm::Expected<llvm::json::Object>
runOnModuleInChild(const RunRequest &kernel,
                   llvm::function_ref<llvm::Expected<llvm::json::Object>(mlir::ModuleOp)> body);

struct StateProbe {
  Stage stage = Stage::Tensor;
  /// Legal actions at this state, finish actions included.
  std::vector<const Action *> legal;
  /// What prepared the module before the prefix (prepareForStages), as a
  /// selection's pipeline and the evaluation's "actions:" pipeline begin.
  std::string preparation;
};

/// Applies \p prefix to \p kernel's module, prepared as an episode's is
/// (TOSA lowered, ops MLIR 19 cannot bufferize rewritten), in a sandboxed
/// child and reports where that leads. Fails if an action of the prefix
/// fails.
llvm::Expected<StateProbe> probeState(const RunRequest &kernel,
                                      llvm::ArrayRef<const Action *> prefix);

struct Rollout {
  std::vector<const Action *> actions;
  std::string preparation; ///< as StateProbe's
  /// Actions drawn that failed on the module: ruled out (with the actions
  /// failing with them) and drawn again, as a plan passes over them.
  unsigned passedOver = 0;
};

/// A uniformly random legal walk from the prepared module, ending at a
/// finish action or after \p maxLength actions (then finish-O3 is appended).
llvm::Expected<Rollout> randomRollout(const RunRequest &kernel, uint64_t seed,
                                      unsigned maxLength);

std::string joinActionNames(llvm::ArrayRef<const Action *> actions);
/// The actions' names as a JSON array.
llvm::json::Array actionNamesJson(llvm::ArrayRef<const Action *> actions);

struct Evaluation {
  std::vector<const Action *> actions;
  RunStatus status = RunStatus::Ok;
  std::string message;
  double speedup = 0;   ///< over `default`, paired median; 0 if not ok
  double runtimeMs = 0;
  double defaultMs = 0;
  bool cached = false;
  std::string loweredIrHash;
  /// Runtime, compile-time and code-size ratios against default (unknown,
  /// 0, for compile and size when a cached row predates them).
  Gains gains;
  /// The objective's gain over default (exp of Objective::logGain without a
  /// dead-band): what a search ranks by; the speedup for `runtime`.
  double score = 0;
};

/// Lowers \p kernel's module with `default`'s pipeline alone (no JIT, no
/// runs): the failure, said as the module's ("the module fails without the
/// actions: ..."), or none when it lowers (or fails on the input as given).
/// Where a sequence of actions failed, this tells the module's fault from
/// the actions'.
std::optional<std::string> failureOfDefault(const RunRequest &kernel);
/// Lowers \p kernel's module with \p pipeline (a name its resolver knows:
/// `default`, `policy:MODEL`, ...) and no JIT or run: the failure's report,
/// or none when it lowers (or fails on the input as given).
std::optional<RunReport> failureToLower(RunRequest kernel, llvm::StringRef pipeline);

/// Measures action sequences on one kernel against `default`, consulting and
/// filling the measurement cache.
class Evaluator {
public:
  /// \p kernel names the module, entry, inputs, target and timing settings;
  /// its pipelines are ignored. \p store may be null (no cache).
  /// \p objective sets what `score` means; an objective that needs code
  /// sizes and compile times measures again on cache rows without them.
  Evaluator(RunRequest kernel, Store *store, Objective objective = {});

  Evaluation evaluate(llvm::ArrayRef<const Action *> actions);

  unsigned evaluations() const { return numEvaluations; }
  unsigned measurements() const { return numMeasurements; }
  unsigned cacheHits() const { return numCacheHits; }
  double cacheHitRate() const {
    return numEvaluations ? double(numCacheHits) / numEvaluations : 0;
  }

private:
  RunRequest kernel;
  Store *store;
  Objective objective;
  std::string inputsKey; ///< distinguishes dynamic sizes and scalar values
  unsigned numEvaluations = 0, numMeasurements = 0, numCacheHits = 0;
};

} // namespace mqss

#endif // MQSS_ENV_ENVIRONMENT_H
