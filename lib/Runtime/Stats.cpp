//===- Stats.cpp - Robust summaries of timing samples ----------------------===//

#include "mqss/Runtime/Stats.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace mqss {

double median(std::vector<double> values) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

SampleSummary summarize(std::vector<double> samples) {
  SampleSummary summary;
  if (samples.empty())
    return summary;
  summary.median = median(samples);
  std::vector<double> deviations;
  deviations.reserve(samples.size());
  for (double s : samples)
    deviations.push_back(std::fabs(s - summary.median));
  summary.mad = median(std::move(deviations));
  auto [lo, hi] = std::minmax_element(samples.begin(), samples.end());
  summary.min = *lo;
  summary.max = *hi;
  summary.samples = std::move(samples);
  return summary;
}

SpeedupSummary pairedSpeedup(const std::vector<double> &baseline,
                             const std::vector<double> &candidate,
                             double confidence) {
  assert(baseline.size() == candidate.size() && "samples must be paired");
  SpeedupSummary summary;
  summary.confidence = confidence;
  std::vector<double> ratios;
  for (size_t i = 0; i < baseline.size(); ++i)
    if (candidate[i] > 0)
      ratios.push_back(baseline[i] / candidate[i]);
  if (ratios.empty())
    return summary;
  std::sort(ratios.begin(), ratios.end());
  size_t n = ratios.size();
  summary.median = median(ratios);

  // The interval [r_(k), r_(n-k+1)] (1-based order statistics) covers the
  // median ratio with probability 1 - 2 P(X <= k-1), X ~ Binomial(n, 1/2).
  // Accumulate the binomial CDF in log space (large n would underflow).
  double tail = (1 - confidence) / 2;
  double logHalfPowN = n * std::log(0.5);
  auto pmf = [&](size_t i) {
    return std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) +
                    logHalfPowN);
  };
  std::vector<double> cdf; // cdf[i] = P(X <= i)
  size_t k = 0;            // largest k with P(X <= k-1) <= tail
  for (size_t i = 0; i < n / 2; ++i) {
    cdf.push_back((i ? cdf.back() : 0.0) + pmf(i));
    if (cdf.back() > tail)
      break;
    k = i + 1;
  }
  size_t cut = k == 0 ? 0 : k - 1; // too few samples: the full range
  summary.ciLow = ratios[cut];
  summary.ciHigh = ratios[n - 1 - cut];
  // The coverage actually achieved, 1 - 2 P(X <= cut): below the requested
  // level when there are too few samples for it.
  double tailMass = cut < cdf.size() ? cdf[cut] : pmf(0);
  summary.confidence = std::max(0.0, 1.0 - 2.0 * tailMass);
  return summary;
}

} // namespace mqss
