//===- Store.h - SQLite store: measurements (and later trajectories) -------===//
//
// The embedded default store. Measurements are cached by the hash of the
// final lowered IR, the target and the input seed, so two action sequences
// that reach the same IR cost one measurement.
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_STORE_STORE_H
#define MQSS_STORE_STORE_H

#include "llvm/Support/Error.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <unistd.h>

struct sqlite3;
struct sqlite3_stmt;

namespace mqss {

/// The directory of mqss's caches (the store, the schedule library's copy):
/// $MQSS_CACHE_DIR, else $XDG_CACHE_HOME/mqss, else ~/.cache/mqss, else one
/// per user under /tmp (another user's could hold a transform script of
/// theirs). Inline: the mlir-opt plugin, which links no store, uses it too.
inline std::string cacheDirectory() {
  if (const char *dir = std::getenv("MQSS_CACHE_DIR"))
    return dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"))
    return std::string(xdg) + "/mqss";
  if (const char *home = std::getenv("HOME"))
    return std::string(home) + "/.cache/mqss";
  return "/tmp/mqss-cache-" + std::to_string(::getuid());
}

/// "WHAT: the database's last error message", for any code using the
/// store's SQLite handle (the served log, retrain).
llvm::Error sqliteError(sqlite3 *db, const llvm::Twine &what);

/// A prepared statement that finalizes itself.
struct SqliteStatement {
  SqliteStatement() = default;
  SqliteStatement(const SqliteStatement &) = delete;
  SqliteStatement &operator=(const SqliteStatement &) = delete;
  ~SqliteStatement();
  sqlite3_stmt *stmt = nullptr;
};

/// One cached measurement of a candidate against the `default` baseline.
struct CachedMeasurement {
  std::string irHash;
  std::string target;
  uint64_t seed = 0;
  std::string status;        ///< RunStatus name
  double runtimeMs = 0;      ///< candidate median
  double baselineMs = 0;     ///< default's median, same run
  double speedup = 0;        ///< median paired speedup over default
  std::string pipeline;      ///< what produced it (for replay)
  /// Compile (MLIR passes + JIT) times and object code sizes of the
  /// candidate and default; 0 in rows stored before they were recorded.
  double compileMs = 0, baselineCompileMs = 0;
  uint64_t codeBytes = 0, baselineCodeBytes = 0;
};

/// One episode as collected for training.
struct TrajectoryRecord {
  std::string kernel;   ///< registry name or file
  std::string target;
  std::string policy;   ///< "random", "epsilon:0.1:MODEL", ...
  std::string actions;  ///< comma-separated action names
  std::string status;
  double reward = 0;
  double speedup = 0;
  std::string stepsJson; ///< per step: features, mask, action, probability
};

class Store {
public:
  /// Opens (creating if needed) the database at \p path, with WAL journaling
  /// and a busy timeout so concurrent workers can share it.
  static llvm::Expected<std::unique_ptr<Store>> open(llvm::StringRef path);
  /// $MQSS_DB, else mqss.db in the cache directory.
  static std::string defaultPath();
  ~Store();

  llvm::Expected<std::optional<CachedMeasurement>>
  lookupMeasurement(llvm::StringRef irHash, llvm::StringRef target, uint64_t seed);
  llvm::Error putMeasurement(const CachedMeasurement &measurement);
  llvm::Expected<int64_t> countMeasurements();

  llvm::Error putTrajectory(const TrajectoryRecord &trajectory);

  sqlite3 *handle() { return db; }

private:
  explicit Store(sqlite3 *db) : db(db) {}
  sqlite3 *db;
};

} // namespace mqss

#endif // MQSS_STORE_STORE_H
