//===- Trainer.cpp - `mqss train`: behaviour cloning, then PPO -------------===//

#include "mqss/Train/Trainer.h"

#include "mqss/Actions/Baselines.h"
#include "mqss/Env/Episode.h"
#include "mqss/Env/Search.h"
#include "mqss/IR/Context.h"
#include "mqss/IR/Loader.h"
#include "mqss/IR/Summary.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mqss/Runtime/TemporaryFile.h"
#include "mqss/Store/Store.h"
#include "mqss/Suite/Registry.h"
#include "mqss/Suite/SuiteRun.h"
#include "mqss/Train/Ppo.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <chrono>
#include <cmath>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace mqss {

namespace {
llvm::Error trainError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// One kernel on one target, as the environment sees it.
struct Task {
  BenchmarkEntry entry;
  std::string target;
  RunRequest kernel;
};

std::vector<Task> makeTasks(const std::vector<BenchmarkEntry> &entries,
                            const TrainOptions &options) {
  std::vector<Task> tasks;
  for (const std::string &target : options.targets)
    for (const BenchmarkEntry &entry : entries) {
      SuiteRunOptions run;
      run.target = target;
      run.reps = options.reps;
      run.minTimeMs = options.minTimeMs;
      run.warmup = 1;
      run.seed = options.seed;
      run.limits.timeoutSeconds = 60;
      tasks.push_back({entry, target, requestFor(entry, run)});
    }
  return tasks;
}

/// The state that makes a run resumable, next to the checkpoint.
struct Progress {
  unsigned update = 0;
  double bestValidation = -2;
  unsigned sinceImprovement = 0;
  float entropyCoef = 0;
  std::string command;
  /// runKey() of the options: what a resumed run must share (empty in a
  /// checkpoint written before it was kept: then the command).
  std::string key;
  std::vector<double> meanRewards;
  double wallSeconds = 0; ///< the run's time until this checkpoint
  /// (update index, validation reward), for the learning curve.
  std::vector<std::pair<unsigned, double>> validationPoints;
};

/// What makes two commands the same training run: every option that
/// changes what is trained, as values (flags in any order or spelling,
/// defaults given or not), without the output directory, the measurement
/// cache and the number of updates (a finished run can be extended).
/// Numbers are written exactly; \p legacy writes them as checkpoints made
/// before did, with two decimals (--epsilon=0.101 then resumed a run of
/// 0.104), so that those still resume.
std::string runKey(const TrainOptions &o, bool legacy = false) {
  auto number = [legacy](double value) -> std::string {
    if (legacy)
      return llvm::formatv("{0}", value).str();
    char digits[32];
    auto printed = std::to_chars(digits, digits + sizeof(digits), value);
    return std::string(digits, printed.ptr);
  };
  return llvm::formatv("registry={0};size={1};kernel={2};max-kernels={3};targets={4};"
                       "episodes={5};max-steps={6};checkpoint-every={7};validate-every={8};"
                       "patience={9};bc-epochs={10};bc-search={11};epsilon={12};seed={13};"
                       "reps={14};min-time-ms={15};objective={16}",
                       o.registryPath, o.size, o.kernel, o.maxTrainKernels,
                       llvm::join(o.targets, ","), o.episodesPerUpdate, o.maxSteps,
                       o.checkpointEvery, o.validateEvery, o.patience, o.bcEpochs,
                       o.bcSearchBudget, number(o.epsilon), o.seed, o.reps,
                       number(o.minTimeMs), o.objective.spec())
      .str();
}

llvm::json::Value toJSON(const Progress &p) {
  return llvm::json::Object{{"update", p.update},
                            {"best_validation", p.bestValidation},
                            {"since_improvement", p.sinceImprovement},
                            {"entropy_coef", p.entropyCoef},
                            {"command", p.command},
                            {"key", p.key},
                            {"mean_rewards", llvm::json::Array(p.meanRewards)},
                            {"wall_s", p.wallSeconds},
                            {"validation_points", [&] {
                               llvm::json::Array points;
                               for (auto [update, reward] : p.validationPoints)
                                 points.push_back(llvm::json::Array{update, reward});
                               return points;
                             }()}};
}

bool fromJSON(const llvm::json::Value &v, Progress &p, llvm::json::Path path) {
  llvm::json::ObjectMapper m(v, path);
  double entropy = 0;
  int64_t update = 0, since = 0;
  bool ok = m && m.map("update", update) && m.map("best_validation", p.bestValidation) &&
            m.map("since_improvement", since) && m.map("entropy_coef", entropy) &&
            m.map("command", p.command) && m.mapOptional("key", p.key) &&
            m.map("mean_rewards", p.meanRewards) && m.mapOptional("wall_s", p.wallSeconds);
  // Older checkpoints have none: the curve then shows the resumed part's.
  if (const llvm::json::Object *object = v.getAsObject())
    if (const llvm::json::Array *points = object->getArray("validation_points"))
      for (const llvm::json::Value &point : *points)
        if (const llvm::json::Array *pair = point.getAsArray(); pair && pair->size() == 2)
          if (auto update = (*pair)[0].getAsInteger(); update && *update >= 0)
            if (auto reward = (*pair)[1].getAsNumber())
              p.validationPoints.emplace_back(unsigned(*update), *reward);
  p.update = update;
  p.sinceImprovement = since;
  p.entropyCoef = static_cast<float>(entropy);
  return ok;
}


/// A learning curve a person can look at: mean episode reward per update.
std::string learningCurveSvg(const std::vector<double> &rewards,
                             const std::vector<std::pair<unsigned, double>> &validation,
                             const Objective &objective) {
  const double width = 640, height = 360, left = 50, bottom = 40, top = 20, right = 20;
  double lo = -1, hi = 1;
  auto x = [&](double i) {
    return left + (width - left - right) * (rewards.size() > 1 ? i / (rewards.size() - 1) : 0);
  };
  auto y = [&](double r) { return top + (height - top - bottom) * (hi - r) / (hi - lo); };
  std::string svg;
  llvm::raw_string_ostream os(svg);
  os << llvm::formatv("<svg xmlns='http://www.w3.org/2000/svg' width='{0}' height='{1}' "
                      "font-family='sans-serif' font-size='12'>\n",
                      width, height);
  os << "<rect width='100%' height='100%' fill='white'/>\n";
  std::string reward = objective.isRuntime()
                           ? std::string("reward = 1 - T/T_default")
                           : "objective " + objective.spec();
  os << llvm::formatv("<text x='{0}' y='14'>MQSS-Selector training: mean episode reward per "
                      "PPO update ({1})</text>\n",
                      left, reward);
  for (double r : {-1.0, -0.5, 0.0, 0.5, 1.0}) {
    os << llvm::formatv("<line x1='{0}' x2='{1}' y1='{2}' y2='{2}' stroke='#ddd'/>"
                        "<text x='5' y='{3}'>{4:f1}</text>\n",
                        left, width - right, y(r), y(r) + 4, r);
  }
  os << "<polyline fill='none' stroke='#1f77b4' stroke-width='2' points='";
  for (size_t i = 0; i < rewards.size(); ++i)
    os << llvm::formatv("{0:f1},{1:f1} ", x(i), y(rewards[i]));
  os << "'/>\n";
  for (auto [update, reward] : validation)
    os << llvm::formatv("<circle cx='{0:f1}' cy='{1:f1}' r='4' fill='#d62728'/>\n",
                        x(update), y(reward));
  os << llvm::formatv("<text x='{0}' y='{1}'>update</text>", width / 2, height - 8);
  os << llvm::formatv("<text x='{0}' y='{1}' fill='#1f77b4'>train (sampled)</text>",
                      width - 220, height - 8);
  os << llvm::formatv("<text x='{0}' y='{1}' fill='#d62728'>validation (greedy)</text>",
                      width - 120, height - 8);
  os << "</svg>\n";
  return svg;
}

/// Sets a weighted objective's scales: read back from \p outDir when a run
/// resumes (the rewards it trained on stay the same), else measured on the
/// tasks' default baseline and written there.
llvm::Error prepareObjective(Objective &objective, const std::vector<Task> &tasks,
                             const std::string &outDir, bool resumed) {
  if (!objective.isRuntime())
    llvm::errs() << "objective: " << objective.spec() << "\n";
  if (!objective.needsScales())
    return llvm::Error::success();
  std::string path = outDir + "/objective.json";
  if (resumed) {
    if (auto buffer = llvm::MemoryBuffer::getFile(path)) {
      auto parsed = llvm::json::parse((*buffer)->getBuffer());
      if (!parsed)
        return trainError("'" + path + "': " + llvm::toString(parsed.takeError()));
      const llvm::json::Object *object = parsed->getAsObject();
      const llvm::json::Object *spread = object ? object->getObject("log_spread") : nullptr;
      if (spread && object->getString("spec") == objective.spec()) {
        objective.scales.runtime = spread->getNumber("runtime").value_or(1);
        objective.scales.compile = spread->getNumber("compile").value_or(1);
        objective.scales.size = spread->getNumber("size").value_or(1);
        objective.scales.samples = spread->getInteger("samples").value_or(0);
        return llvm::Error::success();
      }
    }
  }
  std::vector<RunRequest> kernels;
  for (const Task &task : tasks)
    kernels.push_back(task.kernel);
  if (llvm::Error error = measureObjectiveScales(objective, kernels))
    return error;
  return writeFileAtomically(path, llvm::formatv("{0:2}\n", toJSON(objective)).str());
}

double meanReward(const std::vector<Episode> &episodes) {
  double total = 0;
  for (const Episode &e : episodes)
    total += e.reward;
  return episodes.empty() ? 0 : total / episodes.size();
}

llvm::Expected<Registry> registryFor(const TrainOptions &options) {
  return Registry::load(options.registryPath.empty() ? Registry::defaultPath()
                                                     : options.registryPath);
}

/// The train kernels \p options select (kernel, size, at most maxTrainKernels).
llvm::Expected<std::vector<BenchmarkEntry>> trainSelection(const Registry &registry,
                                                           const TrainOptions &options) {
  auto entries = registry.select({"train", "", options.kernel, options.size});
  if (entries && options.maxTrainKernels && entries->size() > options.maxTrainKernels)
    entries->resize(options.maxTrainKernels);
  return entries;
}

llvm::Expected<std::optional<std::pair<double, double>>>
opsRangeOf(const std::vector<BenchmarkEntry> &entries) {
  auto context = createContext();
  std::optional<double> smallest, largest;
  for (const BenchmarkEntry &entry : entries) {
    auto module = loadModuleFile(*context, entry.path);
    if (!module)
      return trainError(entry.path + ": " + llvm::toString(module.takeError()));
    auto function = (*module)->lookupSymbol<mlir::func::FuncOp>(entry.entry);
    std::optional<double> ops = function ? executedOps(function) : std::nullopt;
    if (!ops || *ops <= 0)
      continue;
    double log2Ops = std::log2(*ops);
    smallest = std::min(smallest.value_or(log2Ops), log2Ops);
    largest = std::max(largest.value_or(log2Ops), log2Ops);
  }
  if (!smallest)
    return std::nullopt;
  return std::make_pair(*smallest, *largest);
}
} // namespace

llvm::Expected<std::optional<std::pair<double, double>>>
trainedOpsRange(const TrainOptions &options) {
  auto registry = registryFor(options);
  if (!registry)
    return registry.takeError();
  auto entries = trainSelection(*registry, options);
  if (!entries)
    return entries.takeError();
  return opsRangeOf(*entries);
}

llvm::Expected<std::pair<double, double>> annotateTrainedOpsRange(const TrainOptions &options,
                                                                  llvm::StringRef modelPath) {
  auto range = trainedOpsRange(options);
  if (!range)
    return range.takeError();
  if (!*range)
    return trainError("no train kernel of the selection has a static operation count");
  auto loaded = loadModel(modelPath);
  if (!loaded)
    return loaded.takeError();
  loaded->second.minTrainedLog2Ops = (*range)->first;
  loaded->second.maxTrainedLog2Ops = (*range)->second;
  if (llvm::Error error = saveModel(loaded->first, loaded->second, modelPath))
    return std::move(error);
  return **range;
}

namespace {
/// The lock on an output directory, held while a run writes into it.
struct OutLock {
  int fd = -1;
  ~OutLock() {
    if (fd >= 0)
      ::close(fd); // releases the lock
  }
};

/// Takes \p dir's lock, or says which process holds it: two runs into one
/// directory would write over each other's checkpoints and interleave their
/// logs, whatever their options.
llvm::Error lockOutDir(llvm::StringRef dir, OutLock &lock) {
  std::string path = (dir + "/.lock").str();
  lock.fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock.fd < 0)
    return trainError("cannot create '" + path + "': " + std::strerror(errno));
  if (::flock(lock.fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK)
      return trainError("cannot lock '" + path + "': " + std::strerror(errno));
    char holder[32] = {};
    ssize_t n = ::pread(lock.fd, holder, sizeof(holder) - 1, 0);
    std::string pid = n > 0 ? llvm::StringRef(holder, n).trim().str() : "";
    return trainError("another `mqss train` is writing into " + dir +
                      (pid.empty() ? "" : " (process " + pid + ")") +
                      ": wait for it to end, or train into another --out");
  }
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(lock.fd, 0) == 0 && ::pwrite(lock.fd, pid.data(), pid.size(), 0) < 0) {
    // The pid only makes the message above friendlier.
  }
  return llvm::Error::success();
}

/// Cuts a resumed run's logs back to its checkpoint: the updates after it
/// are trained again and logged again. \p updateOf gives a line's update
/// (none for a header).
llvm::Error trimLog(llvm::StringRef path, unsigned lastUpdate,
                    llvm::function_ref<std::optional<unsigned>(llvm::StringRef)> updateOf) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return llvm::Error::success(); // nothing logged yet
  std::string kept;
  llvm::SmallVector<llvm::StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef line : lines) {
    std::optional<unsigned> update = updateOf(line);
    if (!update || *update <= lastUpdate)
      kept += line.str() + "\n";
  }
  return writeFileAtomically(path, kept);
}
} // namespace

llvm::Expected<TrainResult> train(const TrainOptions &options) {
  configureTorchThreads();
  torch::manual_seed(options.seed);
  if (std::error_code ec = llvm::sys::fs::create_directories(options.outDir))
    return trainError("cannot create '" + options.outDir + "': " + ec.message());
  OutLock lock;
  if (llvm::Error error = lockOutDir(options.outDir, lock))
    return std::move(error);

  auto registry = registryFor(options);
  if (!registry)
    return registry.takeError();
  auto trainEntries = trainSelection(*registry, options);
  if (!trainEntries)
    return trainEntries.takeError();
  auto validationEntries = registry->select({"validation", "", "", options.size});
  if (!validationEntries)
    return validationEntries.takeError();
  if (!options.kernel.empty())
    *validationEntries = *trainEntries; // a one-kernel run validates on itself
  if (trainEntries->empty())
    return trainError("no train kernels match the selection");
  std::vector<Task> tasks = makeTasks(*trainEntries, options);
  std::vector<Task> validationTasks = makeTasks(*validationEntries, options);

  auto store = Store::open(options.dbPath.empty() ? Store::defaultPath() : options.dbPath);
  if (!store)
    return store.takeError();

  PpoConfig config;
  ModelMetadata metadata = currentMetadata();
  metadata.hidden = {128, 64, 32};
  metadata.targets = options.targets;
  metadata.trainingCommand = options.command;
  auto opsRange = opsRangeOf(*trainEntries);
  if (!opsRange)
    return opsRange.takeError();
  if (*opsRange) {
    metadata.minTrainedLog2Ops = (*opsRange)->first;
    metadata.maxTrainedLog2Ops = (*opsRange)->second;
  }
  ActorCritic network(metadata.numFeatures, metadata.numActions, metadata.hidden);
  torch::optim::Adam optimizer(network->parameters(),
                               torch::optim::AdamOptions(config.learningRate));

  std::string checkpoint = options.outDir + "/checkpoint.pt";
  std::string optimizerPath = options.outDir + "/optimizer.pt";
  std::string progressPath = options.outDir + "/progress.json";
  std::string bestPath = options.outDir + "/best.pt";
  std::string csvPath = options.outDir + "/log.csv";
  std::string jsonlPath = options.outDir + "/log.jsonl";
  Progress progress;
  progress.entropyCoef = config.entropyCoef;
  progress.command = options.command;
  progress.key = runKey(options);
  TrainResult result;

  // Resume from the last checkpoint of the same command.
  if (llvm::sys::fs::exists(checkpoint)) {
    auto loaded = loadModel(checkpoint);
    if (!loaded)
      return loaded.takeError();
    // The progress the checkpoint records, written with its weights in one
    // file; checkpoints written before it did have only progress.json.
    Progress saved;
    bool read = false;
    std::string why;
    if (const llvm::json::Value *own = loaded->second.figures.get("progress")) {
      llvm::json::Path::Root root;
      read = fromJSON(*own, saved, root);
      if (!read)
        why = checkpoint + ": " + llvm::toString(root.getError());
    } else {
      auto buffer = llvm::MemoryBuffer::getFile(progressPath);
      auto parsed = buffer ? llvm::json::parse((*buffer)->getBuffer())
                           : llvm::Expected<llvm::json::Value>(
                                 trainError(buffer.getError().message()));
      llvm::json::Path::Root root;
      read = parsed && fromJSON(*parsed, saved, root);
      if (!read)
        why = progressPath + ": " + (parsed ? llvm::toString(root.getError())
                                            : llvm::toString(parsed.takeError()));
    }
    // Without its progress, a checkpoint cannot be resumed or told to be
    // this run's; starting afresh would write over it and its best model.
    if (!read)
      return trainError(checkpoint + " has no readable progress (" + why +
                        "), so it can be neither resumed nor told to be this run's: remove " +
                        checkpoint + " to start afresh in " + options.outDir);
    bool same = saved.key.empty() ? saved.command == options.command
                                  : saved.key == progress.key ||
                                        saved.key == runKey(options, /*legacy=*/true);
    if (!same)
      // Starting afresh would overwrite its checkpoint and models.
      return trainError(options.outDir + " holds a checkpoint of another training run (`" +
                        saved.command + "`): resume it with the options it had (their "
                        "order, and --out, --db and --updates, may differ), or train into "
                        "another --out");
    {
      torch::NoGradGuard noGrad;
      auto from = loaded->first->parameters();
      auto to = network->parameters();
      for (size_t i = 0; i < to.size() && i < from.size(); ++i)
        to[i].copy_(from[i]);
    }
    try {
      torch::load(optimizer, optimizerPath);
    } catch (const c10::Error &) {
      // An optimizer state that does not load only costs Adam's warm-up.
    }
    std::string key = progress.key; // this build's, from now on
    progress = saved;
    progress.key = key;
    result.resumed = true;
    llvm::errs() << llvm::formatv("resuming from {0} at update {1}\n", checkpoint,
                                  progress.update);
    auto csvUpdate = [](llvm::StringRef line) -> std::optional<unsigned> {
      unsigned update;
      if (line.split(',').first.getAsInteger(10, update))
        return std::nullopt; // the header
      return update;
    };
    auto jsonlUpdate = [](llvm::StringRef line) -> std::optional<unsigned> {
      auto parsed = llvm::json::parse(line);
      if (!parsed) {
        llvm::consumeError(parsed.takeError());
        return std::nullopt;
      }
      std::optional<int64_t> update =
          parsed->getAsObject() ? parsed->getAsObject()->getInteger("update") : std::nullopt;
      return update ? std::optional<unsigned>(*update) : std::nullopt;
    };
    if (llvm::Error error = trimLog(csvPath, progress.update, csvUpdate))
      return std::move(error);
    if (llvm::Error error = trimLog(jsonlPath, progress.update, jsonlUpdate))
      return std::move(error);
  }

  // The objective; a weighted one is scaled by the default baseline on the
  // train tasks, measured once per run and kept for a resumed run.
  Objective objective = options.objective;
  if (llvm::Error error = prepareObjective(objective, tasks, options.outDir, result.resumed))
    return std::move(error);
  metadata.figures["objective"] = toJSON(objective);

  auto policy = [&]() { return createNetworkPolicy(network, metadata); };
  auto evaluatorFor = [&](const Task &task) {
    return Evaluator(task.kernel, store->get(), objective);
  };

  // Behaviour cloning from the best sequence known per kernel and target:
  // default's, the family expert's, or one found by search.
  if (!result.resumed && options.bcEpochs > 0) {
    std::vector<Episode> demonstrations;
    for (const Task &task : tasks) {
      Episode best;
      best.reward = -2;
      // Candidate sequences: default's and the expert's plans on this kernel
      // (planned in a child with the masks the policy sees), and the best a
      // random search found when --bc-search-budget is given.
      std::vector<std::vector<const Action *>> candidates;
      for (const std::string &spec : {std::string("default"), "expert:" + task.entry.family}) {
        auto planned = runOnModuleInChild(
            task.kernel, [&](mlir::ModuleOp module) -> llvm::Expected<llvm::json::Object> {
              auto plan = spec == "default"
                              ? planDefault(module)
                              : planExpert(module, llvm::StringRef(spec).drop_front(7));
              if (!plan)
                return plan.takeError();
              return llvm::json::Object{{"actions", joinActionNames(*plan)}};
            });
        if (!planned) {
          llvm::consumeError(planned.takeError());
          continue;
        }
        if (auto parsed = parseActionList(planned->getString("actions").value_or("")))
          candidates.push_back(*parsed);
        else
          llvm::consumeError(parsed.takeError());
      }
      if (options.bcSearchBudget > 0) {
        Evaluator evaluator = evaluatorFor(task);
        SearchOptions search;
        search.budget = options.bcSearchBudget;
        search.maxLength = options.maxSteps - 1;
        search.seed = options.seed;
        SearchResult found = runSearch(evaluator, task.kernel, search, nullptr);
        if (!found.bestActions.empty())
          candidates.push_back(found.bestActions);
      }
      auto replayPolicy = createRandomPolicy();
      for (const std::vector<const Action *> &sequence : candidates) {
        if (sequence.empty())
          continue;
        EpisodeOptions replay;
        replay.seed = options.seed;
        replay.forcedActions = sequence;
        replay.objective = objective;
        if (sequence.back()->kind != ActionKind::Finish)
          replay.forcedActions.push_back(lookupAction("finish-O3"));
        replay.maxSteps = replay.forcedActions.size();
        Evaluator evaluator = evaluatorFor(task);
        Episode episode = runEpisode(task.kernel, *replayPolicy, &evaluator, replay);
        if (episode.status == RunStatus::Ok && episode.reward > best.reward)
          best = std::move(episode);
      }
      if (best.reward > -2)
        demonstrations.push_back(std::move(best));
      // A rewritten line on a terminal; a line per tenth in a log.
      static const bool terminal = isatty(2);
      size_t done = &task - tasks.data() + 1;
      if (terminal)
        llvm::errs() << llvm::formatv("\rbehaviour cloning: {0}/{1} demonstrations",
                                      demonstrations.size(), tasks.size());
      else if (done % std::max<size_t>(1, tasks.size() / 10) == 0 || done == tasks.size())
        llvm::errs() << llvm::formatv("behaviour cloning: {0}/{1} tasks, {2} demonstrations\n",
                                      done, tasks.size(), demonstrations.size());
    }
    float loss = behaviourCloning(network, optimizer, demonstrations, options.bcEpochs,
                                  options.seed);
    // (On a terminal, after the rewritten line; a log has whole lines.)
    llvm::errs() << llvm::formatv("{0}behaviour cloning: {1} demonstrations, final loss "
                                  "{2:f3}\n",
                                  isatty(2) ? "\n" : "", demonstrations.size(), loss);
  }

  if (!result.resumed) {
    if (llvm::Error error =
            writeFileAtomically(csvPath, "update,episodes,steps,steps_per_s,mean_reward,"
                                         "entropy,success_rate,cache_hit_rate,policy_loss,"
                                         "value_loss,validation_reward,wall_s\n"))
      return std::move(error);
    if (llvm::Error error = writeFileAtomically(jsonlPath, ""))
      return std::move(error);
  }

  // The wall-clock column goes on from the checkpoint's.
  auto start = std::chrono::steady_clock::now() -
               std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                   std::chrono::duration<double>(progress.wallSeconds));
  // A run that stopped early is finished: rerunning it trains no more.
  if (result.resumed && progress.sinceImprovement >= options.patience) {
    llvm::errs() << llvm::formatv("the run stopped early at update {0} (validation reward "
                                  "had not improved for {1} validations): nothing to train\n",
                                  progress.update, options.patience);
  }
  for (; progress.update < options.updates && progress.sinceImprovement < options.patience;
       ++progress.update) {
    unsigned u = progress.update;
    double epsilon = std::max(0.02, options.epsilon * (1.0 - double(u) / options.updates));
    auto updateStart = std::chrono::steady_clock::now();
    std::vector<Episode> episodes;
    unsigned steps = 0, successes = 0, hits = 0;
    auto current = policy();
    for (unsigned i = 0; i < options.episodesPerUpdate; ++i) {
      const Task &task = tasks[(u * options.episodesPerUpdate + i) % tasks.size()];
      EpisodeOptions episodeOptions;
      episodeOptions.maxSteps = options.maxSteps;
      episodeOptions.epsilon = epsilon;
      episodeOptions.objective = objective;
      episodeOptions.seed = options.seed * 7919 + u * 1000 + i;
      Evaluator evaluator = evaluatorFor(task);
      Episode episode = runEpisode(task.kernel, *current, &evaluator, episodeOptions);
      steps += episode.steps.size();
      successes += episode.status == RunStatus::Ok;
      hits += episode.cached;
      if (!episode.steps.empty())
        episodes.push_back(std::move(episode));
    }
    PpoStats stats = ppoUpdate(network, optimizer, episodes, config, progress.entropyCoef,
                               options.seed + u);
    progress.entropyCoef *= config.entropyDecay;
    double mean = meanReward(episodes);
    progress.meanRewards.push_back(mean);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - updateStart).count();

    double validation = std::nan("");
    if ((u + 1) % options.validateEvery == 0 || u + 1 == options.updates) {
      auto greedy = policy();
      std::vector<Episode> runs;
      for (const Task &task : validationTasks) {
        EpisodeOptions episodeOptions;
        episodeOptions.maxSteps = options.maxSteps;
        episodeOptions.greedy = true;
        episodeOptions.objective = objective;
        Evaluator evaluator = evaluatorFor(task);
        runs.push_back(runEpisode(task.kernel, *greedy, &evaluator, episodeOptions));
      }
      validation = meanReward(runs);
      progress.validationPoints.emplace_back(u, validation);
      if (validation > progress.bestValidation) {
        progress.bestValidation = validation;
        progress.sinceImprovement = 0;
        ModelMetadata best = metadata;
        best.figures["validation_mean_reward"] = validation;
        best.figures["update"] = u + 1;
        if (llvm::Error error = saveModel(network, best, bestPath))
          return std::move(error);
      } else {
        ++progress.sinceImprovement;
      }
    }

    std::string line = llvm::formatv(
        "{0},{1},{2},{3:f2},{4:f4},{5:f4},{6:f3},{7:f3},{8:f4},{9:f4},{10},{11:f1}\n", u + 1,
        episodes.size(), steps, steps / std::max(seconds, 1e-9), mean, stats.entropy,
        double(successes) / std::max(1u, options.episodesPerUpdate),
        double(hits) / std::max(1u, options.episodesPerUpdate), stats.policyLoss,
        stats.valueLoss, std::isnan(validation) ? "" : llvm::formatv("{0:f4}", validation).str(),
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    {
      if (llvm::Error error = appendToFile(csvPath, line))
        return std::move(error);
      std::string record;
      llvm::raw_string_ostream jsonl(record);
      jsonl << llvm::json::Value(llvm::json::Object{
                   {"update", u + 1},
                   {"mean_reward", mean},
                   {"entropy", stats.entropy},
                   {"success_rate", double(successes) / std::max(1u, options.episodesPerUpdate)},
                   {"cache_hit_rate", double(hits) / std::max(1u, options.episodesPerUpdate)},
                   {"steps_per_s", steps / std::max(seconds, 1e-9)},
                   {"policy_loss", stats.policyLoss},
                   {"value_loss", stats.valueLoss},
                   {"validation_reward",
                    std::isnan(validation) ? llvm::json::Value(nullptr) : validation}})
            << "\n";
      if (llvm::Error error = appendToFile(jsonlPath, record))
        return std::move(error);
    }
    llvm::errs() << llvm::formatv(
        "update {0}/{1}: {2:f1} steps/s, mean reward {3:f3}, entropy {4:f2}, success {5:P0}, "
        "cache hits {6:P0}{7}\n",
        u + 1, options.updates, steps / std::max(seconds, 1e-9), mean, stats.entropy,
        double(successes) / std::max(1u, options.episodesPerUpdate),
        double(hits) / std::max(1u, options.episodesPerUpdate),
        std::isnan(validation) ? "" : llvm::formatv(", validation {0:f3}", validation).str());

    // A checkpoint also where the run stops early, so that a rerun knows
    // it is finished.
    if ((u + 1) % options.checkpointEvery == 0 || u + 1 == options.updates ||
        progress.sinceImprovement >= options.patience) {
      Progress saved = progress;
      saved.update = u + 1;
      saved.wallSeconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      // The progress goes into the checkpoint itself: a kill between two
      // files left weights without their progress, or with an older one.
      // progress.json is its copy for people and scripts.
      ModelMetadata checkpointed = metadata;
      checkpointed.figures["progress"] = toJSON(saved);
      if (llvm::Error error = saveModel(network, checkpointed, checkpoint))
        return std::move(error);
      try {
        torch::save(optimizer, optimizerPath + ".tmp");
        llvm::sys::fs::rename(optimizerPath + ".tmp", optimizerPath);
      } catch (const c10::Error &e) {
        return trainError(llvm::Twine("cannot save the optimizer: ") + e.what_without_backtrace());
      }
      std::string text;
      llvm::raw_string_ostream os(text);
      os << toJSON(saved);
      if (llvm::Error error = writeFileAtomically(progressPath, text))
        return std::move(error);
    }
    if (progress.sinceImprovement >= options.patience) {
      llvm::errs() << "early stop: validation reward has not improved for "
                   << options.patience << " validations\n";
      ++progress.update;
      break;
    }
  }

  // The final model is the best on validation (the last one if never validated).
  std::string modelPath = options.outDir + "/model.pt";
  if (llvm::sys::fs::exists(bestPath)) {
    if (std::error_code ec = llvm::sys::fs::copy_file(bestPath, modelPath))
      return trainError("cannot write '" + modelPath + "': " + ec.message());
  } else if (llvm::Error error = saveModel(network, metadata, modelPath)) {
    return std::move(error);
  }
  if (llvm::Error error = writeFileAtomically(options.outDir + "/learning-curve.svg",
                                              learningCurveSvg(progress.meanRewards,
                                                               progress.validationPoints,
                                                               objective)))
    return std::move(error);
  result.modelPath = modelPath;
  result.objective = objective;
  result.updates = progress.update;
  result.bestValidationReward = progress.bestValidation;
  if (!progress.meanRewards.empty()) {
    result.firstMeanReward = progress.meanRewards.front();
    result.lastMeanReward = progress.meanRewards.back();
  }
  return result;
}

} // namespace mqss
