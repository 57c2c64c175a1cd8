// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "minifloat.h"
#include "reduction.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace streamrace::emu::nccl {
namespace {

template <typename T>
std::vector<T> reduce(ncclDataType_t datatype, ncclRedOp_t op,
                      const std::vector<std::vector<T>>& ranks) {
  std::vector<const void*> inputs;
  for (const auto& rank : ranks) {
    inputs.push_back(rank.data());
  }
  std::vector<T> output(ranks.front().size());
  reduceElements(datatype, op, inputs, output.data(), output.size());
  return output;
}

TEST(Reduction, IntegerOps) {
  const std::vector<std::vector<std::int32_t>> ranks{{1, -4, 7}, {2, 5, -8}, {3, 6, 9}};
  EXPECT_EQ(reduce(ncclInt32, ncclSum, ranks), (std::vector<std::int32_t>{6, 7, 8}));
  EXPECT_EQ(reduce(ncclInt32, ncclProd, ranks), (std::vector<std::int32_t>{6, -120, -504}));
  EXPECT_EQ(reduce(ncclInt32, ncclMax, ranks), (std::vector<std::int32_t>{3, 6, 9}));
  EXPECT_EQ(reduce(ncclInt32, ncclMin, ranks), (std::vector<std::int32_t>{1, -4, -8}));
  EXPECT_EQ(reduce(ncclInt32, ncclAvg, ranks), (std::vector<std::int32_t>{2, 2, 2}));
}

TEST(Reduction, UnsignedWrapsAround) {
  const std::vector<std::vector<std::uint8_t>> ranks{{200}, {100}};
  EXPECT_EQ(reduce(ncclUint8, ncclSum, ranks), (std::vector<std::uint8_t>{44}));
}

TEST(Reduction, FloatAndDouble) {
  EXPECT_EQ(reduce(ncclFloat32, ncclAvg, std::vector<std::vector<float>>{{1.0f}, {2.0f}}),
            (std::vector<float>{1.5f}));
  EXPECT_EQ(reduce(ncclFloat64, ncclMax, std::vector<std::vector<double>>{{-1.0}, {-2.0}}),
            (std::vector<double>{-1.0}));
}

TEST(Reduction, NarrowFloatsCombineInFloat) {
  auto half = [](float value) {
    return static_cast<std::uint16_t>(encodeMinifloat(kHalfFormat, value));
  };
  EXPECT_EQ(reduce(ncclFloat16, ncclSum,
                   std::vector<std::vector<std::uint16_t>>{{half(1.5f)}, {half(2.25f)}}),
            (std::vector<std::uint16_t>{half(3.75f)}));
  auto bf16 = [](float value) {
    return static_cast<std::uint16_t>(encodeMinifloat(kBfloat16Format, value));
  };
  EXPECT_EQ(reduce(ncclBfloat16, ncclProd,
                   std::vector<std::vector<std::uint16_t>>{{bf16(3.0f)}, {bf16(-2.0f)}}),
            (std::vector<std::uint16_t>{bf16(-6.0f)}));
  auto e4m3 = [](float value) {
    return static_cast<std::uint8_t>(encodeMinifloat(kFp8E4M3Format, value));
  };
  EXPECT_EQ(reduce(ncclFloat8e4m3, ncclAvg,
                   std::vector<std::vector<std::uint8_t>>{{e4m3(2.0f)}, {e4m3(4.0f)}}),
            (std::vector<std::uint8_t>{e4m3(3.0f)}));
  auto e5m2 = [](float value) {
    return static_cast<std::uint8_t>(encodeMinifloat(kFp8E5M2Format, value));
  };
  EXPECT_EQ(reduce(ncclFloat8e5m2, ncclMin,
                   std::vector<std::vector<std::uint8_t>>{{e5m2(0.5f)}, {e5m2(-8.0f)}}),
            (std::vector<std::uint8_t>{e5m2(-8.0f)}));
}

TEST(Reduction, PreMultiplierScalesInPlace) {
  std::vector<std::int64_t> integers{1, -2, 3};
  const std::int64_t three = 3;
  scaleElements(ncclInt64, &three, integers.data(), integers.size());
  EXPECT_EQ(integers, (std::vector<std::int64_t>{3, -6, 9}));
  auto bf16 = [](float value) {
    return static_cast<std::uint16_t>(encodeMinifloat(kBfloat16Format, value));
  };
  std::vector<std::uint16_t> narrow{bf16(1.5f), bf16(-4.0f)};
  const std::uint16_t half = bf16(0.5f);
  scaleElements(ncclBfloat16, &half, narrow.data(), narrow.size());
  EXPECT_EQ(narrow, (std::vector<std::uint16_t>{bf16(0.75f), bf16(-2.0f)}));
}

} // namespace
} // namespace streamrace::emu::nccl
