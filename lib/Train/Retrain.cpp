//===- Retrain.cpp - Fine-tune on served trajectories, compare, promote ----===//

#include "mqss/Train/Retrain.h"

#include "mqss/Env/Episode.h"
#include "mqss/Policy/Network.h"
#include "mqss/Store/Store.h"
#include "mqss/Suite/SuiteRun.h"
#include "mqss/Train/Ppo.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <chrono>
#include <cmath>
#include <sqlite3.h>

namespace mqss {

namespace {
llvm::Error retrainError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The served episodes logged since \p sinceSeconds ago, as PPO episodes.
llvm::Expected<std::vector<Episode>> servedEpisodes(Store &store, double sinceSeconds) {
  sqlite3 *db = store.handle();
  SqliteStatement s;
  const char *sql = "SELECT steps, reward, status FROM trajectories WHERE policy LIKE 'serve:%' "
                    "AND julianday(created_at) >= julianday('now') - ?1 / 86400.0 ORDER BY id";
  if (sqlite3_prepare_v2(db, sql, -1, &s.stmt, nullptr) != SQLITE_OK)
    return sqliteError(db, "cannot read trajectories");
  sqlite3_stmt *stmt = s.stmt;
  sqlite3_bind_double(stmt, 1, sinceSeconds);
  std::vector<Episode> episodes;
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    const char *steps = reinterpret_cast<const char *>(sqlite3_column_text(stmt, 0));
    auto parsed = parseEpisodeSteps(steps ? steps : "[]");
    if (!parsed) {
      llvm::consumeError(parsed.takeError()); // from another build: not usable
      continue;
    }
    if (parsed->empty())
      continue;
    Episode episode;
    episode.steps = std::move(*parsed);
    episode.reward = sqlite3_column_double(stmt, 1);
    episodes.push_back(std::move(episode));
  }
  return episodes;
}

struct Score {
  double geomean = 0, meanReward = 0;
  unsigned failures = 0;
};

/// The greedy policy of \p modelPath on every task, measured against default.
llvm::Expected<Score> score(llvm::StringRef modelPath, const std::vector<RunRequest> &tasks,
                            Store &store, llvm::StringRef label) {
  auto policy = loadPolicy(modelPath);
  if (!policy)
    return policy.takeError();
  Score s;
  double logSum = 0;
  unsigned measured = 0;
  for (size_t i = 0; i < tasks.size(); ++i) {
    Evaluator evaluator(tasks[i], &store);
    EpisodeOptions options;
    options.greedy = true;
    Episode episode = runEpisode(tasks[i], **policy, &evaluator, options);
    s.meanReward += episode.reward;
    if (episode.status != RunStatus::Ok || episode.speedup <= 0) {
      ++s.failures;
    } else {
      logSum += std::log(episode.speedup);
      ++measured;
    }
    llvm::errs() << llvm::formatv("  [{0} {1}/{2}] {3} on {4}: {5}\n", label, i + 1, tasks.size(),
                                  llvm::sys::path::filename(tasks[i].inputPath), tasks[i].target,
                                  episode.status == RunStatus::Ok
                                      ? llvm::formatv("{0:F3}x", episode.speedup).str()
                                      : std::string(runStatusName(episode.status)));
  }
  s.meanReward = tasks.empty() ? 0 : s.meanReward / tasks.size();
  s.geomean = measured ? std::exp(logSum / measured) : 0;
  return s;
}

llvm::Error recordRun(Store &store, const RetrainOptions &options, const RetrainResult &r) {
  sqlite3 *db = store.handle();
  const char *create = "CREATE TABLE IF NOT EXISTS retrain_runs (id INTEGER PRIMARY KEY "
                       "AUTOINCREMENT, created_at TEXT DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', "
                       "'now')), model TEXT, candidate TEXT, trajectories INTEGER, tasks INTEGER, "
                       "current_geomean REAL, candidate_geomean REAL, current_failures INTEGER, "
                       "candidate_failures INTEGER, promoted INTEGER, reason TEXT, command TEXT)";
  if (sqlite3_exec(db, create, nullptr, nullptr, nullptr) != SQLITE_OK)
    return sqliteError(db, "cannot record the comparison");
  SqliteStatement s;
  const char *insert = "INSERT INTO retrain_runs (model, candidate, trajectories, tasks, "
                       "current_geomean, candidate_geomean, current_failures, candidate_failures, "
                       "promoted, reason, command) VALUES (?,?,?,?,?,?,?,?,?,?,?)";
  if (sqlite3_prepare_v2(db, insert, -1, &s.stmt, nullptr) != SQLITE_OK)
    return sqliteError(db, "cannot record the comparison");
  sqlite3_stmt *stmt = s.stmt;
  sqlite3_bind_text(stmt, 1, options.modelPath.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(stmt, 2, r.candidatePath.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int(stmt, 3, r.trajectories);
  sqlite3_bind_int(stmt, 4, r.tasks);
  sqlite3_bind_double(stmt, 5, r.currentGeomean);
  sqlite3_bind_double(stmt, 6, r.candidateGeomean);
  sqlite3_bind_int(stmt, 7, r.currentFailures);
  sqlite3_bind_int(stmt, 8, r.candidateFailures);
  sqlite3_bind_int(stmt, 9, r.promoted);
  sqlite3_bind_text(stmt, 10, r.reason.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(stmt, 11, options.command.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(stmt) != SQLITE_DONE)
    return sqliteError(db, "cannot record the comparison");
  return llvm::Error::success();
}

/// Replaces \p target by \p source atomically, keeping the old file as .previous.
llvm::Error promoteFile(llvm::StringRef source, llvm::StringRef target) {
  std::string staging = (target + ".incoming").str();
  if (std::error_code ec = llvm::sys::fs::copy_file(source, staging))
    return retrainError("cannot copy the candidate: " + ec.message());
  if (llvm::sys::fs::exists(target))
    if (std::error_code ec = llvm::sys::fs::copy_file(target, (target + ".previous").str()))
      return retrainError("cannot keep the current model: " + ec.message());
  if (std::error_code ec = llvm::sys::fs::rename(staging, target))
    return retrainError("cannot replace '" + target + "': " + ec.message());
  return llvm::Error::success();
}
} // namespace

llvm::Expected<double> parseDuration(llvm::StringRef text) {
  double scale = 1;
  llvm::StringRef number = text.trim();
  if (number.consume_back("d"))
    scale = 86400;
  else if (number.consume_back("h"))
    scale = 3600;
  else if (number.consume_back("m"))
    scale = 60;
  else
    number.consume_back("s");
  double value = 0;
  if (number.getAsDouble(value) || value < 0)
    return retrainError("'" + text + "' is not a duration (e.g. 24h, 30m, 90s, 2d)");
  return value * scale;
}

llvm::json::Object RetrainResult::toJSON() const {
  return llvm::json::Object{
      {"trajectories", trajectories},
      {"candidate", candidatePath},
      {"tasks", tasks},
      {"current", llvm::json::Object{{"geomean_vs_default", currentGeomean},
                                     {"mean_reward", currentMeanReward},
                                     {"failures", currentFailures}}},
      {"candidate_scores", llvm::json::Object{{"geomean_vs_default", candidateGeomean},
                                              {"mean_reward", candidateMeanReward},
                                              {"failures", candidateFailures}}},
      {"promoted", promoted},
      {"reason", reason}};
}

llvm::Expected<RetrainResult> retrain(const RetrainOptions &given) {
  RetrainOptions options = given;
  if (options.modelPath.empty())
    options.modelPath = defaultModelPath();
  configureTorchThreads();
  torch::manual_seed(options.seed);
  std::string dbPath = options.dbPath.empty() ? Store::defaultPath() : options.dbPath;
  // Served traffic is read, not made: a mistyped --db made an empty store
  // (and its directories), then found nothing served.
  if (options.candidatePath.empty() && !llvm::sys::fs::exists(dbPath))
    return retrainError("no store at '" + dbPath + "' to learn from: give the --db that "
                        "`mqss serve` logs to");
  auto store = Store::open(dbPath);
  if (!store)
    return store.takeError();
  // The comparison's kernels, before fine-tuning: a --split that selects
  // none was found only after a candidate had been written.
  SuiteRunOptions run;
  run.reps = options.reps;
  run.minTimeMs = options.minTimeMs;
  run.seed = options.seed;
  auto suite = suiteTasks(options.registryPath,
                          {options.split, "", options.kernel, options.size}, options.targets, run);
  if (!suite)
    return suite.takeError();
  std::vector<RunRequest> tasks;
  for (const SuiteTask &task : *suite)
    tasks.push_back(task.kernel);
  if (tasks.empty())
    return retrainError("no kernels to compare on in split '" + options.split + "'");

  RetrainResult result;
  auto current = loadModel(options.modelPath);
  if (!current)
    return current.takeError();
  if (!options.candidatePath.empty()) {
    // Checked now, not after the current model was measured on the split.
    if (auto candidate = loadModel(options.candidatePath); !candidate)
      return candidate.takeError();
    result.candidatePath = options.candidatePath;
  } else {
    auto episodes = servedEpisodes(**store, options.sinceSeconds);
    if (!episodes)
      return episodes.takeError();
    result.trajectories = episodes->size();
    if (episodes->empty())
      return retrainError(llvm::formatv("no served trajectories in the last {0} s: nothing to "
                                        "learn from (measured /v1/optimize requests log them)",
                                        options.sinceSeconds));
    // The candidate starts as a copy of the current network.
    auto &[network, metadata] = *current;
    ActorCritic candidate(metadata.numFeatures, metadata.numActions, metadata.hidden);
    {
      torch::NoGradGuard noGrad;
      auto from = network->parameters();
      auto to = candidate->parameters();
      for (size_t i = 0; i < from.size(); ++i)
        to[i].copy_(from[i]);
      // The critic's estimates of the logged states, for the advantages.
      for (Episode &episode : *episodes)
        for (EpisodeStep &step : episode.steps) {
          torch::Tensor features =
              torch::from_blob(step.features.data(), {1, long(kNumFeatures)}).clone();
          step.value = network->forward(features).second.item<float>();
        }
    }
    candidate->train();
    torch::optim::Adam optimizer(candidate->parameters(),
                                 torch::optim::AdamOptions(options.learningRate));
    PpoConfig config;
    config.epochs = options.epochs;
    PpoStats stats = ppoUpdate(candidate, optimizer, *episodes, config, 0.01f, options.seed);
    candidate->eval();
    ModelMetadata candidateMetadata = metadata;
    candidateMetadata.trainingCommand = metadata.trainingCommand + " ; " + options.command;
    candidateMetadata.figures["retrain_trajectories"] = int64_t(episodes->size());
    candidateMetadata.figures["retrain_policy_loss"] = stats.policyLoss;
    result.candidatePath =
        options.outPath.empty() ? options.modelPath + ".candidate" : options.outPath;
    if (llvm::Error error = saveModel(candidate, candidateMetadata, result.candidatePath))
      return std::move(error);
    llvm::errs() << llvm::formatv("retrain: fine-tuned on {0} served trajectories (policy loss "
                                  "{1:F4}, approx KL {2:F4}) -> {3}\n",
                                  episodes->size(), stats.policyLoss, stats.approxKl,
                                  result.candidatePath);
  }

  // A/B on the validation split.
  result.tasks = tasks.size();
  llvm::errs() << llvm::formatv("retrain: comparing current and candidate on {0} tasks ({1})\n",
                                tasks.size(), options.split);
  auto currentScore = score(options.modelPath, tasks, **store, "current");
  if (!currentScore)
    return currentScore.takeError();
  auto candidateScore = score(result.candidatePath, tasks, **store, "candidate");
  if (!candidateScore)
    return candidateScore.takeError();
  result.currentGeomean = currentScore->geomean;
  result.candidateGeomean = candidateScore->geomean;
  result.currentMeanReward = currentScore->meanReward;
  result.candidateMeanReward = candidateScore->meanReward;
  result.currentFailures = currentScore->failures;
  result.candidateFailures = candidateScore->failures;

  bool noWorse = result.candidateGeomean >= result.currentGeomean * (1 - options.tolerance) &&
                 result.candidateFailures <= result.currentFailures;
  if (!noWorse) {
    result.reason = llvm::formatv("candidate regresses: geomean {0:F3}x vs {1:F3}x, failures "
                                  "{2} vs {3}",
                                  result.candidateGeomean, result.currentGeomean,
                                  result.candidateFailures, result.currentFailures);
  } else if (!options.promote) {
    result.reason = "candidate does not regress; not promoted (--no-promote)";
  } else if (llvm::Error error = promoteFile(result.candidatePath, options.modelPath)) {
    return std::move(error);
  } else {
    result.promoted = true;
    result.reason = llvm::formatv("candidate does not regress: geomean {0:F3}x vs {1:F3}x, "
                                  "failures {2} vs {3}",
                                  result.candidateGeomean, result.currentGeomean,
                                  result.candidateFailures, result.currentFailures);
  }
  if (llvm::Error error = recordRun(**store, options, result))
    return std::move(error);
  return result;
}

} // namespace mqss
