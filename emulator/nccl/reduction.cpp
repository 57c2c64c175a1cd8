// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "reduction.h"

#include "minifloat.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace streamrace::emu::nccl {
namespace {

template <typename T> T loadElement(const void* base, std::size_t index) {
  T value;
  std::memcpy(&value, static_cast<const unsigned char*>(base) + index * sizeof(T), sizeof(T));
  return value;
}

template <typename T> void storeElement(void* base, std::size_t index, T value) {
  std::memcpy(static_cast<unsigned char*>(base) + index * sizeof(T), &value, sizeof(T));
}

// Integers wrap on overflow like the GPU does; unsigned arithmetic keeps that defined in C++.
template <typename T> T combine(ncclRedOp_t op, T accumulated, T next) {
  if constexpr (std::is_integral_v<T>) {
    using Unsigned = std::make_unsigned_t<T>;
    switch (op) {
    case ncclSum:
    case ncclAvg:
      return static_cast<T>(static_cast<Unsigned>(accumulated) + static_cast<Unsigned>(next));
    case ncclProd:
      return static_cast<T>(static_cast<Unsigned>(accumulated) * static_cast<Unsigned>(next));
    default:
      break;
    }
  } else {
    switch (op) {
    case ncclSum:
    case ncclAvg:
      return accumulated + next;
    case ncclProd:
      return accumulated * next;
    default:
      break;
    }
  }
  return op == ncclMax ? std::max(accumulated, next) : std::min(accumulated, next);
}

template <typename T>
void reduceNative(ncclRedOp_t op, std::span<const void* const> inputs, void* output,
                  std::size_t count) {
  const auto contributors = static_cast<T>(inputs.size());
  for (std::size_t i = 0; i < count; ++i) {
    T accumulated = loadElement<T>(inputs[0], i);
    for (std::size_t rank = 1; rank < inputs.size(); ++rank) {
      accumulated = combine(op, accumulated, loadElement<T>(inputs[rank], i));
    }
    if (op == ncclAvg) {
      accumulated = static_cast<T>(accumulated / contributors);
    }
    storeElement<T>(output, i, accumulated);
  }
}

template <typename Storage>
void reduceMinifloat(MinifloatFormat format, ncclRedOp_t op, std::span<const void* const> inputs,
                     void* output, std::size_t count) {
  const auto contributors = static_cast<float>(inputs.size());
  for (std::size_t i = 0; i < count; ++i) {
    float accumulated = decodeMinifloat(format, loadElement<Storage>(inputs[0], i));
    for (std::size_t rank = 1; rank < inputs.size(); ++rank) {
      accumulated =
          combine(op, accumulated, decodeMinifloat(format, loadElement<Storage>(inputs[rank], i)));
    }
    if (op == ncclAvg) {
      accumulated /= contributors;
    }
    storeElement<Storage>(output, i, static_cast<Storage>(encodeMinifloat(format, accumulated)));
  }
}

template <typename T> void scaleNative(const void* scalar, void* data, std::size_t count) {
  const T factor = loadElement<T>(scalar, 0);
  for (std::size_t i = 0; i < count; ++i) {
    storeElement<T>(data, i, combine(ncclProd, loadElement<T>(data, i), factor));
  }
}

template <typename Storage>
void scaleMinifloat(MinifloatFormat format, const void* scalar, void* data, std::size_t count) {
  const float factor = decodeMinifloat(format, loadElement<Storage>(scalar, 0));
  for (std::size_t i = 0; i < count; ++i) {
    const float scaled = decodeMinifloat(format, loadElement<Storage>(data, i)) * factor;
    storeElement<Storage>(data, i, static_cast<Storage>(encodeMinifloat(format, scaled)));
  }
}

} // namespace

bool isValidDatatype(ncclDataType_t datatype) {
  return datatype >= ncclInt8 && datatype < ncclNumTypes;
}

bool isValidReductionOp(ncclRedOp_t op) {
  return op >= ncclSum && op < ncclNumOps;
}

std::size_t datatypeSize(ncclDataType_t datatype) {
  switch (datatype) {
  case ncclInt8:
  case ncclUint8:
  case ncclFloat8e4m3:
  case ncclFloat8e5m2:
    return 1;
  case ncclFloat16:
  case ncclBfloat16:
    return 2;
  case ncclInt32:
  case ncclUint32:
  case ncclFloat32:
    return 4;
  case ncclInt64:
  case ncclUint64:
  case ncclFloat64:
    return 8;
  default:
    return 0;
  }
}

const char* datatypeName(ncclDataType_t datatype) {
  switch (datatype) {
  case ncclInt8:
    return "ncclInt8";
  case ncclUint8:
    return "ncclUint8";
  case ncclInt32:
    return "ncclInt32";
  case ncclUint32:
    return "ncclUint32";
  case ncclInt64:
    return "ncclInt64";
  case ncclUint64:
    return "ncclUint64";
  case ncclFloat16:
    return "ncclFloat16";
  case ncclFloat32:
    return "ncclFloat32";
  case ncclFloat64:
    return "ncclFloat64";
  case ncclBfloat16:
    return "ncclBfloat16";
  case ncclFloat8e4m3:
    return "ncclFloat8e4m3";
  case ncclFloat8e5m2:
    return "ncclFloat8e5m2";
  default:
    return "(invalid datatype)";
  }
}

const char* reductionOpName(ncclRedOp_t op) {
  switch (op) {
  case ncclSum:
    return "ncclSum";
  case ncclProd:
    return "ncclProd";
  case ncclMax:
    return "ncclMax";
  case ncclMin:
    return "ncclMin";
  case ncclAvg:
    return "ncclAvg";
  case kPreMulSumCode:
    return "ncclPreMulSum";
  default:
    return "(invalid op)";
  }
}

void reduceElements(ncclDataType_t datatype, ncclRedOp_t op, std::span<const void* const> inputs,
                    void* output, std::size_t count) {
  if (inputs.empty()) {
    return;
  }
  switch (datatype) {
  case ncclInt8:
    return reduceNative<std::int8_t>(op, inputs, output, count);
  case ncclUint8:
    return reduceNative<std::uint8_t>(op, inputs, output, count);
  case ncclInt32:
    return reduceNative<std::int32_t>(op, inputs, output, count);
  case ncclUint32:
    return reduceNative<std::uint32_t>(op, inputs, output, count);
  case ncclInt64:
    return reduceNative<std::int64_t>(op, inputs, output, count);
  case ncclUint64:
    return reduceNative<std::uint64_t>(op, inputs, output, count);
  case ncclFloat32:
    return reduceNative<float>(op, inputs, output, count);
  case ncclFloat64:
    return reduceNative<double>(op, inputs, output, count);
  case ncclFloat16:
    return reduceMinifloat<std::uint16_t>(kHalfFormat, op, inputs, output, count);
  case ncclBfloat16:
    return reduceMinifloat<std::uint16_t>(kBfloat16Format, op, inputs, output, count);
  case ncclFloat8e4m3:
    return reduceMinifloat<std::uint8_t>(kFp8E4M3Format, op, inputs, output, count);
  case ncclFloat8e5m2:
    return reduceMinifloat<std::uint8_t>(kFp8E5M2Format, op, inputs, output, count);
  default:
    return;
  }
}

void scaleElements(ncclDataType_t datatype, const void* scalar, void* data, std::size_t count) {
  switch (datatype) {
  case ncclInt8:
    return scaleNative<std::int8_t>(scalar, data, count);
  case ncclUint8:
    return scaleNative<std::uint8_t>(scalar, data, count);
  case ncclInt32:
    return scaleNative<std::int32_t>(scalar, data, count);
  case ncclUint32:
    return scaleNative<std::uint32_t>(scalar, data, count);
  case ncclInt64:
    return scaleNative<std::int64_t>(scalar, data, count);
  case ncclUint64:
    return scaleNative<std::uint64_t>(scalar, data, count);
  case ncclFloat32:
    return scaleNative<float>(scalar, data, count);
  case ncclFloat64:
    return scaleNative<double>(scalar, data, count);
  case ncclFloat16:
    return scaleMinifloat<std::uint16_t>(kHalfFormat, scalar, data, count);
  case ncclBfloat16:
    return scaleMinifloat<std::uint16_t>(kBfloat16Format, scalar, data, count);
  case ncclFloat8e4m3:
    return scaleMinifloat<std::uint8_t>(kFp8E4M3Format, scalar, data, count);
  case ncclFloat8e5m2:
    return scaleMinifloat<std::uint8_t>(kFp8E5M2Format, scalar, data, count);
  default:
    return;
  }
}

} // namespace streamrace::emu::nccl
