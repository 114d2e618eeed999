//===- Objective.cpp - What a pipeline is rewarded for ---------------------===//

#include "mqss/Env/Objective.h"

#include "mqss/Actions/Baselines.h"
#include "mqss/Env/Episode.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace mqss {

static llvm::Error objectiveError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

Gains gainsFromReport(const RunReport &report) {
  Gains gains;
  if (!report.ok() || !report.baseline)
    return gains;
  if (report.speedup)
    gains.runtime = report.speedup->median;
  const VariantReport &candidate = report.candidate, &base = *report.baseline;
  double candidateCompile = candidate.compileMs + candidate.jitMs;
  double baseCompile = base.compileMs + base.jitMs;
  if (candidateCompile > 0 && baseCompile > 0)
    gains.compile = baseCompile / candidateCompile;
  if (candidate.codeSizeBytes > 0 && base.codeSizeBytes > 0)
    gains.size = double(base.codeSizeBytes) / double(candidate.codeSizeBytes);
  return gains;
}

double percentile(std::vector<double> values, double p) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  double position = std::clamp(p, 0.0, 100.0) / 100.0 * (values.size() - 1);
  size_t below = static_cast<size_t>(std::floor(position));
  size_t above = std::min(below + 1, values.size() - 1);
  double fraction = position - below;
  return values[below] + fraction * (values[above] - values[below]);
}

ObjectiveScales scalesFromBaselines(llvm::ArrayRef<BaselineSample> samples) {
  ObjectiveScales scales;
  std::vector<double> runtime, compile, size;
  for (const BaselineSample &s : samples) {
    if (s.runtimeMs <= 0 || s.compileMs <= 0 || s.codeBytes <= 0)
      continue;
    runtime.push_back(std::log(s.runtimeMs));
    compile.push_back(std::log(s.compileMs));
    size.push_back(std::log(s.codeBytes));
  }
  scales.samples = runtime.size();
  if (scales.samples < 2)
    return scales; // no spread to speak of: log-ratios count unscaled
  auto spread = [](const std::vector<double> &logs) {
    return std::max(percentile(logs, 90) - percentile(logs, 10), kMinLogSpread);
  };
  scales.runtime = spread(runtime);
  scales.compile = spread(compile);
  scales.size = spread(size);
  return scales;
}

std::string Objective::spec() const {
  switch (kind) {
  case ObjectiveKind::Runtime:
    return "runtime";
  case ObjectiveKind::Size:
    return "size";
  case ObjectiveKind::Weighted:
    break;
  }
  std::string text = "weighted:";
  bool first = true;
  for (auto [name, weight] : {std::pair{"runtime", runtimeWeight},
                              std::pair{"compile", compileWeight},
                              std::pair{"size", sizeWeight}}) {
    if (weight <= 0)
      continue;
    char number[32];
    std::snprintf(number, sizeof(number), "%g", weight); // 0.7, not 0.70
    text += (first ? "" : ",") + std::string(name) + "=" + number;
    first = false;
  }
  return text;
}

/// log(g), or 0 when a timed ratio is within the noise dead-band.
static double timedLog(double gain, double deadband) {
  if (std::fabs(1.0 - 1.0 / gain) < deadband)
    return 0;
  return std::log(gain);
}

double Objective::logGain(const Gains &gains, double deadband) const {
  switch (kind) {
  case ObjectiveKind::Runtime:
    return gains.runtime > 0 ? timedLog(gains.runtime, deadband) : std::nan("");
  case ObjectiveKind::Size:
    return gains.size > 0 ? std::log(gains.size) : std::nan("");
  case ObjectiveKind::Weighted:
    break;
  }
  double total = runtimeWeight + compileWeight + sizeWeight;
  double sum = 0;
  struct Term {
    double weight, gain, scale;
    bool timed;
  };
  for (const Term &t : {Term{runtimeWeight, gains.runtime, scales.runtime, true},
                        Term{compileWeight, gains.compile, scales.compile, true},
                        Term{sizeWeight, gains.size, scales.size, false}}) {
    if (t.weight <= 0)
      continue;
    if (t.gain <= 0)
      return std::nan("");
    double log = t.timed ? timedLog(t.gain, deadband) : std::log(t.gain);
    sum += t.weight / total * log / t.scale;
  }
  return scales.runtime * sum;
}

double Objective::gain(const Gains &gains, double deadband) const {
  // The plain ratio for the single-term objectives (exp(log(x)) may differ
  // from x in the last bit, and `runtime` must rank exactly as before).
  if (kind == ObjectiveKind::Runtime && gains.runtime > 0)
    return std::fabs(1.0 - 1.0 / gains.runtime) < deadband ? 1.0 : gains.runtime;
  if (kind == ObjectiveKind::Size)
    return std::max(gains.size, 0.0);
  double log = logGain(gains, deadband);
  return std::isnan(log) ? 0 : std::exp(log);
}

double Objective::reward(RunStatus status, const Gains &gains, double deadband) const {
  if (kind == ObjectiveKind::Runtime)
    return rewardFor(status, gains.runtime, deadband);
  if (status != RunStatus::Ok)
    return -1;
  double log = logGain(gains, deadband);
  if (std::isnan(log))
    return -1;
  return std::clamp(1.0 - std::exp(-log), -1.0, 1.0);
}

llvm::Expected<Objective> parseObjective(llvm::StringRef spec) {
  Objective objective;
  llvm::StringRef text = spec.trim();
  if (text == "runtime")
    return objective;
  if (text == "size") {
    objective.kind = ObjectiveKind::Size;
    objective.runtimeWeight = 0;
    objective.sizeWeight = 1;
    return objective;
  }
  auto [kind, weights] = text.split(':');
  if (kind != "weighted")
    return objectiveError("unknown objective '" + spec +
                          "': expected runtime, size or weighted:runtime=W,compile=W,size=W");
  if (!text.contains(':') || weights.trim().empty())
    return objectiveError("objective '" + spec +
                          "' names no weights: write e.g. weighted:runtime=0.7,compile=0.2,size=0.1");
  objective.kind = ObjectiveKind::Weighted;
  objective.runtimeWeight = 0;
  bool seen[3] = {false, false, false};
  llvm::SmallVector<llvm::StringRef> terms;
  weights.split(terms, ',');
  for (llvm::StringRef term : terms) {
    auto [name, value] = term.split('=');
    name = name.trim();
    value = value.trim();
    int index = llvm::StringSwitch<int>(name)
                    .Case("runtime", 0)
                    .Case("compile", 1)
                    .Case("size", 2)
                    .Default(-1);
    if (index < 0)
      return objectiveError("objective '" + spec + "': unknown term '" + name +
                            "' (terms are runtime, compile and size)");
    if (!term.contains('='))
      return objectiveError("objective '" + spec + "': term '" + name +
                            "' has no weight (write " + name + "=W)");
    if (seen[index])
      return objectiveError("objective '" + spec + "': term '" + name + "' is given twice");
    seen[index] = true;
    double weight = 0;
    if (value.empty() || !llvm::to_float(value, weight) || !std::isfinite(weight))
      return objectiveError("objective '" + spec + "': the weight of '" + name + "' is '" +
                            value + "', not a number");
    if (weight < 0)
      return objectiveError("objective '" + spec + "': the weight of '" + name +
                            "' is negative");
    (index == 0 ? objective.runtimeWeight
                : index == 1 ? objective.compileWeight : objective.sizeWeight) = weight;
  }
  double total = objective.runtimeWeight + objective.compileWeight + objective.sizeWeight;
  if (total <= 0)
    return objectiveError("objective '" + spec + "': all weights are zero");
  // Each finite, their sum need not be (1e308 twice): every normalised
  // weight was then 0 and every gain 1.
  if (!std::isfinite(total))
    return objectiveError("objective '" + spec + "': the weights add up past the largest "
                          "number; they are relative, so smaller ones say the same "
                          "(e.g. runtime=0.7,compile=0.2,size=0.1)");
  return objective;
}

llvm::json::Value toJSON(const Objective &objective) {
  llvm::json::Object object{{"spec", objective.spec()}};
  double total =
      objective.runtimeWeight + objective.compileWeight + objective.sizeWeight;
  object["weights"] = llvm::json::Object{{"runtime", objective.runtimeWeight / total},
                                         {"compile", objective.compileWeight / total},
                                         {"size", objective.sizeWeight / total}};
  switch (objective.kind) {
  case ObjectiveKind::Runtime:
    object["reward"] = "1 - T/T_default (0 within the dead-band; -1 on failure)";
    break;
  case ObjectiveKind::Size:
    object["reward"] = "1 - S/S_default, S = object code bytes (-1 on failure)";
    break;
  case ObjectiveKind::Weighted:
    object["reward"] =
        "clamp(1 - exp(-L), -1, 1), L = spread_runtime * sum_i w_i * log(X_i,default / X_i) / "
        "spread_i, spread_i = p90 - p10 of log(X_i) over the default baseline on the split "
        "(X = runtime, compile+JIT time, code bytes)";
    object["log_spread"] = llvm::json::Object{{"runtime", objective.scales.runtime},
                                              {"compile", objective.scales.compile},
                                              {"size", objective.scales.size},
                                              {"samples", objective.scales.samples}};
    break;
  }
  return object;
}

llvm::Error measureObjectiveScales(Objective &objective, llvm::ArrayRef<RunRequest> kernels) {
  if (!objective.needsScales())
    return llvm::Error::success();
  std::vector<BaselineSample> samples;
  for (const RunRequest &kernel : kernels) {
    RunRequest request = kernel;
    request.pipeline = "default";
    request.baseline.reset();
    useNamedPipelines(request);
    RunReport report = runMeasurement(request);
    if (!report.ok()) {
      llvm::errs() << "note: default failed on " << kernel.inputPath << " ("
                   << report.message << "); left out of the objective's scales\n";
      continue;
    }
    samples.push_back({report.candidate.runtimeMs.median,
                       report.candidate.compileMs + report.candidate.jitMs,
                       double(report.candidate.codeSizeBytes)});
  }
  if (samples.empty())
    return objectiveError("objective " + objective.spec() +
                          ": default failed on every kernel, no baseline to scale by");
  objective.scales = scalesFromBaselines(samples);
  llvm::errs() << llvm::formatv(
      "objective {0}: log spread (p90-p10) of default over {1} measurements: runtime {2:f3}, "
      "compile {3:f3}, size {4:f3}\n",
      objective.spec(), objective.scales.samples, objective.scales.runtime,
      objective.scales.compile, objective.scales.size);
  return llvm::Error::success();
}

} // namespace mqss
