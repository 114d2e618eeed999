//===- Store.cpp - SQLite store ---------------------------------------------===//

#include "mqss/Store/Store.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>
#include <sqlite3.h>

namespace mqss {

llvm::Error sqliteError(sqlite3 *db, const llvm::Twine &what) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 what + ": " + (db ? sqlite3_errmsg(db) : "sqlite error"));
}

static const char *kSchema = R"sql(
CREATE TABLE IF NOT EXISTS measurements (
  ir_hash TEXT NOT NULL,
  target TEXT NOT NULL,
  seed INTEGER NOT NULL,
  status TEXT NOT NULL,
  runtime_ms REAL,
  baseline_ms REAL,
  speedup REAL,
  pipeline TEXT,
  created_at TEXT DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  compile_ms REAL,
  baseline_compile_ms REAL,
  code_bytes INTEGER,
  baseline_code_bytes INTEGER,
  PRIMARY KEY (ir_hash, target, seed)
);
CREATE TABLE IF NOT EXISTS trajectories (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kernel TEXT NOT NULL,
  target TEXT NOT NULL,
  policy TEXT NOT NULL,
  actions TEXT NOT NULL,
  status TEXT NOT NULL,
  reward REAL,
  speedup REAL,
  steps TEXT,
  created_at TEXT DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
)sql";

std::string Store::defaultPath() {
  if (const char *path = std::getenv("MQSS_DB"))
    return path;
  return cacheDirectory() + "/mqss.db";
}

llvm::Expected<std::unique_ptr<Store>> Store::open(llvm::StringRef path) {
  llvm::SmallString<256> dir(path);
  llvm::sys::path::remove_filename(dir);
  if (!dir.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(dir))
      return llvm::createStringError(ec, "cannot create '" + dir + "': " + ec.message());
  sqlite3 *db = nullptr;
  if (sqlite3_open(path.str().c_str(), &db) != SQLITE_OK) {
    llvm::Error error = sqliteError(db, "cannot open the store '" + path + "'");
    sqlite3_close(db);
    return std::move(error);
  }
  std::unique_ptr<Store> store(new Store(db));
  sqlite3_busy_timeout(db, 10000);
  char *message = nullptr;
  for (const char *sql : {"PRAGMA journal_mode=WAL;", kSchema}) {
    if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
      std::string text = message ? message : "unknown error";
      sqlite3_free(message);
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "cannot initialise the store '" + path + "': " + text);
    }
  }
  // Stores written before the cost columns existed gain them (NULL: unknown).
  for (const char *column : {"compile_ms REAL", "baseline_compile_ms REAL",
                             "code_bytes INTEGER", "baseline_code_bytes INTEGER"}) {
    std::string sql = std::string("ALTER TABLE measurements ADD COLUMN ") + column;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
      std::string text = message ? message : "unknown error";
      sqlite3_free(message);
      if (text.find("duplicate column") == std::string::npos)
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "cannot upgrade the store '" + path + "': " + text);
    }
  }
  return store;
}

Store::~Store() { sqlite3_close(db); }

SqliteStatement::~SqliteStatement() { sqlite3_finalize(stmt); }

llvm::Expected<std::optional<CachedMeasurement>>
Store::lookupMeasurement(llvm::StringRef irHash, llvm::StringRef target, uint64_t seed) {
  SqliteStatement s;
  const char *sql = "SELECT status, runtime_ms, baseline_ms, speedup, pipeline, compile_ms, "
                    "baseline_compile_ms, code_bytes, baseline_code_bytes FROM "
                    "measurements WHERE ir_hash = ?1 AND target = ?2 AND seed = ?3";
  if (sqlite3_prepare_v2(db, sql, -1, &s.stmt, nullptr) != SQLITE_OK)
    return sqliteError(db, "cannot query measurements");
  sqlite3_bind_text(s.stmt, 1, irHash.data(), irHash.size(), SQLITE_TRANSIENT);
  sqlite3_bind_text(s.stmt, 2, target.data(), target.size(), SQLITE_TRANSIENT);
  sqlite3_bind_int64(s.stmt, 3, static_cast<sqlite3_int64>(seed));
  int rc = sqlite3_step(s.stmt);
  if (rc == SQLITE_DONE)
    return std::nullopt;
  if (rc != SQLITE_ROW)
    return sqliteError(db, "cannot query measurements");
  CachedMeasurement m;
  m.irHash = irHash.str();
  m.target = target.str();
  m.seed = seed;
  m.status = reinterpret_cast<const char *>(sqlite3_column_text(s.stmt, 0));
  m.runtimeMs = sqlite3_column_double(s.stmt, 1);
  m.baselineMs = sqlite3_column_double(s.stmt, 2);
  m.speedup = sqlite3_column_double(s.stmt, 3);
  if (const unsigned char *text = sqlite3_column_text(s.stmt, 4))
    m.pipeline = reinterpret_cast<const char *>(text);
  m.compileMs = sqlite3_column_double(s.stmt, 5); // NULL reads as 0: unknown
  m.baselineCompileMs = sqlite3_column_double(s.stmt, 6);
  m.codeBytes = static_cast<uint64_t>(sqlite3_column_int64(s.stmt, 7));
  m.baselineCodeBytes = static_cast<uint64_t>(sqlite3_column_int64(s.stmt, 8));
  return m;
}

llvm::Error Store::putMeasurement(const CachedMeasurement &m) {
  SqliteStatement s;
  const char *sql = "INSERT OR REPLACE INTO measurements (ir_hash, target, seed, status, "
                    "runtime_ms, baseline_ms, speedup, pipeline, compile_ms, "
                    "baseline_compile_ms, code_bytes, baseline_code_bytes) VALUES (?1, ?2, ?3, "
                    "?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)";
  if (sqlite3_prepare_v2(db, sql, -1, &s.stmt, nullptr) != SQLITE_OK)
    return sqliteError(db, "cannot store a measurement");
  sqlite3_bind_text(s.stmt, 1, m.irHash.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s.stmt, 2, m.target.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(s.stmt, 3, static_cast<sqlite3_int64>(m.seed));
  sqlite3_bind_text(s.stmt, 4, m.status.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_double(s.stmt, 5, m.runtimeMs);
  sqlite3_bind_double(s.stmt, 6, m.baselineMs);
  sqlite3_bind_double(s.stmt, 7, m.speedup);
  sqlite3_bind_text(s.stmt, 8, m.pipeline.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_double(s.stmt, 9, m.compileMs);
  sqlite3_bind_double(s.stmt, 10, m.baselineCompileMs);
  sqlite3_bind_int64(s.stmt, 11, static_cast<sqlite3_int64>(m.codeBytes));
  sqlite3_bind_int64(s.stmt, 12, static_cast<sqlite3_int64>(m.baselineCodeBytes));
  if (sqlite3_step(s.stmt) != SQLITE_DONE)
    return sqliteError(db, "cannot store a measurement");
  return llvm::Error::success();
}

static llvm::Expected<int64_t> countRows(sqlite3 *db, const char *table) {
  SqliteStatement s;
  std::string sql = std::string("SELECT COUNT(*) FROM ") + table;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s.stmt, nullptr) != SQLITE_OK ||
      sqlite3_step(s.stmt) != SQLITE_ROW)
    return sqliteError(db, llvm::Twine("cannot count ") + table);
  return sqlite3_column_int64(s.stmt, 0);
}

llvm::Expected<int64_t> Store::countMeasurements() { return countRows(db, "measurements"); }

llvm::Error Store::putTrajectory(const TrajectoryRecord &t) {
  SqliteStatement s;
  const char *sql = "INSERT INTO trajectories (kernel, target, policy, actions, status, reward, "
                    "speedup, steps) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";
  if (sqlite3_prepare_v2(db, sql, -1, &s.stmt, nullptr) != SQLITE_OK)
    return sqliteError(db, "cannot store a trajectory");
  const std::string *texts[] = {&t.kernel, &t.target, &t.policy, &t.actions, &t.status};
  for (int i = 0; i < 5; ++i)
    sqlite3_bind_text(s.stmt, i + 1, texts[i]->c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_double(s.stmt, 6, t.reward);
  sqlite3_bind_double(s.stmt, 7, t.speedup);
  sqlite3_bind_text(s.stmt, 8, t.stepsJson.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(s.stmt) != SQLITE_DONE)
    return sqliteError(db, "cannot store a trajectory");
  return llvm::Error::success();
}

} // namespace mqss
