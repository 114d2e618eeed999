//===- Metrics.h - Prometheus counters, gauges and histograms --------------===//
//
// A small thread-safe registry rendered in the Prometheus text exposition
// format (version 0.0.4) for `GET /metrics`.
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_SERVE_METRICS_H
#define MQSS_SERVE_METRICS_H

#include "llvm/ADT/StringRef.h"

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace mqss {

/// Label pairs in a fixed order, e.g. {{"endpoint", "/v1/select"}, {"code", "200"}}.
using Labels = std::vector<std::pair<std::string, std::string>>;

class Metrics {
public:
  /// Declares a metric with its help text; \p type is counter, gauge or histogram.
  void declare(llvm::StringRef name, llvm::StringRef type, llvm::StringRef help,
               std::vector<double> buckets = {});
  void increment(llvm::StringRef name, const Labels &labels = {}, double by = 1);
  void set(llvm::StringRef name, const Labels &labels, double value);
  void observe(llvm::StringRef name, const Labels &labels, double value);
  /// The current value of a counter or gauge (0 if never touched).
  double value(llvm::StringRef name, const Labels &labels = {}) const;
  std::string render() const;

  /// Latency buckets in seconds, 100 us to 10 s.
  static std::vector<double> latencyBuckets();

private:
  struct Histogram {
    std::vector<uint64_t> counts; ///< per bucket, not cumulative
    uint64_t count = 0;
    double sum = 0;
  };
  struct Family {
    std::string type, help;
    std::vector<double> buckets;
    std::map<Labels, double> values;
    std::map<Labels, Histogram> histograms;
  };
  mutable std::mutex mutex;
  std::map<std::string, Family, std::less<>> families;
};

} // namespace mqss

#endif // MQSS_SERVE_METRICS_H
