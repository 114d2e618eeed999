//===- Collect.cpp - `mqss collect`: trajectories into the store -----------===//

#include "mqss/Train/Collect.h"

#include "mqss/Env/Episode.h"
#include "mqss/Store/Store.h"
#include "mqss/Suite/Registry.h"
#include "mqss/Suite/SuiteRun.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <cstdio>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace mqss {

namespace {

/// One worker process: its share of the episodes, written as it goes and
/// counted in \p stored (shared with the parent).
int runWorker(unsigned worker, const CollectOptions &options,
              const std::vector<std::pair<BenchmarkEntry, std::string>> &tasks,
              std::atomic<unsigned> &stored) {
  auto store = Store::open(options.dbPath);
  if (!store) {
    llvm::errs() << llvm::toString(store.takeError()) << "\n";
    return 1;
  }
  std::unique_ptr<Policy> policy = createRandomPolicy();
  std::string policyName = "random";
  if (!options.modelPath.empty()) {
    auto loaded = loadPolicy(options.modelPath);
    if (!loaded) {
      llvm::errs() << llvm::toString(loaded.takeError()) << "\n";
      return 1;
    }
    policy = std::move(*loaded);
    policyName = llvm::formatv("epsilon:{0}:{1}", options.epsilon, options.modelPath).str();
  }
  size_t total = tasks.size() * options.episodesPerTask;
  for (size_t i = worker; i < total; i += options.workers) {
    const auto &[entry, target] = tasks[i % tasks.size()];
    SuiteRunOptions run;
    run.target = target;
    run.reps = options.reps;
    run.minTimeMs = options.minTimeMs;
    run.seed = options.seed;
    RunRequest kernel = requestFor(entry, run);
    Evaluator evaluator(kernel, store->get());
    EpisodeOptions episodeOptions;
    episodeOptions.maxSteps = options.maxSteps;
    episodeOptions.seed = options.seed * 1000003 + i;
    episodeOptions.epsilon = options.modelPath.empty() ? 0 : options.epsilon;
    Episode episode = runEpisode(kernel, *policy, &evaluator, episodeOptions);
    std::string actions;
    for (const Action *a : episode.actions)
      actions += (actions.empty() ? "" : ",") + a->name.str();
    TrajectoryRecord record{entry.name, target, policyName, actions,
                            runStatusName(episode.status).str(), episode.reward,
                            episode.speedup, episodeStepsJson(episode)};
    if (llvm::Error error = (*store)->putTrajectory(record)) {
      llvm::errs() << llvm::toString(std::move(error)) << "\n";
      return 1;
    }
    ++stored;
    llvm::errs() << llvm::formatv("[worker {0}] {1}/{2} {3} {4}: {5} reward {6:f3}\n", worker,
                                  i + 1, total, entry.name, target,
                                  runStatusName(episode.status), episode.reward);
  }
  return 0;
}
} // namespace

llvm::Expected<CollectResult> collect(const CollectOptions &options) {
  auto registry = Registry::load(options.registryPath.empty() ? Registry::defaultPath()
                                                              : options.registryPath);
  if (!registry)
    return registry.takeError();
  auto entries = registry->select({options.split, "", options.kernel, options.size});
  if (!entries)
    return entries.takeError();
  if (entries->empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no kernels match the selection");
  if (!options.modelPath.empty())
    if (auto model = loadPolicy(options.modelPath); !model)
      return model.takeError();
  CollectOptions resolved = options;
  if (resolved.dbPath.empty())
    resolved.dbPath = Store::defaultPath();
  resolved.workers = std::max(1u, options.workers);
  {
    // Opened here for its errors only: a connection must not cross fork(),
    // since SQLite's locks belong to the process that took them (a worker
    // outliving its parent then lost committed rows to the next reader).
    auto store = Store::open(resolved.dbPath);
    if (!store)
      return store.takeError();
  }

  std::vector<std::pair<BenchmarkEntry, std::string>> tasks;
  for (const std::string &target : options.targets)
    for (const BenchmarkEntry &entry : *entries)
      tasks.emplace_back(entry, target);

  // What the workers stored, counted by them: the store's row count would
  // take in other processes' rows.
  void *shared = mmap(nullptr, sizeof(std::atomic<unsigned>), PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED)
    return llvm::errorCodeToError(std::error_code(errno, std::generic_category()));
  auto *stored = new (shared) std::atomic<unsigned>(0);
  auto unmap = llvm::make_scope_exit([&] { munmap(shared, sizeof(std::atomic<unsigned>)); });

  auto start = std::chrono::steady_clock::now();
  std::fflush(nullptr);
  std::vector<pid_t> workers;
  pid_t parent = getpid();
  for (unsigned w = 0; w < resolved.workers; ++w) {
    pid_t pid = fork();
    if (pid < 0) {
      // The workers started stop with the command, as they would had it died.
      int saved = errno;
      for (pid_t started : workers) {
        ::kill(started, SIGKILL);
        while (waitpid(started, nullptr, 0) < 0 && errno == EINTR) {
        }
      }
      return llvm::createStringError(std::error_code(saved, std::generic_category()),
                                     "cannot start a worker process: " +
                                         std::string(std::strerror(saved)));
    }
    if (pid == 0) {
      // Workers end with the command: killed alone (by a supervisor), it
      // would otherwise leave them running on.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent)
        _exit(1);
      _exit(runWorker(w, resolved, tasks, *stored));
    }
    workers.push_back(pid);
  }
  CollectResult result;
  result.workers = workers.size();
  for (pid_t pid : workers) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      ++result.failedWorkers;
  }
  result.wallSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.episodes = stored->load();
  return result;
}

} // namespace mqss
