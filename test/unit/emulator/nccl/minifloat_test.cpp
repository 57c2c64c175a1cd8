// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "minifloat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace streamrace::emu::nccl {
namespace {

TEST(Minifloat, HalfKnownPatterns) {
  EXPECT_EQ(encodeMinifloat(kHalfFormat, 1.0f), 0x3C00u);
  EXPECT_EQ(encodeMinifloat(kHalfFormat, -2.0f), 0xC000u);
  EXPECT_EQ(encodeMinifloat(kHalfFormat, 65504.0f), 0x7BFFu);
  EXPECT_EQ(encodeMinifloat(kHalfFormat, 1e6f), 0x7C00u);                  // overflow: infinity
  EXPECT_EQ(encodeMinifloat(kHalfFormat, std::ldexp(1.0f, -24)), 0x0001u); // smallest subnormal
  EXPECT_EQ(encodeMinifloat(kHalfFormat, 1.0f + std::ldexp(1.0f, -11)), 0x3C00u); // tie to even
  EXPECT_FLOAT_EQ(decodeMinifloat(kHalfFormat, 0x3555u), 0.333251953125f);
  EXPECT_TRUE(std::isinf(decodeMinifloat(kHalfFormat, 0xFC00u)));
  EXPECT_TRUE(std::isnan(decodeMinifloat(kHalfFormat, 0x7E00u)));
}

TEST(Minifloat, Bfloat16AndFp8KnownPatterns) {
  EXPECT_EQ(encodeMinifloat(kBfloat16Format, 1.0f), 0x3F80u);
  EXPECT_EQ(encodeMinifloat(kBfloat16Format, -3.0f), 0xC040u);
  EXPECT_EQ(encodeMinifloat(kFp8E4M3Format, 1.0f), 0x38u);
  EXPECT_EQ(encodeMinifloat(kFp8E4M3Format, 448.0f), 0x7Eu);
  EXPECT_EQ(encodeMinifloat(kFp8E4M3Format, 1000.0f), 0x7Eu); // saturates to finite
  EXPECT_EQ(encodeMinifloat(kFp8E4M3Format, std::numeric_limits<float>::quiet_NaN()), 0x7Fu);
  EXPECT_EQ(encodeMinifloat(kFp8E5M2Format, 1.0f), 0x3Cu);
  EXPECT_EQ(encodeMinifloat(kFp8E5M2Format, 57344.0f), 0x7Bu);
  EXPECT_EQ(encodeMinifloat(kFp8E5M2Format, 1e6f), 0x7Cu);
}

// Every non-NaN pattern survives decode then encode: the codec is exact on representable values.
void expectRoundTrip(MinifloatFormat format, int bits) {
  for (std::uint32_t pattern = 0; pattern < (1u << bits); ++pattern) {
    const float value = decodeMinifloat(format, pattern);
    if (!std::isnan(value)) {
      ASSERT_EQ(encodeMinifloat(format, value), pattern) << "pattern " << pattern;
    }
  }
}

TEST(Minifloat, EveryPatternRoundTrips) {
  expectRoundTrip(kHalfFormat, 16);
  expectRoundTrip(kBfloat16Format, 16);
  expectRoundTrip(kFp8E4M3Format, 8);
  expectRoundTrip(kFp8E5M2Format, 8);
}

} // namespace
} // namespace streamrace::emu::nccl
