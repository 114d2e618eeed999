//===- TrainCommand.cpp - `mqss train`: behaviour cloning, then PPO --------===//

#include "Commands.h"

#include "mqss/Train/Trainer.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/FileSystem.h"

using namespace llvm;

namespace mqss::tool {

cl::SubCommand trainCommand("train", kTrainDescription);
static cl::opt<std::string> out("out",
                                cl::desc("Directory for checkpoints, logs and the model (required "
                                         "unless --annotate)"),
                                cl::sub(trainCommand), cl::cat(category()));
static cl::opt<unsigned> updates("updates", cl::desc("PPO updates"), cl::init(30),
                                 cl::sub(trainCommand), cl::cat(category()));
static cl::opt<unsigned> episodes("episodes", cl::desc("Episodes per update"), cl::init(16),
                                  cl::sub(trainCommand), cl::cat(category()));
static cl::opt<std::string> targets("targets",
                                    cl::desc("Comma-separated targets (by default those of "
                                             "x86-avx512,x86-avx2 this host can run)"),
                                    cl::init("x86-avx512,x86-avx2"), cl::sub(trainCommand),
                                    cl::cat(category()));
static cl::opt<std::string> kernel("kernel", cl::desc("Train on this kernel only"),
                                   cl::sub(trainCommand), cl::cat(category()));
static cl::opt<unsigned> maxKernels("max-kernels", cl::desc("Use at most N train kernels (0: all)"),
                                    cl::init(0), cl::sub(trainCommand), cl::cat(category()));
static cl::opt<std::string> size("size", cl::desc("Kernel sizes: smallest, small, medium"),
                                 cl::init("smallest"), cl::sub(trainCommand), cl::cat(category()));
static cl::opt<unsigned> bcEpochs("bc-epochs", cl::desc("Behaviour-cloning epochs (0: none)"),
                                  cl::init(30), cl::sub(trainCommand), cl::cat(category()));
static cl::opt<unsigned> bcSearch("bc-search-budget",
                                  cl::desc("Random-search evaluations per kernel and target whose "
                                           "best sequence joins the demonstrations (0: none)"),
                                  cl::init(0), cl::sub(trainCommand), cl::cat(category()));
static cl::opt<unsigned> checkpointEvery("checkpoint-every", cl::desc("Updates between checkpoints"),
                                         cl::init(2), cl::sub(trainCommand), cl::cat(category()));
static cl::opt<unsigned> validateEvery("validate-every", cl::desc("Updates between validations"),
                                       cl::init(5), cl::sub(trainCommand), cl::cat(category()));
static cl::opt<unsigned> patience("patience", cl::desc("Validations without improvement before stopping"),
                                  cl::init(3), cl::sub(trainCommand), cl::cat(category()));
static cl::opt<double> epsilon("epsilon", cl::desc("Initial epsilon-greedy exploration"),
                               cl::init(0.1), cl::sub(trainCommand), cl::cat(category()));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed"), cl::init(1), cl::sub(trainCommand),
                              cl::cat(category()));
static cl::opt<std::string> db("db", cl::desc("Measurement cache (SQLite)"),
                               cl::sub(trainCommand), cl::cat(category()));
static cl::opt<std::string> objective(
    "objective",
    cl::desc("What the reward measures: runtime (default), size (object code bytes) or "
             "weighted:runtime=W,compile=W,size=W (each term scaled by the spread of "
             "default over the train tasks; docs/Objectives.md)"),
    cl::init("runtime"), cl::sub(trainCommand), cl::cat(category()));
static cl::opt<std::string> annotate(
    "annotate",
    cl::desc("Do not train: store in this model the range of operation counts of the train "
             "selection (--registry, --size, --kernel), for a model trained before models "
             "recorded it"),
    cl::value_desc("model.pt"), cl::sub(trainCommand), cl::cat(category()));
static cl::opt<std::string> registry("registry", cl::desc("Benchmark registry"),
                                     cl::sub(trainCommand), cl::cat(category()));

int trainMain(int argc, char **argv) {
  auto fail = [](const Twine &message, int code = 2) {
    return reportError("mqss train", message, /*json=*/false, code);
  };
  // (--updates=0 reported a best validation reward of -2, outside [-1, 1];
  // --episodes=0 "trained" on nothing.)
  if (annotate.empty() && (updates == 0 || episodes == 0))
    return fail("--updates and --episodes must be at least 1");
  if (!(epsilon >= 0 && epsilon <= 1))
    return fail("--epsilon must be a probability in [0, 1]");
  // (--patience=0 stopped right after an improving validation.)
  if (patience == 0)
    return fail("--patience must be at least 1 validation");
  // A file where the directory should be would fail only after training.
  if (annotate.empty() && sys::fs::exists(out.getValue()) && !sys::fs::is_directory(out.getValue()))
    return fail("--out=" + out + " is a file: give a directory for the checkpoints and model");
  TrainOptions options;
  options.outDir = out;
  options.updates = updates;
  options.episodesPerUpdate = episodes;
  auto parsedTargets = parseTargetList(targets, "mqss train", /*narrowToHost=*/
                                       targets.getNumOccurrences() == 0);
  if (!parsedTargets)
    return fail(toString(parsedTargets.takeError()));
  options.targets = std::move(*parsedTargets);
  auto parsedObjective = parseObjective(objective);
  if (!parsedObjective)
    return fail(toString(parsedObjective.takeError()));
  options.objective = *parsedObjective;
  options.kernel = kernel;
  options.maxTrainKernels = maxKernels;
  options.size = size;
  options.bcEpochs = bcEpochs;
  options.bcSearchBudget = bcSearch;
  options.checkpointEvery = std::max(1u, checkpointEvery.getValue());
  options.validateEvery = std::max(1u, validateEvery.getValue());
  options.patience = patience;
  options.epsilon = epsilon;
  options.seed = seed;
  options.dbPath = db;
  options.registryPath = registry;
  // The command, recorded in the checkpoint and the model (a run is told
  // apart by its options' values: rerunning it resumes, see runKey).
  for (int i = 0; i < argc; ++i)
    options.command += (i ? " " : "") + std::string(i == 0 ? "mqss" : argv[i]);

  if (!annotate.empty()) {
    auto range = annotateTrainedOpsRange(options, annotate);
    if (!range)
      return fail(toString(range.takeError()), 1);
    outs() << formatv("{0:2}\n", json::Value(json::Object{
                                     {"model", std::string(annotate)},
                                     {"trained_log2_ops", json::Object{{"min", range->first},
                                                                       {"max", range->second}}}}));
    return 0;
  }
  if (out.empty())
    return fail("--out=DIR is required");
  auto result = train(options);
  if (!result)
    return fail(toString(result.takeError()), 1);
  outs() << formatv("{0:2}\n", json::Value(json::Object{
                                   {"model", result->modelPath},
                                   {"updates", result->updates},
                                   {"resumed", result->resumed},
                                   {"objective", result->objective.spec()},
                                   {"best_validation_reward", result->bestValidationReward},
                                   {"first_mean_reward", result->firstMeanReward},
                                   {"last_mean_reward", result->lastMeanReward}}));
  return 0;
}

} // namespace mqss::tool
