//===- Evaluate.cpp - `mqss evaluate`: the policy against every baseline ---===//

#include "mqss/Train/Evaluate.h"

#include "mqss/Env/Episode.h"
#include "mqss/Env/Search.h"
#include "mqss/Runtime/Stats.h"
#include "mqss/Runtime/TemporaryFile.h"
#include "mqss/Suite/Registry.h"
#include "mqss/Suite/SuiteRun.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

namespace mqss {

namespace {
struct Row {
  std::string name, family, target;
  double naive = 0, expert = 0, policy = 0, guarded = 0, oracle = 0; ///< vs default
  double defaultMs = 0, policyMs = 0;
  double policyCompileMs = 0;
  std::string policyActions, status;
  unsigned crashes = 0;
  /// Pipelines that failed where another would not have: the module ran
  /// (its inputs, reference and default), theirs did not.
  bool naiveFailed = false, expertFailed = false, policyFailed = false;
  /// The module could not be measured at all (its input, or default).
  bool unmeasurable = false;
  /// Gains over default under the objective (the speedups above for
  /// `runtime`); the guard and the oracle pick by these.
  double naiveGain = 0, expertGain = 0, policyGain = 0, guardedGain = 0, oracleGain = 0;
  double defaultCompileMs = 0;
  uint64_t defaultCodeBytes = 0, policyCodeBytes = 0;
};

double geomean(const std::vector<double> &values) {
  double sum = 0;
  unsigned n = 0;
  for (double v : values)
    if (v > 0) {
      sum += std::log(v);
      ++n;
    }
  return n ? std::exp(sum / n) : 0;
}

/// Speedup of \p pipeline over default on \p kernel (0 when it failed).
double speedupOverDefault(RunRequest kernel, llvm::StringRef pipeline, Row &row,
                          RunReport *out = nullptr) {
  kernel.pipeline = pipeline.str();
  kernel.baseline = "default";
  RunReport report = runMeasurement(kernel);
  if (report.status == RunStatus::Crash || report.status == RunStatus::Timeout ||
      report.status == RunStatus::OutOfMemory)
    ++row.crashes;
  if (out)
    *out = report;
  if (!report.ok() || !report.speedup)
    return 0;
  row.defaultMs = report.baseline->runtimeMs.median;
  row.defaultCompileMs = report.baseline->compileMs + report.baseline->jitMs;
  row.defaultCodeBytes = report.baseline->codeSizeBytes;
  return report.speedup->median;
}

/// The policy's decisions on \p kernel, timed, in a sandboxed child.
std::vector<double> decisionTimes(const RunRequest &kernel, const std::string &modelPath) {
  auto result = runOnModuleInChild(
      kernel, [&](mlir::ModuleOp module) -> llvm::Expected<llvm::json::Object> {
        auto policy = loadPolicy(modelPath);
        if (!policy)
          return policy.takeError();
        std::vector<double> times;
        auto plan = planWithPolicy(module, **policy, kernel.target, 8, &times);
        if (!plan)
          llvm::consumeError(plan.takeError()); // the decisions taken are still timed
        return llvm::json::Object{{"micros", llvm::json::Array(times)}};
      });
  std::vector<double> micros;
  if (!result) {
    llvm::consumeError(result.takeError());
    return micros;
  }
  if (const llvm::json::Array *array = result->getArray("micros"))
    for (const llvm::json::Value &v : *array)
      micros.push_back(v.getAsNumber().value_or(0));
  return micros;
}

std::string svgChart(const std::vector<Row> &rows) {
  const double barHeight = 14, left = 230, width = 900;
  double height = 40 + rows.size() * (barHeight * 3 + 6);
  double maxSpeedup = 2;
  for (const Row &r : rows)
    maxSpeedup = std::max({maxSpeedup, r.policy, r.guarded, r.oracle});
  maxSpeedup = std::min(maxSpeedup, 8.0);
  auto x = [&](double s) { return left + (width - left - 20) * std::min(s, maxSpeedup) / maxSpeedup; };
  std::string svg;
  llvm::raw_string_ostream os(svg);
  os << llvm::formatv("<svg xmlns='http://www.w3.org/2000/svg' width='{0}' height='{1}' "
                      "font-family='sans-serif' font-size='11'>\n",
                      width, height);
  os << llvm::formatv("<line x1='{0}' x2='{0}' y1='20' y2='{1}' stroke='black'/>"
                      "<text x='{0}' y='14'>1.0x = default</text>\n",
                      x(1.0), height - 10);
  double y = 30;
  for (const Row &r : rows) {
    os << llvm::formatv("<text x='5' y='{0}'>{1} ({2})</text>\n", y + barHeight * 1.5, r.name,
                        r.target);
    int i = 0;
    for (auto [value, color] : {std::pair{r.policy, "#1f77b4"}, std::pair{r.guarded, "#2ca02c"},
                                std::pair{r.oracle, "#ff7f0e"}}) {
      os << llvm::formatv("<rect x='{0}' y='{1}' width='{2:f1}' height='{3}' fill='{4}'/>"
                          "<text x='{5:f1}' y='{6}'>{7:f2}x</text>\n",
                          left, y + i * barHeight, std::max(0.0, x(value) - left),
                          barHeight - 2, color, x(value) + 3, y + i * barHeight + 10, value);
      ++i;
    }
    y += barHeight * 3 + 6;
  }
  os << "</svg>\n";
  return svg;
}
} // namespace

llvm::Expected<llvm::json::Value> evaluatePolicy(const EvaluateOptions &options) {
  std::string modelPath = options.modelPath.empty() ? defaultModelPath() : options.modelPath;
  if (auto policy = loadPolicy(modelPath); !policy)
    return policy.takeError();
  // Before measuring, which a directory that cannot be made would waste.
  if (!options.outDir.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(options.outDir))
      return llvm::createStringError(ec, "cannot create '" + options.outDir + "': " +
                                             ec.message());
  SuiteRunOptions run;
  run.reps = options.reps;
  run.minTimeMs = options.minTimeMs;
  auto tasks = suiteTasks(options.registryPath, {options.split, "", options.kernel, options.size},
                          options.targets, run);
  if (!tasks)
    return tasks.takeError();
  // (Geomeans of nothing would read 0.000x, as if the policy lost.)
  if (tasks->empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no kernels match the selection (split '" + options.split +
                                       "'" + (options.kernel.empty() ? "" : ", --kernel") +
                                       (options.targets.empty() ? ", no target" : "") + ")");
  auto store = Store::open(options.dbPath.empty() ? Store::defaultPath() : options.dbPath);
  if (!store)
    return store.takeError();

  // A weighted objective is scaled by default on the evaluated modules,
  // measured once before anything is compared.
  Objective objective = options.objective;
  if (objective.needsScales()) {
    std::vector<RunRequest> kernels;
    for (const SuiteTask &task : *tasks)
      kernels.push_back(task.kernel);
    if (llvm::Error error = measureObjectiveScales(objective, kernels))
      return std::move(error);
  }

  std::vector<Row> rows;
  std::vector<double> decisions;
  std::string policySpec = "policy:" + modelPath;
  size_t total = tasks->size(), done = 0;
  for (const SuiteTask &task : *tasks) {
    const BenchmarkEntry &entry = task.entry;
    const std::string &target = task.kernel.target;
    const RunRequest &kernel = task.kernel;
    Row row;
    row.name = entry.name;
    row.family = entry.family;
    row.target = target;
    RunReport naiveReport, expertReport, policyReport;
    row.naive = speedupOverDefault(kernel, "naive", row, &naiveReport);
    row.expert = speedupOverDefault(kernel, "expert:" + entry.family, row, &expertReport);
    row.policy = speedupOverDefault(kernel, policySpec, row, &policyReport);
    auto failedItself = [](const RunReport &report) {
      return !report.ok() && !isInputFault(report.status) &&
             failedWithoutTheCandidate(report).empty();
    };
    row.naiveFailed = failedItself(naiveReport);
    row.expertFailed = failedItself(expertReport);
    row.policyFailed = failedItself(policyReport);
    row.unmeasurable = !naiveReport.ok() && !expertReport.ok() && !policyReport.ok() &&
                       !row.naiveFailed && !row.expertFailed && !row.policyFailed;
    row.naiveGain = objective.gain(gainsFromReport(naiveReport));
    row.expertGain = objective.gain(gainsFromReport(expertReport));
    row.policyGain = objective.gain(gainsFromReport(policyReport));
    if (policyReport.ok())
      row.policyCodeBytes = policyReport.candidate.codeSizeBytes;
    row.status = runStatusName(policyReport.status).str();
    row.policyMs = policyReport.candidate.runtimeMs.median;
    row.policyCompileMs = policyReport.candidate.compileMs + policyReport.candidate.jitMs;
    row.policyActions = policyReport.candidate.resolvedPipeline;
    // The guard measures the policy's choice and the expert's against
    // default and keeps the best under the objective (for `runtime`, the
    // fastest): never worse than default when it measured it.
    row.guarded = row.guardedGain = 1.0;
    for (auto [gain, speedup] : {std::pair{row.expertGain, row.expert},
                                 std::pair{row.policyGain, row.policy}})
      if (gain > row.guardedGain) {
        row.guardedGain = gain;
        row.guarded = speedup;
      }
    // The oracle: random search with a fixed budget of real measurements.
    RunRequest searchKernel = kernel;
    Evaluator evaluator(searchKernel, store->get(), objective);
    SearchOptions search;
    search.budget = options.oracleBudget;
    search.seed = 1;
    SearchResult oracle = runSearch(evaluator, searchKernel, search, nullptr);
    row.oracle = row.guarded;
    row.oracleGain = row.guardedGain;
    if (oracle.bestScore > row.guardedGain) {
      row.oracle = oracle.bestSpeedup;
      row.oracleGain = oracle.bestScore;
    }
    std::vector<double> times = decisionTimes(kernel, modelPath);
    // The first decision pays one-time initialisation; report steady state.
    for (size_t i = times.size() > 1 ? 1 : 0; i < times.size(); ++i)
      decisions.push_back(times[i]);
    rows.push_back(row);
    llvm::errs() << llvm::formatv("[{0}/{1}] {2} {3}: policy {4:f2}x, guarded {5:f2}x, "
                                  "expert {6:f2}x, oracle {7:f2}x over default\n",
                                  ++done, total, entry.name, target, row.policy, row.guarded,
                                  row.expert, row.oracle);
  }

  auto column = [&](double Row::*field) {
    std::vector<double> values;
    for (const Row &r : rows)
      values.push_back(r.*field);
    return values;
  };
  std::vector<double> policyVsExpert;
  for (const Row &r : rows)
    if (r.policy > 0 && r.expert > 0)
      policyVsExpert.push_back(r.policy / r.expert);
  double minGuarded = rows.empty() ? 0 : rows.front().guarded;
  unsigned crashes = 0;
  for (const Row &r : rows) {
    minGuarded = std::min(minGuarded, r.guarded);
    crashes += r.crashes;
  }
  double decisionP50 = median(decisions);
  // Geomeans are over the modules a pipeline ran on: a failure (no
  // speedup) cannot enter one, so it is counted here, not left unsaid.
  auto failures = [&](bool Row::*field) {
    return int64_t(llvm::count_if(rows, [&](const Row &r) { return r.*field; }));
  };
  int64_t policyFailures = failures(&Row::policyFailed);

  llvm::json::Array kernels;
  for (const Row &r : rows)
    kernels.push_back(llvm::json::Object{{"name", r.name},
                                         {"family", r.family},
                                         {"target", r.target},
                                         {"status", r.status},
                                         {"default_ms", r.defaultMs},
                                         {"policy_ms", r.policyMs},
                                         {"naive_vs_default", r.naive},
                                         {"expert_vs_default", r.expert},
                                         {"policy_vs_default", r.policy},
                                         {"guarded_vs_default", r.guarded},
                                         {"oracle_vs_default", r.oracle},
                                         {"policy_compile_ms", r.policyCompileMs},
                                         {"policy_pipeline", r.policyActions},
                                         {"default_compile_ms", r.defaultCompileMs},
                                         {"default_code_bytes", static_cast<int64_t>(r.defaultCodeBytes)},
                                         {"policy_code_bytes", static_cast<int64_t>(r.policyCodeBytes)},
                                         {"objective_gain", llvm::json::Object{
                                                                {"naive", r.naiveGain},
                                                                {"expert", r.expertGain},
                                                                {"policy", r.policyGain},
                                                                {"guarded", r.guardedGain},
                                                                {"oracle", r.oracleGain}}},
                                         {"crashes", r.crashes}});
  llvm::json::Object report{
      {"split", options.split},
      {"model", modelPath},
      {"targets", llvm::json::Array(options.targets)},
      {"oracle", llvm::formatv("random search, {0} evaluations per module",
                               options.oracleBudget).str()},
      {"kernels", std::move(kernels)},
      {"geomean",
       llvm::json::Object{{"policy_vs_default", geomean(column(&Row::policy))},
                          {"policy_vs_expert", geomean(policyVsExpert)},
                          {"guarded_vs_default", geomean(column(&Row::guarded))},
                          {"oracle_vs_default", geomean(column(&Row::oracle))},
                          {"expert_vs_default", geomean(column(&Row::expert))},
                          {"naive_vs_default", geomean(column(&Row::naive))}}},
      {"min", llvm::json::Object{{"guarded_vs_default", minGuarded}}},
      {"objective", toJSON(objective)},
      // Gains under the objective, default = 1 (equal to `geomean` for runtime).
      {"objective_geomean",
       llvm::json::Object{{"policy_vs_default", geomean(column(&Row::policyGain))},
                          {"guarded_vs_default", geomean(column(&Row::guardedGain))},
                          {"oracle_vs_default", geomean(column(&Row::oracleGain))},
                          {"expert_vs_default", geomean(column(&Row::expertGain))},
                          {"naive_vs_default", geomean(column(&Row::naiveGain))}}},
      {"crashes", crashes},
      {"failed", llvm::json::Object{{"policy", policyFailures},
                                    {"expert", failures(&Row::expertFailed)},
                                    {"naive", failures(&Row::naiveFailed)},
                                    {"unmeasurable", failures(&Row::unmeasurable)}}},
      {"decision_us_p50", decisionP50},
      {"timings_are_platform_dependent", true}};

  if (!options.outDir.empty()) {
    std::string json, md, html;
    llvm::raw_string_ostream(json) << llvm::formatv(
        "{0:2}\n", llvm::json::Value(llvm::json::Object(report)));
    llvm::raw_string_ostream mdStream(md);
    mdStream << "# MQSS-Selector evaluation (" << options.split << " split)\n\n"
             << "Speedups over `default`, measured interleaved; geomean policy "
             << llvm::formatv(
                    "{0:f3}x, guarded {1:f3}x, expert {2:f3}x, oracle {3:f3}x; "
                    "decision p50 {4:f1} us; {5} crashes; the policy's plan failed on {6} "
                    "(geomeans are over the modules each ran on).\n\n",
                    geomean(column(&Row::policy)), geomean(column(&Row::guarded)),
                    geomean(column(&Row::expert)), geomean(column(&Row::oracle)), decisionP50,
                    crashes, policyFailures)
             << (objective.isRuntime()
                     ? std::string()
                     : llvm::formatv(
                           "Objective `{0}`: geomean gain over default, policy {1:f3}x, "
                           "guarded {2:f3}x, oracle {3:f3}x (the guard and the oracle pick "
                           "by it; the table shows runtime speedups).\n\n",
                           objective.spec(), geomean(column(&Row::policyGain)),
                           geomean(column(&Row::guardedGain)), geomean(column(&Row::oracleGain)))
                           .str())
             << "| module | target | naive | expert | policy | guarded | oracle |\n"
             << "|---|---|---|---|---|---|---|\n";
    for (const Row &r : rows)
      mdStream << llvm::formatv("| {0} | {1} | {2:f2} | {3:f2} | {4:f2} | {5:f2} | {6:f2} |\n",
                                r.name, r.target, r.naive, r.expert, r.policy, r.guarded, r.oracle);
    llvm::raw_string_ostream(html)
        << "<!doctype html><html><head><meta charset='utf-8'><title>MQSS-Selector "
           "evaluation</title></head><body><h1>MQSS-Selector evaluation ("
        << options.split
        << ")</h1><p>Bars per module: policy (blue), guarded (green), "
           "random-search oracle (orange); speedup over <code>default</code>.</p>"
        << svgChart(rows) << "</body></html>\n";
    // Each file whole or not at all; a file that cannot be written (disk
    // full) is said in the report, which the caller still prints: the
    // measurements are not lost with it.
    for (auto [name, text] : {std::pair<const char *, const std::string &>{"evaluation.json", json},
                              {"evaluation.md", md},
                              {"evaluation.html", html}}) {
      if (llvm::Error error = writeFileAtomically(options.outDir + "/" + name, text)) {
        report["write_error"] = llvm::toString(std::move(error));
        break;
      }
    }
  }
  return llvm::json::Value(std::move(report));
}

} // namespace mqss
