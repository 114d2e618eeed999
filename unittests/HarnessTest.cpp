//===- HarnessTest.cpp - The measurement through the library API -----------===//

#include "mqss/Runtime/Harness.h"

#include "gtest/gtest.h"

using namespace mqss;

TEST(Harness, MeasuresCandidateAgainstBaselineInterleaved) {
  RunRequest request;
  request.inputPath = MQSS_TEST_INPUTS "/small_matmul.mlir";
  request.pipeline = "func.func(convert-linalg-to-affine-loops,affine-loop-tile{tile-size=16})";
  request.baseline = "naive";
  request.reps = 7;
  request.minTimeMs = 0;
  request.warmup = 1;
  RunReport report = runMeasurement(request);
  ASSERT_TRUE(report.ok()) << report.message << "\n" << report.diagnostics;
  EXPECT_EQ(report.entry, "matmul");
  EXPECT_EQ(report.rounds, 7u);
  EXPECT_EQ(report.candidate.runtimeMs.samples.size(), 7u);
  ASSERT_TRUE(report.baseline && report.speedup);
  EXPECT_EQ(report.baseline->runtimeMs.samples.size(), 7u);
  EXPECT_GT(report.candidate.runtimeMs.median, 0);
  EXPECT_LE(report.speedup->ciLow, report.speedup->median);
  EXPECT_GE(report.speedup->ciHigh, report.speedup->median);
  EXPECT_EQ(report.candidate.output.verdict, OutputCheck::Verdict::Pass);
  EXPECT_EQ(report.candidate.output.valuesCompared, 64u * 48 + 48 * 32 + 64 * 32);
  EXPECT_GT(report.candidate.codeSizeBytes, 0u);
  EXPECT_GE(report.cpu, 0);
}

TEST(Harness, MinTimeKeepsTimingBeyondReps) {
  RunRequest request;
  request.inputPath = MQSS_TEST_INPUTS "/small_matmul.mlir";
  request.reps = 1;
  request.minTimeMs = 30;
  RunReport report = runMeasurement(request);
  ASSERT_TRUE(report.ok()) << report.message;
  double total = 0;
  for (double s : report.candidate.runtimeMs.samples)
    total += s;
  EXPECT_GT(report.rounds, 1u);
  EXPECT_GE(total, 20); // most of the time is spent in the timed calls
}

TEST(Harness, ReportSurvivesTheJsonRoundTrip) {
  RunRequest request;
  request.inputPath = MQSS_TEST_INPUTS "/small_matmul.mlir";
  request.baseline = "naive";
  request.reps = 2;
  request.minTimeMs = 0;
  RunReport report = runMeasurement(request);
  ASSERT_TRUE(report.ok());
  RunReport back;
  llvm::json::Path::Root root;
  ASSERT_TRUE(fromJSON(toJSON(report), back, root));
  EXPECT_EQ(back.entry, report.entry);
  EXPECT_EQ(back.candidate.runtimeMs.samples, report.candidate.runtimeMs.samples);
  EXPECT_EQ(back.speedup->median, report.speedup->median);
  EXPECT_EQ(back.baseline->codeSizeBytes, report.baseline->codeSizeBytes);
}
