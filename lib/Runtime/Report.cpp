//===- Report.cpp - The measurement report as JSON and as a table ----------===//

#include "mqss/Runtime/Harness.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>

namespace mqss {

namespace {
struct StatusName {
  RunStatus status;
  llvm::StringLiteral name;
};
constexpr StatusName kStatusNames[] = {
    {RunStatus::Ok, "ok"},
    {RunStatus::ParseError, "parse-error"},
    {RunStatus::InvalidIR, "invalid-ir"},
    {RunStatus::InvalidInput, "invalid-input"},
    {RunStatus::InvalidPipeline, "invalid-pipeline"},
    {RunStatus::PassFailed, "pass-failed"},
    {RunStatus::LoweringFailed, "lowering-failed"},
    {RunStatus::Crash, "crash"},
    {RunStatus::Timeout, "timeout"},
    {RunStatus::OutOfMemory, "out-of-memory"},
    {RunStatus::WrongOutput, "wrong-output"},
};
} // namespace

llvm::StringRef runStatusName(RunStatus status) {
  for (const StatusName &entry : kStatusNames)
    if (entry.status == status)
      return entry.name;
  return "crash";
}

bool isInputFault(RunStatus status) {
  return status == RunStatus::InvalidInput || status == RunStatus::ParseError ||
         status == RunStatus::InvalidIR;
}

std::string failedWithoutTheCandidate(const RunReport &report, llvm::StringRef baselineName) {
  llvm::StringRef phase = report.phase;
  if (report.ok() || isInputFault(report.status))
    return "";
  llvm::StringRef part = phase == "entry"                ? "making its inputs"
                         : phase.ends_with(":reference") ? "its naive reference lowering"
                         : phase.ends_with(":baseline")  ? baselineName
                                                         : "";
  if (part.empty())
    return "";
  return (runStatusName(report.status) + " in " + part + ": " + report.message).str();
}

std::optional<RunStatus> parseRunStatus(llvm::StringRef name) {
  for (const StatusName &entry : kStatusNames)
    if (entry.name == name)
      return entry.status;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

/// JSON has no infinity; an infinite error (a NaN or an integer mismatch) is
/// written as null.
static llvm::json::Value finiteOrNull(double value) {
  if (std::isfinite(value))
    return value;
  return nullptr;
}

static llvm::json::Value toJSON(const SampleSummary &summary) {
  llvm::json::Array samples;
  for (double s : summary.samples)
    samples.push_back(s);
  return llvm::json::Object{{"median", summary.median}, {"mad", summary.mad},
                            {"min", summary.min},       {"max", summary.max},
                            {"samples", std::move(samples)}};
}

static llvm::json::Value toJSON(const OutputCheck &check) {
  llvm::json::Object object{{"check", verdictName(check.verdict)},
                            {"max_rel_error", finiteOrNull(check.maxRelError)},
                            {"values_compared", static_cast<int64_t>(check.valuesCompared)},
                            {"mismatches", static_cast<int64_t>(check.mismatches)}};
  if (!check.firstMismatch.empty())
    object["first_mismatch"] = check.firstMismatch;
  if (!check.reason.empty())
    object["reason"] = check.reason;
  return object;
}

llvm::json::Value toJSON(const RunReport &report) {
  llvm::json::Object object{
      {"status", runStatusName(report.status)},
      {"file", report.file},
      {"entry", report.entry},
      {"target", report.target},
      {"target_cpu", report.targetCpu},
      {"pipeline", report.candidate.pipeline},
      {"resolved_pipeline", report.candidate.resolvedPipeline},
      {"compile_ms", report.candidate.compileMs},
      {"jit_ms", report.candidate.jitMs},
      {"code_size_bytes", static_cast<int64_t>(report.candidate.codeSizeBytes)},
      {"lowered_ir_hash", report.candidate.loweredIrHash},
      {"runtime_ms", toJSON(report.candidate.runtimeMs)},
      {"output", toJSON(report.candidate.output)},
      {"rounds", report.rounds},
      {"seed", static_cast<int64_t>(report.seed)},
      {"cpu", report.cpu},
      {"wall_ms", report.wallMs},
      {"timing_is_platform_dependent", true},
  };
  if (!report.ok()) {
    object["message"] = report.message;
    object["phase"] = report.phase;
  }
  if (!report.diagnostics.empty())
    object["diagnostics"] = report.diagnostics;
  if (report.baseline) {
    const VariantReport &base = *report.baseline;
    object["baseline_runtime_ms"] = toJSON(base.runtimeMs);
    object["baseline"] = llvm::json::Object{
        {"pipeline", base.pipeline},
        {"resolved_pipeline", base.resolvedPipeline},
        {"compile_ms", base.compileMs},
        {"jit_ms", base.jitMs},
        {"code_size_bytes", static_cast<int64_t>(base.codeSizeBytes)},
        {"output", toJSON(base.output)}};
  }
  if (report.speedup)
    object["speedup"] = llvm::json::Object{{"median", report.speedup->median},
                                           {"ci_low", report.speedup->ciLow},
                                           {"ci_high", report.speedup->ciHigh},
                                           {"confidence", report.speedup->confidence}};
  llvm::json::Array notes;
  for (const std::string &note : report.notes)
    notes.push_back(note);
  object["notes"] = std::move(notes);
  return object;
}

static bool fromJSON(const llvm::json::Value &value, SampleSummary &summary,
                     llvm::json::Path path) {
  llvm::json::ObjectMapper mapper(value, path);
  return mapper && mapper.map("median", summary.median) &&
         mapper.map("mad", summary.mad) && mapper.map("min", summary.min) &&
         mapper.map("max", summary.max) && mapper.map("samples", summary.samples);
}

static double readErrorValue(const llvm::json::Object *object) {
  if (!object)
    return 0;
  const llvm::json::Value *value = object->get("max_rel_error");
  if (!value)
    return 0;
  return value->getAsNumber().value_or(INFINITY);
}

static bool fromJSON(const llvm::json::Value &value, OutputCheck &check,
                     llvm::json::Path path) {
  const llvm::json::Object *object = value.getAsObject();
  if (!object) {
    path.report("expected an object");
    return false;
  }
  llvm::StringRef verdict = object->getString("check").value_or("skipped");
  check.verdict = verdict == "pass"   ? OutputCheck::Verdict::Pass
                  : verdict == "fail" ? OutputCheck::Verdict::Fail
                                      : OutputCheck::Verdict::Skipped;
  check.maxRelError = readErrorValue(object);
  check.valuesCompared = object->getInteger("values_compared").value_or(0);
  check.mismatches = object->getInteger("mismatches").value_or(0);
  check.firstMismatch = object->getString("first_mismatch").value_or("").str();
  check.reason = object->getString("reason").value_or("").str();
  return true;
}

bool fromJSON(const llvm::json::Value &value, RunReport &report,
              llvm::json::Path path) {
  llvm::json::ObjectMapper mapper(value, path);
  const llvm::json::Object *object = value.getAsObject();
  if (!mapper || !object)
    return false;
  std::string status;
  if (!mapper.map("status", status))
    return false;
  if (auto parsed = parseRunStatus(status))
    report.status = *parsed;
  int64_t codeSize = 0, seed = 0, rounds = 0;
  bool ok = mapper.map("file", report.file) && mapper.map("entry", report.entry) &&
            mapper.map("target", report.target) &&
            mapper.map("target_cpu", report.targetCpu) &&
            mapper.map("pipeline", report.candidate.pipeline) &&
            mapper.mapOptional("resolved_pipeline", report.candidate.resolvedPipeline) &&
            mapper.mapOptional("lowered_ir_hash", report.candidate.loweredIrHash) &&
            mapper.map("compile_ms", report.candidate.compileMs) &&
            mapper.map("jit_ms", report.candidate.jitMs) &&
            mapper.map("code_size_bytes", codeSize) &&
            mapper.map("runtime_ms", report.candidate.runtimeMs) &&
            mapper.map("output", report.candidate.output) &&
            mapper.map("rounds", rounds) && mapper.map("seed", seed) &&
            mapper.mapOptional("message", report.message) &&
            mapper.mapOptional("phase", report.phase) &&
            mapper.mapOptional("diagnostics", report.diagnostics) &&
            mapper.mapOptional("notes", report.notes);
  if (!ok)
    return false;
  report.candidate.codeSizeBytes = codeSize;
  report.seed = seed;
  report.rounds = static_cast<unsigned>(rounds);
  if (const llvm::json::Object *base = object->getObject("baseline")) {
    VariantReport variant;
    llvm::json::ObjectMapper baseMapper(*object->get("baseline"), path.field("baseline"));
    int64_t baseCode = 0;
    if (!baseMapper.map("pipeline", variant.pipeline) ||
        !baseMapper.mapOptional("resolved_pipeline", variant.resolvedPipeline) ||
        !baseMapper.map("compile_ms", variant.compileMs) ||
        !baseMapper.map("jit_ms", variant.jitMs) ||
        !baseMapper.map("code_size_bytes", baseCode) ||
        !baseMapper.map("output", variant.output) ||
        !mapper.map("baseline_runtime_ms", variant.runtimeMs))
      return false;
    (void)base;
    variant.codeSizeBytes = baseCode;
    report.baseline = std::move(variant);
  }
  if (const llvm::json::Object *speedup = object->getObject("speedup")) {
    SpeedupSummary summary;
    summary.median = speedup->getNumber("median").value_or(0);
    summary.ciLow = speedup->getNumber("ci_low").value_or(0);
    summary.ciHigh = speedup->getNumber("ci_high").value_or(0);
    summary.confidence = speedup->getNumber("confidence").value_or(0.95);
    report.speedup = summary;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Table for a person
//===----------------------------------------------------------------------===//

static std::string formatMs(const SampleSummary &summary) {
  if (summary.samples.empty())
    return "-";
  char text[64];
  std::snprintf(text, sizeof(text), "%.4g ± %.2g", summary.median, summary.mad);
  return text;
}

static std::string formatCheck(const OutputCheck &check) {
  if (check.verdict == OutputCheck::Verdict::Skipped)
    return check.reason.empty() ? "skipped" : "skipped (" + check.reason + ")";
  std::string error = std::isfinite(check.maxRelError)
                          ? llvm::formatv("{0:e1}", check.maxRelError).str()
                          : std::string("inf");
  return llvm::formatv("{0} (max rel error {1})", verdictName(check.verdict), error)
      .str();
}

void printReport(const RunReport &report, llvm::raw_ostream &os) {
  // No entry yet when the module did not parse or was refused.
  std::string entry = report.entry.empty() ? "" : " @" + report.entry;
  os << llvm::formatv("{0}{1} on {2} ({3}): {4}\n", report.file, entry, report.target,
                      report.targetCpu, runStatusName(report.status));
  if (!report.ok()) {
    os << "  " << report.message << "\n";
    // The message may already end with the first diagnostic.
    llvm::StringRef diagnostics = llvm::StringRef(report.diagnostics).trim();
    auto [first, rest] = diagnostics.split('\n');
    if (llvm::StringRef(report.message).ends_with(first))
      diagnostics = rest;
    if (!diagnostics.empty())
      os << "  " << diagnostics.rtrim().str() << "\n";
    for (const std::string &note : report.notes)
      os << "  note: " << note << "\n";
    return;
  }
  const VariantReport &cand = report.candidate;
  const VariantReport *base = report.baseline ? &*report.baseline : nullptr;
  auto row = [&](llvm::StringRef label, const std::string &a, const std::string &b) {
    os << llvm::formatv("  {0,-16}{1,-32}{2}\n", label, a, base ? b : "");
  };
  row("", "candidate", "baseline");
  row("runtime ms", formatMs(cand.runtimeMs), base ? formatMs(base->runtimeMs) : "");
  row("compile ms", llvm::formatv("{0:f1}", cand.compileMs).str(),
      base ? llvm::formatv("{0:f1}", base->compileMs).str() : "");
  row("jit ms", llvm::formatv("{0:f1}", cand.jitMs).str(),
      base ? llvm::formatv("{0:f1}", base->jitMs).str() : "");
  row("code bytes", std::to_string(cand.codeSizeBytes),
      base ? std::to_string(base->codeSizeBytes) : "");
  row("output", formatCheck(cand.output), base ? formatCheck(base->output) : "");
  if (report.speedup)
    os << llvm::formatv("  {0,-16}{1:f2}x  [{2:f2}, {3:f2}] {4:P0} CI\n", "speedup",
                        report.speedup->median, report.speedup->ciLow,
                        report.speedup->ciHigh, report.speedup->confidence);
  os << llvm::formatv("  {0} timed rounds on CPU {1}, median ± MAD; timings are "
                      "platform-dependent\n",
                      report.rounds, report.cpu);
  for (const std::string &note : report.notes)
    os << "  note: " << note << "\n";
}

} // namespace mqss
