//===- ServedLog.cpp - The `served` table and the dashboard's figures ------===//

#include "mqss/Serve/ServedLog.h"

#include "mqss/Store/Store.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <map>
#include <sqlite3.h>

namespace mqss {


llvm::Error createServedTable(sqlite3 *db) {
  const char *sql = R"sql(
CREATE TABLE IF NOT EXISTS served (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  unix_time REAL NOT NULL,
  endpoint TEXT NOT NULL,
  target TEXT NOT NULL,
  ir_hash TEXT,
  actions TEXT NOT NULL,
  confidence REAL,
  explored INTEGER NOT NULL DEFAULT 0,
  fallback INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL,
  baseline_ms REAL,
  chosen_ms REAL,
  speedup REAL,
  reward REAL,
  trajectory_id INTEGER,
  state TEXT
);
CREATE INDEX IF NOT EXISTS served_time ON served(unix_time);
)sql";
  if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK)
    return sqliteError(db, "cannot create the served table");
  return llvm::Error::success();
}

llvm::Expected<int64_t> putServed(sqlite3 *db, const ServedRecord &r) {
  SqliteStatement s;
  const char *sql = "INSERT INTO served (unix_time, endpoint, target, ir_hash, actions, "
                    "confidence, explored, fallback, status, baseline_ms, chosen_ms, speedup, "
                    "reward, trajectory_id, state) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
  if (sqlite3_prepare_v2(db, sql, -1, &s.stmt, nullptr) != SQLITE_OK)
    return sqliteError(db, "cannot record the request");
  sqlite3_bind_double(s.stmt, 1, r.unixTime);
  sqlite3_bind_text(s.stmt, 2, r.endpoint.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s.stmt, 3, r.target.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s.stmt, 4, r.irHash.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s.stmt, 5, r.actions.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_double(s.stmt, 6, r.confidence);
  sqlite3_bind_int(s.stmt, 7, r.explored);
  sqlite3_bind_int(s.stmt, 8, r.fallback);
  sqlite3_bind_text(s.stmt, 9, r.status.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_double(s.stmt, 10, r.baselineMs);
  sqlite3_bind_double(s.stmt, 11, r.chosenMs);
  sqlite3_bind_double(s.stmt, 12, r.speedup);
  if (r.reward)
    sqlite3_bind_double(s.stmt, 13, *r.reward);
  else
    sqlite3_bind_null(s.stmt, 13);
  if (r.trajectoryId)
    sqlite3_bind_int64(s.stmt, 14, *r.trajectoryId);
  else
    sqlite3_bind_null(s.stmt, 14);
  sqlite3_bind_text(s.stmt, 15, r.stateJson.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(s.stmt) != SQLITE_DONE)
    return sqliteError(db, "cannot record the request");
  return sqlite3_last_insert_rowid(db);
}

llvm::Expected<llvm::json::Object> servedStats(sqlite3 *db,
                                               const std::vector<std::string> &fallbacks) {
  SqliteStatement s;
  const char *sql = "SELECT unix_time, target, actions, status, speedup, trajectory_id "
                    "FROM served ORDER BY unix_time, id";
  if (sqlite3_prepare_v2(db, sql, -1, &s.stmt, nullptr) != SQLITE_OK)
    return sqliteError(db, "cannot read the served table");

  struct Tally {
    int64_t measured = 0, wins = 0;
    double improvement = 0;
  };
  Tally all;
  int64_t requests = 0;
  std::map<std::string, Tally> perTarget;
  std::map<std::string, int64_t> passes;
  llvm::json::Array timeline;
  int rc;
  while ((rc = sqlite3_step(s.stmt)) == SQLITE_ROW) {
    ++requests;
    double time = sqlite3_column_double(s.stmt, 0);
    std::string target = reinterpret_cast<const char *>(sqlite3_column_text(s.stmt, 1));
    llvm::StringRef actions = reinterpret_cast<const char *>(sqlite3_column_text(s.stmt, 2));
    llvm::StringRef status = reinterpret_cast<const char *>(sqlite3_column_text(s.stmt, 3));
    double speedup = sqlite3_column_double(s.stmt, 4);
    llvm::SmallVector<llvm::StringRef> names;
    actions.split(names, ',', -1, false);
    for (llvm::StringRef name : names)
      if (!name.starts_with("finish-"))
        ++passes[name.str()];
    // Measured requests the policy played: a small kernel served
    // `default`'s plan is measured against itself, which no plan can beat.
    bool played = sqlite3_column_type(s.stmt, 5) != SQLITE_NULL;
    if (status != "ok" || speedup <= 0 || !played)
      continue;
    for (Tally *tally : {&all, &perTarget[target]}) {
      ++tally->measured;
      tally->wins += speedup > 1.0;
      tally->improvement += speedup - 1.0;
    }
    timeline.push_back(llvm::json::Object{{"t", time}, {"speedup", speedup}, {"target", target}});
  }
  if (rc != SQLITE_DONE)
    return sqliteError(db, "cannot read the served table");

  auto rate = [](const Tally &t) { return t.measured ? double(t.wins) / t.measured : 0.0; };
  auto mean = [](const Tally &t) { return t.measured ? t.improvement / t.measured : 0.0; };
  llvm::json::Array targets;
  for (const auto &[target, tally] : perTarget)
    targets.push_back(llvm::json::Object{
        {"target", target},
        {"measured", tally.measured},
        {"win_rate", rate(tally)},
        {"average_improvement", mean(tally)},
        {"fallback", llvm::is_contained(fallbacks, target)}});
  std::vector<std::pair<std::string, int64_t>> ranked(passes.begin(), passes.end());
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto &a, const auto &b) { return a.second > b.second; });
  llvm::json::Array top;
  for (size_t i = 0; i < std::min<size_t>(5, ranked.size()); ++i)
    top.push_back(llvm::json::Object{{"action", ranked[i].first}, {"count", ranked[i].second}});
  return llvm::json::Object{{"requests", requests},
                            {"measured", all.measured},
                            {"win_rate", rate(all)},
                            {"average_improvement", mean(all)},
                            {"per_target", std::move(targets)},
                            {"top_passes", std::move(top)},
                            {"timeline", std::move(timeline)}};
}

} // namespace mqss
