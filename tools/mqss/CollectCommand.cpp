//===- CollectCommand.cpp - `mqss collect`: trajectories into SQLite -------===//

#include "Commands.h"

#include "mqss/Train/Collect.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace llvm;

namespace mqss::tool {

cl::SubCommand collectCommand(
    "collect", "Collect random or epsilon-greedy trajectories, measured, into the SQLite "
               "store, with parallel worker processes");
static cl::opt<std::string> split("split", cl::desc("train, validation or test"),
                                  cl::init("train"), cl::sub(collectCommand), cl::cat(category()));
static cl::opt<std::string> size("size", cl::desc("Module sizes: smallest, small, medium"),
                                 cl::init("smallest"), cl::sub(collectCommand), cl::cat(category()));
static cl::opt<std::string> kernel("kernel", cl::desc("Only this kernel"),
                                   cl::sub(collectCommand), cl::cat(category()));
static cl::opt<std::string> targets("targets", cl::desc("Targets, comma-separated"),
                                    cl::init("host"), cl::sub(collectCommand), cl::cat(category()));
static cl::opt<unsigned> episodes("episodes", cl::desc("Episodes per kernel and target"),
                                  cl::init(1), cl::sub(collectCommand), cl::cat(category()));
static cl::opt<std::string> model("model", cl::desc("Epsilon-greedy around this model "
                                                    "(default: the random policy)"),
                                  cl::sub(collectCommand), cl::cat(category()));
static cl::opt<double> epsilon("epsilon", cl::desc("With --model: random-action probability"),
                               cl::init(0.1), cl::sub(collectCommand), cl::cat(category()));
static cl::opt<unsigned> workers("workers", cl::desc("Worker processes"), cl::init(2),
                                 cl::sub(collectCommand), cl::cat(category()));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed"), cl::init(1), cl::sub(collectCommand),
                              cl::cat(category()));
static cl::opt<std::string> db("db", cl::desc("SQLite store (default in the cache directory)"),
                               cl::sub(collectCommand), cl::cat(category()));
static cl::opt<std::string> registry("registry", cl::desc("Benchmark registry"),
                                     cl::sub(collectCommand), cl::cat(category()));

int collectMain() {
  auto fail = [](const Twine &message, int code) {
    return reportError("mqss collect", message, /*json=*/false, code);
  };
  CollectOptions options;
  options.split = split;
  options.size = size;
  options.kernel = kernel;
  auto parsedTargets = parseTargetList(targets, "mqss collect");
  if (!parsedTargets)
    return fail(toString(parsedTargets.takeError()), 2);
  options.targets = std::move(*parsedTargets);
  options.episodesPerTask = episodes;
  options.modelPath = model;
  if (!(epsilon >= 0 && epsilon <= 1))
    return fail("--epsilon must be a probability in [0, 1]", 2);
  // (0 episodes collected nothing and exited 0; an --epsilon without the
  // model it explores around was ignored.)
  if (episodes == 0)
    return fail("--episodes must be at least 1", 2);
  if (epsilon.getNumOccurrences() && model.empty())
    return fail("--epsilon explores around a --model: give one (without, every action is "
                "random)",
                2);
  options.epsilon = epsilon;
  if (workers == 0 || workers > kMaxThreads)
    return fail("--workers must be in 1.." + Twine(kMaxThreads), 2);
  options.workers = workers;
  options.seed = seed;
  options.dbPath = db;
  options.registryPath = registry;
  auto result = collect(options);
  if (!result)
    return fail(toString(result.takeError()), 1);
  outs() << formatv("{0:2}\n", json::Value(json::Object{
                                   {"trajectories", result->episodes},
                                   {"workers", result->workers},
                                   {"failed_workers", result->failedWorkers},
                                   {"wall_s", result->wallSeconds}}));
  return result->failedWorkers ? 1 : 0;
}

} // namespace mqss::tool
