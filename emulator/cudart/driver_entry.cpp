// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The driver calls a program makes directly (as Triton-compiled kernels do), on the runtime's
// kernels and streams: a CUfunction is the kernel's record, the handle cudaGetFuncBySymbol and
// __cudaGetKernel give out. Arguments come through kernelParams or packed in `extra`
// (CU_LAUNCH_PARAM_BUFFER_POINTER and _SIZE), laid out as cuFuncGetParamInfo says.
#include "driver_entry.h"

#include <cstddef>
#include <optional>
#include <vector>

#include "driver_tracing.h"
#include "kernel_attributes.h"
#include "kernel_launch.h"
#include "kernel_parameters.h"
#include "kernel_table.h"

using namespace streamrace::emu;

namespace streamrace::emu {

CUresult driverResult(cudaError_t error) {
  switch (error) {
  case cudaSuccess:
    return CUDA_SUCCESS;
  case cudaErrorInvalidDeviceFunction:
  case cudaErrorInvalidResourceHandle:
    return CUDA_ERROR_INVALID_HANDLE;
  case cudaErrorInvalidDevice:
    return CUDA_ERROR_INVALID_DEVICE;
  case cudaErrorNotReady:
    return CUDA_ERROR_NOT_READY;
  case cudaErrorMemoryAllocation:
    return CUDA_ERROR_OUT_OF_MEMORY;
  case cudaErrorStreamCaptureUnsupported:
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  case cudaErrorNotSupported:
    return CUDA_ERROR_NOT_SUPPORTED;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
}

} // namespace streamrace::emu

namespace {

// Pointers to each parameter inside the buffer a launch packed in `extra`, or nothing when the
// list is malformed, the buffer is too small for the kernel's layout or the layout is unknown.
std::optional<std::vector<void*>> unpackExtra(CUfunction function, void** extra) {
  std::byte* buffer = nullptr;
  std::size_t bufferSize = 0;
  bool sized = false;
  for (void** entry = extra; *entry != CU_LAUNCH_PARAM_END; entry += 2) {
    if (*entry == CU_LAUNCH_PARAM_BUFFER_POINTER) {
      buffer = static_cast<std::byte*>(entry[1]);
    } else if (*entry == CU_LAUNCH_PARAM_BUFFER_SIZE && entry[1] != nullptr) {
      bufferSize = *static_cast<const std::size_t*>(entry[1]);
      sized = true;
    } else {
      return std::nullopt;
    }
  }
  const KernelRecord* record = KernelTable::instance().recordByHandle(function);
  if (record == nullptr || !sized || (buffer == nullptr && bufferSize != 0)) {
    return std::nullopt;
  }
  const auto layout = KernelTable::instance().parameterLayout(record->hostFunction);
  if (!layout) {
    return std::nullopt;
  }
  std::vector<void*> arguments;
  for (const ParameterSlot& slot : *layout) {
    if (slot.offset + slot.size > bufferSize) {
      return std::nullopt;
    }
    arguments.push_back(buffer + slot.offset);
  }
  return arguments;
}

bool knownFunction(CUfunction function) {
  return KernelTable::instance().recordByHandle(function) != nullptr;
}

CUresult functionAttribute(int* value, CUfunction_attribute attribute, CUfunction function) {
  if (value == nullptr) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (!knownFunction(function)) {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  const cudaFuncAttributes attributes = emulatedKernelAttributes();
  switch (attribute) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *value = attributes.maxThreadsPerBlock;
    break;
  case CU_FUNC_ATTRIBUTE_NUM_REGS:
    *value = attributes.numRegs;
    break;
  case CU_FUNC_ATTRIBUTE_PTX_VERSION:
    *value = attributes.ptxVersion;
    break;
  case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
    *value = attributes.binaryVersion;
    break;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
    *value = attributes.maxDynamicSharedSizeBytes;
    break;
  default:
    *value = 0;
    break;
  }
  return CUDA_SUCCESS;
}

CUresult occupancy(int* numBlocks, CUfunction function, int blockSize) {
  if (numBlocks == nullptr || blockSize <= 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (!knownFunction(function)) {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  *numBlocks = activeBlocksPerMultiprocessor(blockSize);
  return CUDA_SUCCESS;
}

} // namespace

extern "C" {

CUresult streamraceEmuDriverInit(unsigned int flags) {
  const cuInit_params params{flags};
  return tracedDriverCall(CUPTI_DRIVER_TRACE_CBID_cuInit, "cuInit", &params,
                          [&] { return flags == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; });
}

// The launch raises its own cuLaunchKernel callbacks (launchKernel does, for every launch).
CUresult streamraceEmuDriverLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                         unsigned int gridDimZ, unsigned int blockDimX,
                                         unsigned int blockDimY, unsigned int blockDimZ,
                                         unsigned int sharedMemBytes, CUstream hStream,
                                         void** kernelParams, void** extra) {
  ensureInitialized();
  std::vector<void*> unpacked;
  if (extra != nullptr) {
    if (kernelParams != nullptr) {
      return CUDA_ERROR_INVALID_VALUE;
    }
    std::optional<std::vector<void*>> arguments = unpackExtra(f, extra);
    if (!arguments) {
      return CUDA_ERROR_INVALID_VALUE;
    }
    unpacked = std::move(*arguments);
    kernelParams = unpacked.data();
  }
  const auto kernel =
      KernelTable::instance().launchInfoByHandle(reinterpret_cast<const KernelRecord*>(f));
  return driverResult(launchKernel(kernel, dim3(gridDimX, gridDimY, gridDimZ),
                                   dim3(blockDimX, blockDimY, blockDimZ), kernelParams,
                                   sharedMemBytes, hStream, DefaultStream::Legacy, extra));
}

CUresult streamraceEmuDriverFuncGetParamInfo(CUfunction func, std::size_t paramIndex,
                                             std::size_t* paramOffset, std::size_t* paramSize) {
  const cuFuncGetParamInfo_params params{func, paramIndex, paramOffset, paramSize};
  return tracedDriverCall(
      CUPTI_DRIVER_TRACE_CBID_cuFuncGetParamInfo, "cuFuncGetParamInfo", &params, [&] {
        const KernelRecord* record = KernelTable::instance().recordByHandle(func);
        if (record == nullptr) {
          return CUDA_ERROR_INVALID_HANDLE;
        }
        const auto layout = KernelTable::instance().parameterLayout(record->hostFunction);
        if (paramOffset == nullptr || paramSize == nullptr || !layout ||
            paramIndex >= layout->size()) {
          return CUDA_ERROR_INVALID_VALUE;
        }
        *paramOffset = (*layout)[paramIndex].offset;
        *paramSize = (*layout)[paramIndex].size;
        return CUDA_SUCCESS;
      });
}

// The name lives as long as the kernel's record: the whole process.
CUresult streamraceEmuDriverFuncGetName(const char** name, CUfunction hfunc) {
  const cuFuncGetName_params params{name, hfunc};
  return tracedDriverCall(CUPTI_DRIVER_TRACE_CBID_cuFuncGetName, "cuFuncGetName", &params, [&] {
    const KernelRecord* record = KernelTable::instance().recordByHandle(hfunc);
    if (name == nullptr) {
      return CUDA_ERROR_INVALID_VALUE;
    }
    if (record == nullptr) {
      return CUDA_ERROR_INVALID_HANDLE;
    }
    *name = record->deviceName.c_str();
    return CUDA_SUCCESS;
  });
}

// A cooperative launch runs like any other: every block of an emulated kernel is resident.
CUresult streamraceEmuDriverLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX,
                                                    unsigned int gridDimY, unsigned int gridDimZ,
                                                    unsigned int blockDimX, unsigned int blockDimY,
                                                    unsigned int blockDimZ,
                                                    unsigned int sharedMemBytes, CUstream hStream,
                                                    void** kernelParams) {
  return streamraceEmuDriverLaunchKernel(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY,
                                         blockDimZ, sharedMemBytes, hStream, kernelParams, nullptr);
}

CUresult streamraceEmuDriverFuncGetAttribute(int* value, CUfunction_attribute attribute,
                                             CUfunction function) {
  STREAMRACE_EMU_DRIVER_TRACED(cuFuncGetAttribute, functionAttribute(value, attribute, function),
                               value, attribute, function);
}

// A CUkernel is the kernel's record too; every device runs it alike.
CUresult streamraceEmuDriverKernelGetAttribute(int* value, CUfunction_attribute attribute,
                                               CUkernel kernel, CUdevice device) {
  STREAMRACE_EMU_DRIVER_TRACED(
      cuKernelGetAttribute,
      Runtime::instance().validDevice(device)
          ? functionAttribute(value, attribute, reinterpret_cast<CUfunction>(kernel))
          : CUDA_ERROR_INVALID_DEVICE,
      value, attribute, kernel, device);
}

// Settings change nothing on the emulator; they are accepted for kernels it knows.
CUresult streamraceEmuDriverFuncSetAttribute(CUfunction function, CUfunction_attribute attribute,
                                             int value) {
  STREAMRACE_EMU_DRIVER_TRACED(cuFuncSetAttribute,
                               knownFunction(function) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE,
                               function, attribute, value);
}

CUresult streamraceEmuDriverFuncSetCacheConfig(CUfunction function, CUfunc_cache config) {
  STREAMRACE_EMU_DRIVER_TRACED(cuFuncSetCacheConfig,
                               knownFunction(function) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE,
                               function, config);
}

CUresult streamraceEmuDriverOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks,
                                                                      CUfunction function,
                                                                      int blockSize,
                                                                      size_t dynamicSMemSize) {
  STREAMRACE_EMU_DRIVER_TRACED(cuOccupancyMaxActiveBlocksPerMultiprocessor,
                               occupancy(numBlocks, function, blockSize), numBlocks, function,
                               blockSize, dynamicSMemSize);
}

} // extern "C"
