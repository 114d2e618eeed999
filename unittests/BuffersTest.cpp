//===- BuffersTest.cpp - Element conversions, descriptors, options ---------===//

#include "mqss/Runtime/Buffers.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace mqss;

TEST(Buffers, SixteenBitFloatsRoundTripAndRound) {
  uint8_t bytes[2];
  for (double v : {0.0, 1.0, -2.5, 0.15625, 65504.0}) {
    storeFloat(bytes, ElementKind::F16, v);
    EXPECT_EQ(loadFloat(bytes, ElementKind::F16), v);
  }
  for (double v : {0.0, 1.0, -3.0, 12884901888.0}) {
    storeFloat(bytes, ElementKind::BF16, v);
    EXPECT_EQ(loadFloat(bytes, ElementKind::BF16), v);
  }
  // 1/3 in bf16 rounds to nearest: 0x3eab (0.333984375).
  storeFloat(bytes, ElementKind::BF16, 1.0 / 3.0);
  uint16_t bits;
  std::memcpy(&bits, bytes, 2);
  EXPECT_EQ(bits, 0x3eab);
  // f16 subnormal and overflow.
  storeFloat(bytes, ElementKind::F16, 1e-7);
  EXPECT_NEAR(loadFloat(bytes, ElementKind::F16), 1.1920929e-07, 1e-12);
  storeFloat(bytes, ElementKind::F16, 1e6);
  EXPECT_TRUE(std::isinf(loadFloat(bytes, ElementKind::F16)));
}

TEST(Buffers, IntegersKeepTheirWidth) {
  uint8_t bytes[8] = {0};
  storeInt(bytes, ElementKind::I8, -3);
  EXPECT_EQ(loadInt(bytes, ElementKind::I8), -3);
  storeInt(bytes, ElementKind::I1, 3);
  EXPECT_EQ(loadInt(bytes, ElementKind::I1), 1);
  storeInt(bytes, ElementKind::Index, -(1ll << 40));
  EXPECT_EQ(loadInt(bytes, ElementKind::Index), -(1ll << 40));
}

TEST(Buffers, DescriptorIsRowMajorOrFollowsTheLayout) {
  MemRefBuffer rowMajor(ElementKind::F32, {3, 4, 5}, {}, 0);
  auto *words = static_cast<int64_t *>(rowMajor.descriptor());
  EXPECT_EQ(words[0], words[1]);
  EXPECT_EQ(words[0] % 64, 0);
  EXPECT_EQ(words[2], 0);
  EXPECT_EQ(words[3], 3);
  EXPECT_EQ(words[5], 5);
  EXPECT_EQ(words[6], 20);
  EXPECT_EQ(words[7], 5);
  EXPECT_EQ(words[8], 1);
  EXPECT_EQ(rowMajor.storageElements(), 60u);

  // memref<4x4xf32, strided<[8, 1], offset: 2>>: 2 + 3*8 + 3 + 1 elements.
  MemRefBuffer strided(ElementKind::F32, {4, 4}, {8, 1}, 2);
  EXPECT_EQ(strided.storageElements(), 30u);
  EXPECT_EQ(static_cast<int64_t *>(strided.descriptor())[2], 2);
}

TEST(Buffers, ShapeAndScalarOptions) {
  std::map<std::string, std::vector<int64_t>> shapes;
  ASSERT_FALSE(errorToBool(parseShapeOption("arg3=20x30", shapes)));
  EXPECT_EQ(shapes["arg3"], (std::vector<int64_t>{20, 30}));
  EXPECT_TRUE(errorToBool(parseShapeOption("arg3=20xx30", shapes)));
  EXPECT_TRUE(errorToBool(parseShapeOption("3=20", shapes)));
  EXPECT_TRUE(errorToBool(parseShapeOption("arg1=-4", shapes)));

  std::map<std::string, double> scalars;
  ASSERT_FALSE(errorToBool(parseScalarOption("arg0=0.25", scalars)));
  EXPECT_EQ(scalars["arg0"], 0.25);
  EXPECT_TRUE(errorToBool(parseScalarOption("arg0=abc", scalars)));
  // arg01 is arg1, not a name nothing reads.
  ASSERT_FALSE(errorToBool(parseScalarOption("arg01=2", scalars)));
  EXPECT_EQ(scalars.count("arg01"), 0u);
  EXPECT_EQ(scalars["arg1"], 2.0);
  ASSERT_FALSE(errorToBool(parseShapeOption("arg02=5", shapes)));
  EXPECT_EQ(shapes["arg2"], (std::vector<int64_t>{5}));
  // Scalars travel as doubles: a whole number they would round is refused.
  EXPECT_FALSE(errorToBool(parseScalarOption("arg0=9007199254740992", scalars)));
  EXPECT_TRUE(errorToBool(parseScalarOption("arg0=9007199254740993", scalars)));
}
