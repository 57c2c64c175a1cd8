// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The driver's memory questions and stream memory operations, on the runtime's allocations and
// streams: what a pointer is, the allocation around it, and 32-bit sets and writes that run in
// stream order like the runtime's memsets.
#include "driver_entry.h"

#include <cstdint>
#include <cstring>

#include "driver_tracing.h"
#include "runtime_state.h"

using namespace streamrace::emu;

namespace {

CUmemorytype memoryTypeOf(const Allocation& allocation) {
  return allocation.isHostMemory() ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
}

CUresult pointerAttribute(void* data, CUpointer_attribute attribute, CUdeviceptr pointer) {
  if (data == nullptr) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  const std::optional<Allocation> allocation =
      Runtime::instance().memory.find(reinterpret_cast<const void*>(pointer));
  if (!allocation) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  auto write = [data](auto value) {
    std::memcpy(data, &value, sizeof(decltype(value)));
    return CUDA_SUCCESS;
  };
  switch (attribute) {
  case CU_POINTER_ATTRIBUTE_CONTEXT:
    return write(contextOf(allocation->device));
  case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
    return write(memoryTypeOf(*allocation));
  case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
  case CU_POINTER_ATTRIBUTE_HOST_POINTER:
    // Unified addressing: the same address on both sides.
    return write(pointer);
  case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
    return write(allocation->device);
  case CU_POINTER_ATTRIBUTE_IS_MANAGED:
    return write(static_cast<int>(allocation->kind == MemoryKind::Managed));
  case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
    return write(static_cast<CUdeviceptr>(allocation->base));
  case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
    return write(allocation->size);
  case CU_POINTER_ATTRIBUTE_MAPPED:
    return write(static_cast<int>(1));
  case CU_POINTER_ATTRIBUTE_BUFFER_ID:
    return write(static_cast<unsigned long long>(allocation->base));
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult addressRange(CUdeviceptr* base, size_t* size, CUdeviceptr pointer) {
  const std::optional<Allocation> allocation =
      Runtime::instance().memory.find(reinterpret_cast<const void*>(pointer));
  if (!allocation || !allocation->isDeviceMemory()) {
    return CUDA_ERROR_NOT_FOUND;
  }
  // Either output may be left out.
  if (base != nullptr) {
    *base = static_cast<CUdeviceptr>(allocation->base);
  }
  if (size != nullptr) {
    *size = allocation->size;
  }
  return CUDA_SUCCESS;
}

// `words` 32-bit values at `address` on `handle`, once the stream reaches them; the range must
// lie in one device allocation.
CUresult writeWords(CUstream handle, CUdeviceptr address, std::uint32_t value, std::size_t words) {
  Runtime& runtime = Runtime::instance();
  Stream* stream =
      runtime.resolveStream(reinterpret_cast<cudaStream_t>(handle), DefaultStream::Legacy);
  if (stream == nullptr) {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  auto* destination = reinterpret_cast<std::uint32_t*>(address);
  const std::optional<Allocation> allocation = runtime.memory.find(destination);
  if (address % sizeof(std::uint32_t) != 0 || !allocation || !allocation->isDeviceMemory() ||
      !allocation->contains(destination, words * sizeof(std::uint32_t))) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  runtime.submit(*stream, Work{OperationKind::Memset, [destination, value, words] {
                                 for (std::size_t index = 0; index < words; ++index) {
                                   destination[index] = value;
                                 }
                               }});
  return CUDA_SUCCESS;
}

} // namespace

extern "C" {

CUresult streamraceEmuDriverPointerGetAttribute(void* data, CUpointer_attribute attribute,
                                                CUdeviceptr pointer) {
  STREAMRACE_EMU_DRIVER_TRACED(cuPointerGetAttribute, pointerAttribute(data, attribute, pointer),
                               data, attribute, pointer);
}

CUresult streamraceEmuDriverMemGetAddressRange(CUdeviceptr* base, size_t* size,
                                               CUdeviceptr pointer) {
  STREAMRACE_EMU_DRIVER_TRACED(cuMemGetAddressRange_v2, addressRange(base, size, pointer), base,
                               size, pointer);
}

CUresult streamraceEmuDriverMemsetD32Async(CUdeviceptr destination, unsigned int value,
                                           size_t count, CUstream stream) {
  STREAMRACE_EMU_DRIVER_TRACED(
      cuMemsetD32Async, count == 0 ? CUDA_SUCCESS : writeWords(stream, destination, value, count),
      destination, value, count, stream);
}

CUresult streamraceEmuDriverMemsetD32(CUdeviceptr destination, unsigned int value, size_t count) {
  STREAMRACE_EMU_DRIVER_TRACED(
      cuMemsetD32_v2, count == 0 ? CUDA_SUCCESS : writeWords(nullptr, destination, value, count),
      destination, value, count);
}

CUresult streamraceEmuDriverStreamWriteValue32(CUstream stream, CUdeviceptr address,
                                               cuuint32_t value, unsigned int flags) {
  STREAMRACE_EMU_DRIVER_TRACED(cuStreamWriteValue32_v2, writeWords(stream, address, value, 1),
                               stream, address, value, flags);
}

} // extern "C"
