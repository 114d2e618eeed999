//===- ServedLog.h - What the service decided and measured, in the store ---===//
//
// One row per served request that chose a pipeline (table `served` in the
// same SQLite file as the measurement cache and the trajectories): the
// decision record (actions, confidence, whether it explored or fell back)
// and, when measured, the baseline's and the chosen pipeline's runtimes.
// The dashboard's figures are computed from it.
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_SERVE_SERVEDLOG_H
#define MQSS_SERVE_SERVEDLOG_H

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>

struct sqlite3;

namespace mqss {

struct ServedRecord {
  double unixTime = 0;
  std::string endpoint;
  std::string target;
  std::string irHash;
  std::string actions; ///< comma-separated
  double confidence = 0; ///< product of the chosen actions' probabilities
  bool explored = false;
  bool fallback = false;
  std::string status = "ok"; ///< RunStatus name, or "unmeasured"
  double baselineMs = 0, chosenMs = 0, speedup = 0;
  /// The episode's reward; none where the reply carries none (the
  /// client's input at fault, a small kernel served `default`'s plan).
  std::optional<double> reward;
  /// The episode the policy played, logged as a trajectory; none where it
  /// played none.
  std::optional<int64_t> trajectoryId;
  std::string stateJson; ///< the first decision's state vector
};

/// Creates the table if needed. \p db stays owned by the caller.
llvm::Error createServedTable(sqlite3 *db);
llvm::Expected<int64_t> putServed(sqlite3 *db, const ServedRecord &record);

/// The dashboard's figures (see `GET /v1/stats` in docs/Serving.md).
/// \p fallbacks names the targets currently on their fallback pipelines.
llvm::Expected<llvm::json::Object> servedStats(sqlite3 *db,
                                               const std::vector<std::string> &fallbacks);

} // namespace mqss

#endif // MQSS_SERVE_SERVEDLOG_H
