//===- Stats.h - Robust summaries of timing samples ------------------------===//
#ifndef MQSS_RUNTIME_STATS_H
#define MQSS_RUNTIME_STATS_H

#include <vector>

namespace mqss {

/// Median and median absolute deviation: robust to the outliers a shared
/// machine produces, unlike mean and standard deviation.
struct SampleSummary {
  double median = 0;
  double mad = 0;
  double min = 0;
  double max = 0;
  std::vector<double> samples;
};

SampleSummary summarize(std::vector<double> samples);

/// Speedup of candidate over baseline from paired samples (baseline_i /
/// candidate_i, taken from the same A/B round): the median ratio and a
/// distribution-free confidence interval for it from order statistics.
struct SpeedupSummary {
  double median = 0;
  double ciLow = 0;
  double ciHigh = 0;
  double confidence = 0.95;
};

SpeedupSummary pairedSpeedup(const std::vector<double> &baseline,
                             const std::vector<double> &candidate,
                             double confidence = 0.95);

double median(std::vector<double> values);

} // namespace mqss

#endif // MQSS_RUNTIME_STATS_H
