// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "minifloat.h"

#include <cmath>
#include <limits>

namespace streamrace::emu {
namespace {

struct Layout {
  int bias;
  std::uint32_t exponentMask; // all-ones exponent field, unshifted
  std::uint32_t mantissaMask;
  std::uint32_t signBit;
};

Layout layoutOf(MinifloatFormat format) {
  return Layout{(1 << (format.exponentBits - 1)) - 1, (1u << format.exponentBits) - 1,
                (1u << format.mantissaBits) - 1, 1u << (format.exponentBits + format.mantissaBits)};
}

std::uint32_t nanPattern(MinifloatFormat format) {
  const Layout layout = layoutOf(format);
  const std::uint32_t exponentField = layout.exponentMask << format.mantissaBits;
  // IEEE formats: quiet NaN (top mantissa bit); e4m3: the single all-ones NaN.
  return format.hasInfinity ? exponentField | (1u << (format.mantissaBits - 1))
                            : exponentField | layout.mantissaMask;
}

double largestFinite(MinifloatFormat format) {
  const Layout layout = layoutOf(format);
  const int topExponent = format.hasInfinity ? static_cast<int>(layout.exponentMask) - 1
                                             : static_cast<int>(layout.exponentMask);
  // Without infinities the all-ones mantissa at the top exponent is NaN, so one step less.
  const std::uint32_t topMantissa =
      format.hasInfinity ? layout.mantissaMask : layout.mantissaMask - 1;
  return std::ldexp(1.0 + std::ldexp(static_cast<double>(topMantissa), -format.mantissaBits),
                    topExponent - layout.bias);
}

} // namespace

float decodeMinifloat(MinifloatFormat format, std::uint32_t bits) {
  const Layout layout = layoutOf(format);
  const bool negative = (bits & layout.signBit) != 0;
  const std::uint32_t exponent = (bits >> format.mantissaBits) & layout.exponentMask;
  const std::uint32_t mantissa = bits & layout.mantissaMask;
  double magnitude = 0;
  if (format.hasInfinity && exponent == layout.exponentMask) {
    magnitude = mantissa == 0 ? std::numeric_limits<double>::infinity()
                              : std::numeric_limits<double>::quiet_NaN();
  } else if (!format.hasInfinity && exponent == layout.exponentMask &&
             mantissa == layout.mantissaMask) {
    magnitude = std::numeric_limits<double>::quiet_NaN();
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa), 1 - layout.bias - format.mantissaBits);
  } else {
    magnitude = std::ldexp(1.0 + std::ldexp(static_cast<double>(mantissa), -format.mantissaBits),
                           static_cast<int>(exponent) - layout.bias);
  }
  return static_cast<float>(negative ? -magnitude : magnitude);
}

std::uint32_t encodeMinifloat(MinifloatFormat format, float value) {
  const Layout layout = layoutOf(format);
  if (std::isnan(value)) {
    return nanPattern(format);
  }
  const std::uint32_t sign = std::signbit(value) ? layout.signBit : 0;
  double magnitude = std::fabs(static_cast<double>(value));
  const double maximum = largestFinite(format);
  const int minimumNormalExponent = 1 - layout.bias;
  if (!std::isinf(magnitude) && magnitude != 0) {
    int binaryExponent = 0;
    std::frexp(magnitude, &binaryExponent); // magnitude = f * 2^binaryExponent, f in [0.5, 1)
    const int unbiasedExponent = binaryExponent - 1;
    const int quantumExponent =
        (unbiasedExponent < minimumNormalExponent ? minimumNormalExponent : unbiasedExponent) -
        format.mantissaBits;
    // nearbyint honours the default rounding mode: round half to even.
    magnitude =
        std::ldexp(std::nearbyint(std::ldexp(magnitude, -quantumExponent)), quantumExponent);
  }
  if (magnitude > maximum) {
    if (format.hasInfinity) {
      return sign | (layout.exponentMask << format.mantissaBits);
    }
    magnitude = maximum;
  }
  if (magnitude == 0) {
    return sign;
  }
  int binaryExponent = 0;
  std::frexp(magnitude, &binaryExponent);
  const int unbiasedExponent = binaryExponent - 1;
  if (unbiasedExponent < minimumNormalExponent) {
    const auto mantissa = static_cast<std::uint32_t>(
        std::ldexp(magnitude, format.mantissaBits - minimumNormalExponent));
    return sign | mantissa;
  }
  const auto mantissa =
      static_cast<std::uint32_t>(std::ldexp(magnitude, format.mantissaBits - unbiasedExponent) -
                                 std::ldexp(1.0, format.mantissaBits));
  const auto exponent = static_cast<std::uint32_t>(unbiasedExponent + layout.bias);
  return sign | (exponent << format.mantissaBits) | mantissa;
}

} // namespace streamrace::emu
