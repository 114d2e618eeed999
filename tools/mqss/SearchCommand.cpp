//===- SearchCommand.cpp - `mqss search`: the search baselines -------------===//

#include "Commands.h"

#include "mqss/Env/Search.h"
#include "mqss/Runtime/Target.h"
#include "mqss/Store/Store.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/WithColor.h"

#include <atomic>
#include <cmath>
#include <csignal>
#include <unistd.h>

using namespace llvm;

namespace mqss::tool {

cl::SubCommand searchCommand(
    "search", "Search action sequences with real measurements (each against `default`) "
              "and report the best");
static cl::opt<std::string> input(cl::Positional, cl::Required, cl::desc("<kernel.mlir>"),
                                  cl::sub(searchCommand), cl::cat(category()));
static cl::opt<std::string> strategy("strategy", cl::desc("random, greedy or beam"),
                                     cl::init("random"), cl::sub(searchCommand),
                                     cl::cat(category()));
static cl::opt<unsigned> budget("budget", cl::desc("Evaluations to spend (0: no limit)"),
                                cl::init(20), cl::sub(searchCommand), cl::cat(category()));
static cl::opt<double> timeS("time-s", cl::desc("Wall time to spend (0: no limit)"),
                             cl::init(0), cl::sub(searchCommand), cl::cat(category()));
static cl::opt<unsigned> maxLength("max-length", cl::desc("Actions per sequence"),
                                   cl::init(8), cl::sub(searchCommand), cl::cat(category()));
static cl::opt<unsigned> beamWidth("beam-width", cl::desc("Beam width"), cl::init(3),
                                   cl::sub(searchCommand), cl::cat(category()));
static cl::opt<std::string> target("target", cl::desc("Code generation target"),
                                   cl::init("host"), cl::sub(searchCommand),
                                   cl::cat(category()));
static cl::opt<std::string> entry("entry", cl::desc("Function to run"), cl::sub(searchCommand),
                                  cl::cat(category()));
static cl::list<std::string> shapes("shape", cl::desc("argN=D0x... for dynamic sizes"),
                                    cl::sub(searchCommand), cl::cat(category()));
static cl::list<std::string> scalarArgs("arg", cl::desc("argN=V for scalars"),
                                        cl::sub(searchCommand), cl::cat(category()));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed of the search and of the inputs"),
                              cl::init(1), cl::sub(searchCommand), cl::cat(category()));
static cl::opt<unsigned> reps("reps", cl::desc("Timed runs per evaluation"), cl::init(5),
                              cl::sub(searchCommand), cl::cat(category()));
static cl::opt<double> minTimeMs("min-time-ms", cl::desc("Timing per evaluation"),
                                 cl::init(50), cl::sub(searchCommand), cl::cat(category()));
static cl::opt<std::string> db("db", cl::desc("Measurement cache (SQLite); default in the cache dir"),
                               cl::sub(searchCommand), cl::cat(category()));
static cl::opt<bool> noCache("no-cache", cl::desc("Measure everything, cache nothing"),
                             cl::sub(searchCommand), cl::cat(category()));
static cl::opt<bool> json("json", cl::desc("Print JSON"), cl::sub(searchCommand),
                          cl::cat(category()));

static int searchError(const Twine &message) {
  return reportError("mqss search", message, json, 2);
}

/// Set by the first Ctrl-C: the search ends after the evaluation in progress
/// (each runs in its own process group, so it finishes) and prints the best
/// found so far. A second Ctrl-C quits at once.
static std::atomic<bool> interrupted{false};
static void onInterrupt(int) {
  interrupted = true;
  std::signal(SIGINT, SIG_DFL);
  static const char message[] =
      "\nmqss search: stopping after this evaluation (Ctrl-C again to quit now)\n";
  (void)!::write(STDERR_FILENO, message, sizeof(message) - 1);
}

int searchMain() {
  auto parsedStrategy = parseSearchStrategy(strategy);
  if (!parsedStrategy)
    return searchError("unknown strategy '" + strategy + "' (known: random, greedy, beam)");
  std::optional<TemporaryFile> stdinCopy;
  auto path = measurableInput(input, stdinCopy);
  if (!path)
    return searchError(toString(path.takeError()));
  if (auto resolved = resolveTarget(target); !resolved)
    return searchError(toString(resolved.takeError()));
  if (!(timeS >= 0) || !std::isfinite(timeS))
    return searchError("--time-s must be a finite number of seconds, 0 or more (0: no limit)");
  if (budget == 0 && timeS == 0)
    return searchError("give a --budget or a --time-s");
  if (Error error = checkMeasurementOptions(reps, minTimeMs, /*timeoutS=*/0))
    return searchError(toString(std::move(error)));
  if (maxLength == 0 || beamWidth == 0)
    return searchError("--max-length and --beam-width must be at least 1");

  RunRequest kernel;
  kernel.inputPath = *path;
  kernel.entry = entry;
  kernel.target = target;
  kernel.inputs.seed = seed;
  kernel.reps = reps;
  kernel.minTimeMs = minTimeMs;
  kernel.warmup = 1;
  for (const std::string &text : shapes)
    if (Error error = parseShapeOption(text, kernel.inputs.shapes))
      return searchError(toString(std::move(error)));
  for (const std::string &text : scalarArgs)
    if (Error error = parseScalarOption(text, kernel.inputs.scalars))
      return searchError(toString(std::move(error)));

  std::unique_ptr<Store> store;
  if (!noCache) {
    auto opened = Store::open(db.empty() ? Store::defaultPath() : std::string(db));
    if (!opened)
      return searchError(toString(opened.takeError()));
    store = std::move(*opened);
  }

  SearchOptions options;
  options.strategy = *parsedStrategy;
  options.budget = budget;
  options.timeSeconds = timeS;
  options.maxLength = maxLength;
  options.beamWidth = beamWidth;
  options.seed = seed;
  options.stop = &interrupted;
  std::signal(SIGINT, onInterrupt);

  Evaluator evaluator(kernel, store.get());
  bool terminal = isatty(2);
  SearchResult result = runSearch(
      evaluator, kernel, options, [&](const Evaluation &e, const SearchResult &so) {
        errs() << formatv("{0}[{1}{2}] {3}: {4} {5:f2}x{6}  (best {7:f2}x){8}",
                          terminal ? "\r\033[K" : "", so.evaluations,
                          options.budget ? formatv("/{0}", options.budget).str() : "",
                          joinActionNames(e.actions), runStatusName(e.status), e.speedup,
                          e.cached ? " cached" : "", so.bestSpeedup, terminal ? "" : "\n");
      });
  if (terminal)
    errs() << "\n";
  // 130, as a shell reports a command Ctrl-C ended, after the result; 1
  // when the module could not be measured at all (a wrong --entry fails
  // every evaluation as the input's fault): its "best 1.00x" would be
  // default's, never measured. (Sequences that all fail on a module that
  // runs leave default as the honest answer.)
  bool inputAtFault =
      !result.history.empty() && llvm::all_of(result.history, [](const Evaluation &e) {
        return isInputFault(e.status);
      });
  std::string failed;
  if (!result.stopped && result.evaluations == 0 && !result.walkFailures) {
    failed = formatv("no evaluation was made within --time-s={0}", options.timeSeconds).str();
  } else if (!result.stopped &&
             (inputAtFault || (result.evaluations == 0 && result.walkFailures))) {
    failed = formatv("the module cannot be measured as given ({0} evaluations made)",
                     result.evaluations)
                 .str();
    if (!result.history.empty())
      failed += formatv("; the last: {0}: {1}", runStatusName(result.history.back().status),
                        StringRef(result.history.back().message).trim())
                    .str();
    else if (!result.lastWalkFailure.empty())
      failed += "; " + StringRef(result.lastWalkFailure).trim().str();
  }
  int code = result.stopped ? 128 + SIGINT : failed.empty() ? 0 : 1;
  if (!failed.empty())
    WithColor::error(errs(), "mqss search") << failed << "\n";
  if (json) {
    json::Value value = toJSON(result, options);
    if (!failed.empty())
      (*value.getAsObject())["error"] = failed;
    outs() << formatv("{0:2}", value) << "\n";
    return code;
  }
  if (result.stopped)
    outs() << "interrupted: the best of the evaluations made\n";
  outs() << formatv("best over default: {0:f2}x after {1} evaluations ({2} measured, "
                    "cache hit rate {3:P0}, {4} failed) in {5:f1} s\n",
                    result.bestSpeedup, result.evaluations, result.measurements,
                    result.cacheHitRate, result.failures, result.wallSeconds);
  if (result.walkFailures)
    outs() << formatv("{0} walk(s) through the actions could not be made; the last: {1}\n",
                      result.walkFailures, StringRef(result.lastWalkFailure).trim());
  if (result.passedOver)
    outs() << formatv("{0} action(s) failed on the module where a walk drew them: passed "
                      "over, as a plan passes over them\n",
                      result.passedOver);
  outs() << "actions:  " << (result.bestActions.empty() ? "(default itself)"
                                                        : joinActionNames(result.bestActions))
         << "\n";
  if (!result.bestPipeline.empty())
    outs() << "pipeline: " << result.bestPipeline << "\n";
  return code;
}

} // namespace mqss::tool
