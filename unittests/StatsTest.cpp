//===- StatsTest.cpp - Robust timing summaries -----------------------------===//

#include "mqss/Runtime/Stats.h"

#include "gtest/gtest.h"

#include <random>

using namespace mqss;

TEST(Stats, MedianAndMad) {
  SampleSummary s = summarize({5, 1, 3, 100, 2});
  EXPECT_DOUBLE_EQ(s.median, 3);
  // |x - 3| = {2, 2, 0, 97, 1} -> median 2: the outlier does not move it.
  EXPECT_DOUBLE_EQ(s.mad, 2);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 100);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
}

TEST(Stats, PairedSpeedupOfExactRatio) {
  std::vector<double> candidate, baseline;
  for (int i = 0; i < 30; ++i) {
    candidate.push_back(1.0 + i); // drift shared by both, as on a busy machine
    baseline.push_back(3.0 * (1.0 + i));
  }
  SpeedupSummary s = pairedSpeedup(baseline, candidate);
  EXPECT_DOUBLE_EQ(s.median, 3.0);
  EXPECT_DOUBLE_EQ(s.ciLow, 3.0);
  EXPECT_DOUBLE_EQ(s.ciHigh, 3.0);
}

TEST(Stats, FewSamplesGiveTheFullRange) {
  SpeedupSummary s = pairedSpeedup({2, 3, 4}, {1, 1, 1});
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.ciLow, 2);
  EXPECT_DOUBLE_EQ(s.ciHigh, 4);
}

TEST(Stats, ConfidenceIntervalCoversTheTrueRatio) {
  // Noisy paired samples around a true speedup of 2: the 95% interval must
  // contain it in roughly 95% of repetitions, and narrow as n grows.
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> noise(0.0, 0.05);
  int covered = 0;
  const int trials = 400;
  double widthSmall = 0, widthLarge = 0;
  for (int t = 0; t < trials; ++t) {
    for (size_t n : {20u, 200u}) {
      std::vector<double> base, cand;
      for (size_t i = 0; i < n; ++i) {
        cand.push_back(noise(rng));
        base.push_back(2.0 * noise(rng));
      }
      SpeedupSummary s = pairedSpeedup(base, cand);
      if (n == 20) {
        covered += s.ciLow <= 2.0 && 2.0 <= s.ciHigh;
        widthSmall += s.ciHigh - s.ciLow;
      } else {
        widthLarge += s.ciHigh - s.ciLow;
      }
    }
  }
  EXPECT_GE(covered, trials * 0.90);
  EXPECT_LT(widthLarge, widthSmall * 0.5);
}
