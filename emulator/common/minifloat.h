// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Conversion between float and the narrow floating-point formats the emulated NCCL reduces and
// the emulated cuBLAS multiplies: IEEE half, bfloat16 and the two OCP fp8 formats. Values are
// decoded to float, combined, and encoded once with round-to-nearest-even, so every rank
// computes bit-identical results.
#pragma once

#include <cstdint>

namespace streamrace::emu {

struct MinifloatFormat {
  int exponentBits;
  int mantissaBits;
  // IEEE-style formats reserve the top exponent for infinities and NaNs. fp8 e4m3 ("FN") has no
  // infinity: only the all-ones pattern is NaN, and out-of-range values saturate to the largest
  // finite value (the behaviour of cuda_fp8.h's __NV_SATFINITE conversions).
  bool hasInfinity;
};

inline constexpr MinifloatFormat kHalfFormat{5, 10, true};
inline constexpr MinifloatFormat kBfloat16Format{8, 7, true};
inline constexpr MinifloatFormat kFp8E4M3Format{4, 3, false};
inline constexpr MinifloatFormat kFp8E5M2Format{5, 2, true};

float decodeMinifloat(MinifloatFormat format, std::uint32_t bits);
std::uint32_t encodeMinifloat(MinifloatFormat format, float value);

} // namespace streamrace::emu
