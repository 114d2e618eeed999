//===- Service.h - `mqss serve`'s request handling, without HTTP -----------===//
//
// Each endpoint is a function from a JSON request to a status and a JSON
// reply, so the HTTP layer (Server.cpp) stays thin. Every worker thread has
// its own MLIRContext, selectors and store connection. Parsing and the
// policy's first decision run in the worker; anything that runs passes or
// JIT-compiles untrusted IR runs in a sandboxed child, so a module that
// crashes a pass costs an error reply, not the server.
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_SERVE_SERVICE_H
#define MQSS_SERVE_SERVICE_H

#include "mqss/Serve/Metrics.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <atomic>
#include <list>
#include <optional>
#include <unordered_map>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <variant>

namespace mqss {

struct LoadedModel;

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 8470; ///< 0: any free port
  std::string modelPath; ///< empty: the shipped model
  std::string dbPath;    ///< empty: Store::defaultPath()
  std::string token;     ///< empty: no authentication
  unsigned threads = 2;
  double explore = 0.05; ///< probability of an exploratory action in measured optimizes
  /// A kernel below the model's training range gets `default`'s plan, as
  /// `mqss select --small-kernels=default` gives it; false: the policy's.
  bool smallKernelsToDefault = true;
  uint64_t maxBodyBytes = 8ull << 20;
  double readTimeoutSeconds = 5;
  double childTimeoutSeconds = 60;
  uint64_t childMemoryBytes = 4ull << 30;
  /// Measurement settings of /v1/optimize with "measure": true.
  unsigned measureReps = 5;
  double measureMinTimeMs = 50;
  uint64_t seed = 1;
  std::string dashboardDir;
};

struct Reply {
  int status = 200;
  llvm::json::Value body = llvm::json::Object{};
};

/// Replies of /v1/select by request key, least recently used evicted: a
/// build that recompiles the same module gets its decision without a parse.
class DecisionCache {
public:
  explicit DecisionCache(size_t capacity) : capacity(capacity) {}
  std::optional<llvm::json::Object> lookup(const std::string &key);
  void insert(const std::string &key, const llvm::json::Object &reply);

private:
  std::mutex mutex;
  size_t capacity;
  std::list<std::pair<std::string, llvm::json::Object>> entries;
  std::unordered_map<std::string, decltype(entries)::iterator> index;
};

class Service {
public:
  /// Loads the model (refusing an unusable one) and opens the store.
  static llvm::Expected<std::unique_ptr<Service>> create(const ServeOptions &options);
  ~Service();

  Reply select(llvm::StringRef body);
  Reply pipeline(llvm::StringRef body);
  Reply optimize(llvm::StringRef body);
  Reply stats();
  Reply health();
  /// Re-reads the model (at \p path, else the current path) and swaps it in
  /// for the following requests; the old one stays if the new one is refused.
  Reply reload(llvm::StringRef body = "");

  Metrics &metrics() { return registry; }
  const ServeOptions &options() const { return opts; }

  /// Per-target safety net: after 3 measured episodes in a row below -0.5 the
  /// target is served `default` (or the family's expert pipeline) until two
  /// measured episodes in a row come out at or above 0.
  bool inFallback(llvm::StringRef target);
  void recordReward(llvm::StringRef target, double reward);

  /// A worker thread's state (defined in Service.cpp).
  struct Worker;

  /// A checked request body, and one with its module parsed (Service.cpp).
  struct Request;
  struct Prepared;

private:
  explicit Service(ServeOptions options);
  Worker &worker();
  std::variant<Prepared, Reply> prepare(llvm::StringRef body, bool allowPrevious);
  std::variant<Prepared, Reply> prepare(Request request, bool allowPrevious);
  std::vector<std::string> fallbackTargets();
  Reply childFailed(const Prepared &p, llvm::Error failure) const;

  ServeOptions opts;
  Metrics registry;
  std::mutex modelMutex;
  std::string modelPath;
  /// modelPath's contents as last (re)loaded: workers make their selectors
  /// from them, not from the file, which may have changed since.
  std::shared_ptr<const LoadedModel> model;
  std::atomic<uint64_t> modelVersion{1};
  std::mutex netMutex;
  struct TargetHealth {
    unsigned bad = 0, good = 0;
    bool fallback = false;
  };
  std::map<std::string, TargetHealth, std::less<>> health_;
  std::atomic<uint64_t> requestCounter{0};
  DecisionCache decisions{4096};
  double startTime = 0;
};

} // namespace mqss

#endif // MQSS_SERVE_SERVICE_H
