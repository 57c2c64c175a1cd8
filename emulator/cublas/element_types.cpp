// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "element_types.h"

#include "minifloat.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace streamrace::emu::blas {

namespace {

template <typename T> T load(const void* base, std::ptrdiff_t index) {
  T value;
  std::memcpy(&value, static_cast<const std::byte*>(base) + index * std::ptrdiff_t(sizeof(T)),
              sizeof(T));
  return value;
}

template <typename T> void store(void* base, std::ptrdiff_t index, T value) {
  std::memcpy(static_cast<std::byte*>(base) + index * std::ptrdiff_t(sizeof(T)), &value, sizeof(T));
}

template <typename Integer> Integer saturate(double value) {
  const double rounded = std::nearbyint(value);
  return static_cast<Integer>(std::clamp(rounded, double(std::numeric_limits<Integer>::min()),
                                         double(std::numeric_limits<Integer>::max())));
}

} // namespace

std::size_t elementSize(cudaDataType type) {
  switch (type) {
  case CUDA_R_8I:
  case CUDA_R_8U:
  case CUDA_R_8F_E4M3:
  case CUDA_R_8F_E5M2:
    return 1;
  case CUDA_R_16F:
  case CUDA_R_16BF:
    return 2;
  case CUDA_R_32F:
  case CUDA_R_32I:
    return 4;
  case CUDA_R_64F:
  case CUDA_C_32F:
    return 8;
  case CUDA_C_64F:
    return 16;
  default:
    return 0;
  }
}

bool isComplex(cudaDataType type) {
  return type == CUDA_C_32F || type == CUDA_C_64F;
}

Value loadElement(cudaDataType type, const void* base, std::ptrdiff_t index) {
  switch (type) {
  case CUDA_R_8I:
    return load<std::int8_t>(base, index);
  case CUDA_R_8U:
    return load<std::uint8_t>(base, index);
  case CUDA_R_8F_E4M3:
    return decodeMinifloat(kFp8E4M3Format, load<std::uint8_t>(base, index));
  case CUDA_R_8F_E5M2:
    return decodeMinifloat(kFp8E5M2Format, load<std::uint8_t>(base, index));
  case CUDA_R_16F:
    return decodeMinifloat(kHalfFormat, load<std::uint16_t>(base, index));
  case CUDA_R_16BF:
    return decodeMinifloat(kBfloat16Format, load<std::uint16_t>(base, index));
  case CUDA_R_32F:
    return load<float>(base, index);
  case CUDA_R_32I:
    return load<std::int32_t>(base, index);
  case CUDA_R_64F:
    return load<double>(base, index);
  case CUDA_C_32F: {
    const auto pair = load<std::complex<float>>(base, index);
    return {pair.real(), pair.imag()};
  }
  case CUDA_C_64F:
    return load<std::complex<double>>(base, index);
  default:
    return 0.0;
  }
}

void storeElement(cudaDataType type, void* base, std::ptrdiff_t index, Value value) {
  const double real = value.real();
  switch (type) {
  case CUDA_R_8I:
    return store(base, index, saturate<std::int8_t>(real));
  case CUDA_R_8U:
    return store(base, index, saturate<std::uint8_t>(real));
  case CUDA_R_8F_E4M3:
    return store(base, index,
                 static_cast<std::uint8_t>(encodeMinifloat(kFp8E4M3Format, float(real))));
  case CUDA_R_8F_E5M2:
    return store(base, index,
                 static_cast<std::uint8_t>(encodeMinifloat(kFp8E5M2Format, float(real))));
  case CUDA_R_16F:
    return store(base, index,
                 static_cast<std::uint16_t>(encodeMinifloat(kHalfFormat, float(real))));
  case CUDA_R_16BF:
    return store(base, index,
                 static_cast<std::uint16_t>(encodeMinifloat(kBfloat16Format, float(real))));
  case CUDA_R_32F:
    return store(base, index, static_cast<float>(real));
  case CUDA_R_32I:
    return store(base, index, saturate<std::int32_t>(real));
  case CUDA_R_64F:
    return store(base, index, real);
  case CUDA_C_32F:
    return store(base, index, std::complex<float>(float(real), float(value.imag())));
  case CUDA_C_64F:
    return store(base, index, value);
  default:
    return;
  }
}

} // namespace streamrace::emu::blas
