//===- Objective.h - What a pipeline is rewarded for -----------------------===//
//
// `runtime` (the default): r = 1 - T/T_default, as DESIGN.md. `size`: object
// code bytes, r = 1 - S/S_default. `weighted:runtime=a,compile=b,size=c`:
// each quantity's log-ratio against `default` is divided by the spread
// (p90 - p10) of that quantity's log over the default baseline on the
// split's kernels, so a unit of one term is "as much as this quantity varies
// across the suite", not a millisecond or a byte; the weighted sum is then
// multiplied by the runtime spread so that `weighted:runtime=1` is exactly
// `runtime`. docs/Objectives.md has the formulas and an example.
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_ENV_OBJECTIVE_H
#define MQSS_ENV_OBJECTIVE_H

#include "mqss/Runtime/Harness.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace mqss {

enum class ObjectiveKind { Runtime, Size, Weighted };

/// A candidate against `default` on one kernel, each as default / candidate
/// (above 1 is better); 0 when unknown.
struct Gains {
  double runtime = 0; ///< paired median speedup
  double compile = 0; ///< (compileMs + jitMs) of default over the candidate's
  double size = 0;    ///< object code bytes of default over the candidate's
};

/// Gains of a paired measurement (candidate vs its `default` baseline).
Gains gainsFromReport(const RunReport &report);

/// One measurement of the `default` pipeline alone.
struct BaselineSample {
  double runtimeMs = 0, compileMs = 0, codeBytes = 0;
};

/// Spread (p90 - p10, linear interpolation) of log(quantity) over the
/// default baseline's measurements; 1 when there are fewer than two samples.
struct ObjectiveScales {
  double runtime = 1, compile = 1, size = 1;
  unsigned samples = 0;
};

/// Spreads below this (in natural-log units) are raised to it, so a suite
/// whose kernels barely differ in one quantity cannot blow that term up.
constexpr double kMinLogSpread = 0.05;

ObjectiveScales scalesFromBaselines(llvm::ArrayRef<BaselineSample> samples);

/// The p-th percentile (0..100) of \p values, interpolating linearly between
/// order statistics (numpy's default); 0 for no values.
double percentile(std::vector<double> values, double p);

struct Objective {
  ObjectiveKind kind = ObjectiveKind::Runtime;
  /// Weights as parsed; they need not sum to 1 (they are normalised).
  double runtimeWeight = 1, compileWeight = 0, sizeWeight = 0;
  ObjectiveScales scales;

  /// Canonical text: `runtime`, `size` or `weighted:runtime=..,compile=..,size=..`.
  std::string spec() const;
  bool isRuntime() const { return kind == ObjectiveKind::Runtime; }
  /// Only the weighted objective depends on the suite's baselines.
  bool needsScales() const { return kind == ObjectiveKind::Weighted; }
  /// Code sizes and compile times must be known (cached rows from before
  /// they were stored do not have them).
  bool needsCosts() const { return kind != ObjectiveKind::Runtime; }

  /// log of the candidate's gain over default under this objective (0: as
  /// good as default). Timed terms (runtime, compile) whose relative change
  /// is inside \p deadband count as 0; code size is exact. NaN when a
  /// needed gain is unknown.
  double logGain(const Gains &gains, double deadband) const;
  /// exp(logGain): for `runtime`, the speedup; for `size`, S_default/S.
  double gain(const Gains &gains, double deadband = 0) const;
  /// -1 for a failure or an unknown gain, else clamp(1 - 1/gain, -1, 1).
  /// For `runtime` this is exactly rewardFor (Episode.h).
  double reward(RunStatus status, const Gains &gains, double deadband) const;
};

/// Parses `runtime`, `size` or `weighted:TERM=W,...` (TERM one of runtime,
/// compile, size; W a non-negative number; at least one W positive).
llvm::Expected<Objective> parseObjective(llvm::StringRef spec);

/// spec, normalised weights, the log spreads (weighted) and the reward formula.
llvm::json::Value toJSON(const Objective &objective);

/// Measures `default` alone on each kernel (sandboxed) and sets the
/// objective's scales from those measurements when it needs them; failed
/// measurements are skipped. Progress lines go to stderr.
llvm::Error measureObjectiveScales(Objective &objective,
                                   llvm::ArrayRef<RunRequest> kernels);

} // namespace mqss

#endif // MQSS_ENV_OBJECTIVE_H
