//===- OutputCheckTest.cpp - Comparing outputs with the reference ----------===//

#include "mqss/Runtime/OutputCheck.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace mqss;

static OutputArray floats(std::vector<double> values,
                          ElementKind element = ElementKind::F32) {
  OutputArray out;
  out.name = "arg0";
  out.element = element;
  out.shape = {static_cast<int64_t>(values.size())};
  out.floats = std::move(values);
  return out;
}

TEST(OutputCheck, RelativeToleranceOnFloats) {
  auto ref = floats({1.0, -2.0, 100.0});
  EXPECT_EQ(compareOutputs({ref}, {floats({1.0001, -2.0, 100.0})}, 1e-3).verdict,
            OutputCheck::Verdict::Pass);
  OutputCheck bad = compareOutputs({ref}, {floats({1.01, -2.0, 100.0})}, 1e-3);
  EXPECT_EQ(bad.verdict, OutputCheck::Verdict::Fail);
  EXPECT_EQ(bad.mismatches, 1u);
  EXPECT_NEAR(bad.maxRelError, 0.01, 1e-9);
  EXPECT_EQ(bad.firstMismatch.rfind("arg0[0]", 0), 0u);
}

TEST(OutputCheck, ElementsNearZeroAreJudgedAgainstTheArrayScale) {
  // Cancellation leaves tiny values whose absolute error is rounding noise.
  auto ref = floats({1e-9, 50.0});
  EXPECT_EQ(compareOutputs({ref}, {floats({3e-9, 50.0})}, 1e-3).verdict,
            OutputCheck::Verdict::Pass);
  EXPECT_EQ(compareOutputs({ref}, {floats({0.7, 50.0})}, 1e-3).verdict,
            OutputCheck::Verdict::Fail);
}

TEST(OutputCheck, NanAndInfinity) {
  auto ref = floats({NAN, INFINITY, 1.0});
  EXPECT_EQ(compareOutputs({ref}, {floats({NAN, INFINITY, 1.0})}, 1e-3).verdict,
            OutputCheck::Verdict::Pass);
  EXPECT_EQ(compareOutputs({ref}, {floats({1.0, INFINITY, 1.0})}, 1e-3).verdict,
            OutputCheck::Verdict::Fail);
  EXPECT_EQ(compareOutputs({ref}, {floats({NAN, -INFINITY, 1.0})}, 1e-3).verdict,
            OutputCheck::Verdict::Fail);
}

TEST(OutputCheck, IntegersAreExact) {
  OutputArray ref, cand;
  ref.name = cand.name = "result0";
  ref.element = cand.element = ElementKind::I32;
  ref.ints = {1, 2, 3};
  cand.ints = {1, 2, 4};
  ref.shape = cand.shape = {3};
  EXPECT_EQ(compareOutputs({ref}, {ref}, 1e-3).verdict, OutputCheck::Verdict::Pass);
  EXPECT_EQ(compareOutputs({ref}, {cand}, 0.5).verdict, OutputCheck::Verdict::Fail);
}

TEST(OutputCheck, SixteenBitFloatsGetAFewUlps) {
  EXPECT_GT(effectiveTolerance(ElementKind::BF16, 1e-3), 1e-2);
  EXPECT_DOUBLE_EQ(effectiveTolerance(ElementKind::F32, 1e-3), 1e-3);
  auto ref = floats({1.0}, ElementKind::BF16);
  EXPECT_EQ(compareOutputs({ref}, {floats({1.0078125}, ElementKind::BF16)}, 1e-3).verdict,
            OutputCheck::Verdict::Pass);
}

TEST(OutputCheck, PrintedOutputIgnoresAddresses) {
  OutputArray ref, cand;
  ref.name = cand.name = "stdout";
  ref.text = "Unranked Memref base@ = 0x55d1 rank = 1 data =\n[1.5,  2.25]\n";
  cand.text = "Unranked Memref base@ = 0x7f00 rank = 1 data =\n[1.5,  2.25]\n";
  OutputCheck same = compareOutputs({ref}, {cand}, 1e-3);
  EXPECT_EQ(same.verdict, OutputCheck::Verdict::Pass);
  EXPECT_EQ(same.valuesCompared, 3u); // rank and the two values
  cand.text = "Unranked Memref base@ = 0x7f00 rank = 1 data =\n[1.5,  2.5]\n";
  EXPECT_EQ(compareOutputs({ref}, {cand}, 1e-3).verdict, OutputCheck::Verdict::Fail);
}

TEST(OutputCheck, PrintedMemrefLayoutIsNotCompared) {
  // A pipeline may give a printed memref another layout (a packed copy):
  // its data is printed in logical order either way.
  OutputArray ref, cand;
  ref.name = cand.name = "stdout";
  ref.text = "Memref base@ = 0x1 rank = 2 offset = 0 sizes = [2, 2] strides = [13, 1] "
             "data =\n[[1,   2],\n [3,   4]]\n";
  cand.text = "Memref base@ = 0x2 rank = 2 offset = 5 sizes = [2, 2] strides = [32, 1] "
              "data =\n[[1,   2],\n [3,   4]]\n";
  EXPECT_EQ(compareOutputs({ref}, {cand}, 1e-3).verdict, OutputCheck::Verdict::Pass);
  cand.text = "Memref base@ = 0x2 rank = 2 offset = 5 sizes = [2, 3] strides = [32, 1] "
              "data =\n[[1,   2],\n [3,   4]]\n";
  EXPECT_EQ(compareOutputs({ref}, {cand}, 1e-3).verdict, OutputCheck::Verdict::Fail);
  cand.text = "Memref base@ = 0x2 rank = 2 offset = 0 sizes = [2, 2] strides = [13, 1] "
              "data =\n[[1,   2],\n [3,   5]]\n";
  EXPECT_EQ(compareOutputs({ref}, {cand}, 1e-3).verdict, OutputCheck::Verdict::Fail);
}

TEST(OutputCheck, PrintedWideIntegersAreComparedExactly) {
  // Integers of more digits than a printed float has come from an integer
  // printer: equal or not. Compared with a tolerance, uninitialised i64s
  // (pointers, close in their high digits) passed, and the scale they set
  // let the small values beside them differ.
  OutputArray ref, cand;
  ref.name = cand.name = "stdout";
  ref.text = "[139990518472896, 1, 2]\n";
  cand.text = "[139990518472900, 1, 2]\n";
  EXPECT_EQ(compareOutputs({ref}, {cand}, 1e-3).verdict, OutputCheck::Verdict::Fail);
  cand.text = "[139990518472896, 1, 3]\n";
  EXPECT_EQ(compareOutputs({ref}, {cand}, 1e-3).verdict, OutputCheck::Verdict::Fail);
  cand.text = ref.text;
  EXPECT_EQ(compareOutputs({ref}, {cand}, 1e-3).verdict, OutputCheck::Verdict::Pass);
  // Floats are printed with 6 digits and keep their tolerance.
  ref.text = "[123456, 1.23457e+06]\n";
  cand.text = "[123457, 1.23458e+06]\n";
  EXPECT_EQ(compareOutputs({ref}, {cand}, 1e-4).verdict, OutputCheck::Verdict::Pass);
}

TEST(OutputCheck, PrintedTextWithoutNumbersIsCompared) {
  // vector.print str "Hello, World!\n": no numbers, but output to check.
  OutputArray ref, cand;
  ref.name = cand.name = "stdout";
  ref.text = cand.text = "Hello, World!\n";
  OutputCheck same = compareOutputs({ref}, {cand}, 1e-3);
  EXPECT_EQ(same.verdict, OutputCheck::Verdict::Pass);
  EXPECT_EQ(same.valuesCompared, 2u); // the two words
  cand.text = "Hello, Wrold!\n";
  EXPECT_EQ(compareOutputs({ref}, {cand}, 1e-3).verdict, OutputCheck::Verdict::Fail);
  ref.text = cand.text = "";
  EXPECT_EQ(compareOutputs({ref}, {cand}, 1e-3).verdict, OutputCheck::Verdict::Skipped);
}
