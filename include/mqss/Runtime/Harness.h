//===- Harness.h - Measure a pipeline on a kernel: lower, JIT, time, check -===//
//
// The one measurement everything in MQSS-Selector learns from. In a sandboxed
// child: parse and verify, apply the candidate (and baseline) pipeline, lower
// to LLVM, JIT for the target, run the naive-lowered reference for the output
// check, then time candidate and baseline interleaved (A B A B ...) on one
// pinned CPU after warm-up.
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_RUNTIME_HARNESS_H
#define MQSS_RUNTIME_HARNESS_H

#include "mqss/Runtime/Buffers.h"
#include "mqss/Runtime/OutputCheck.h"
#include "mqss/Runtime/Sandbox.h"
#include "mqss/Runtime/Stats.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"

#include <functional>

#include <optional>
#include <string>
#include <vector>

namespace mqss {

/// Every way a measurement can end, as reported in `status`.
enum class RunStatus {
  Ok,
  ParseError,
  InvalidIR,
  InvalidInput,    ///< entry, shapes or arguments the harness cannot satisfy
  InvalidPipeline, ///< unknown pass or malformed pipeline text
  PassFailed,
  LoweringFailed,
  Crash,
  Timeout,
  OutOfMemory,
  WrongOutput,
};

llvm::StringRef runStatusName(RunStatus status);
/// Whether \p status blames the module or its inputs (it does not parse or
/// verify, or the harness cannot run it as given), so that every pipeline
/// would end the same way: no verdict on a pipeline.
bool isInputFault(RunStatus status);
std::optional<RunStatus> parseRunStatus(llvm::StringRef name);

/// A pipeline as the harness runs it, after names were resolved.
struct ResolvedPipeline {
  std::string text;
  /// Set when the pipeline fixes the LLVM opt level (a finish action).
  std::optional<unsigned> llvmOptLevel;
  /// Set when the transformation is not one pipeline (a pipeline per
  /// function): it is applied instead of `text`, which then only describes it.
  std::function<llvm::Error(mlir::ModuleOp)> transform;
  /// What resolving it had to work around, e.g. an action left out because
  /// its passes failed; they become the report's notes.
  std::vector<std::string> notes;
};

/// Turns what the user wrote (a name such as `default`, or pipeline text) into
/// a pipeline for this module and the request's target (a policy decides per
/// target). Runs inside the measurement child.
using PipelineResolver = std::function<llvm::Expected<ResolvedPipeline>(
    mlir::ModuleOp, llvm::StringRef spec, llvm::StringRef target)>;

struct RunRequest {
  std::string inputPath;
  std::string pipeline = "naive";
  /// Timed interleaved with the candidate when set.
  std::optional<std::string> baseline;
  std::string target = "host";
  std::string entry;
  InputOptions inputs;
  unsigned reps = 10;
  double minTimeMs = 200;
  unsigned warmup = 2;
  double rtol = 1e-3;
  bool checkOutput = true;
  unsigned llvmOptLevel = 3;
  SandboxLimits limits;
  /// Resolves named pipelines against the module; unset: text is used as is.
  PipelineResolver resolvePipeline;
  /// Stop once the candidate is lowered to the LLVM dialect: the report then
  /// carries its IR hash (for cache look-ups) and no timing.
  bool stopAfterLowering = false;
};

/// Figures for one pipeline (candidate or baseline).
struct VariantReport {
  std::string pipeline;         ///< as requested (may be a name)
  std::string resolvedPipeline; ///< the pipeline text that ran
  double compileMs = 0; ///< MLIR passes: the pipeline plus the mandatory lowering
  double jitMs = 0;     ///< translation to LLVM IR, LLVM -O, codegen
  uint64_t codeSizeBytes = 0;
  /// Hash of the module lowered to the LLVM dialect, with the LLVM opt level:
  /// equal hashes run the same code.
  std::string loweredIrHash;
  SampleSummary runtimeMs;
  OutputCheck output;
};

struct RunReport {
  RunStatus status = RunStatus::Ok;
  std::string message;     ///< one line for a person when status is not ok
  std::string phase;       ///< what was running when it failed, e.g. run:candidate
  std::string diagnostics; ///< compiler diagnostics or the child's stderr tail
  std::string file, entry, target, targetCpu;
  VariantReport candidate;
  std::optional<VariantReport> baseline;
  std::optional<SpeedupSummary> speedup;
  unsigned rounds = 0; ///< timed A/B rounds
  int cpu = -1;        ///< the CPU the measurement was pinned to
  uint64_t seed = 0;
  double wallMs = 0;
  std::vector<std::string> notes;

  bool ok() const { return status == RunStatus::Ok; }
};

/// For a report that failed where the candidate plays no part (making the
/// inputs, the naive reference, the baseline), what failed and where:
/// "<status> in <part>: <message>", the part "making its inputs", "its
/// naive reference lowering" or \p baselineName. Another candidate would
/// fail the same way. Empty otherwise, and for an input fault
/// (isInputFault), which says so itself.
std::string failedWithoutTheCandidate(const RunReport &report,
                                      llvm::StringRef baselineName = "the baseline");

/// Runs the whole measurement in a sandboxed child. Never fails as a call:
/// every failure, including crashes and timeouts, is a status in the report.
RunReport runMeasurement(const RunRequest &request);

llvm::json::Value toJSON(const RunReport &report);
bool fromJSON(const llvm::json::Value &value, RunReport &report,
              llvm::json::Path path);

/// A short table for a person.
void printReport(const RunReport &report, llvm::raw_ostream &os);

} // namespace mqss

#endif // MQSS_RUNTIME_HARNESS_H
