// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The driver calls a program makes directly (as Triton-compiled kernels do), on the runtime's
// kernels and streams: a CUfunction is the kernel's record, the handle cudaGetFuncBySymbol and
// __cudaGetKernel give out. Arguments come through kernelParams or packed in `extra`
// (CU_LAUNCH_PARAM_BUFFER_POINTER and _SIZE), laid out as cuFuncGetParamInfo says.
#include "driver_entry.h"

// cupti.h brings the parameter structs and callback ids; they must not be included twice.
#include <cupti.h>

#include <cstddef>
#include <optional>
#include <vector>

#include "api_tracing.h"
#include "kernel_launch.h"
#include "kernel_parameters.h"
#include "kernel_table.h"

using namespace streamrace::emu;

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

} // namespace

namespace {

// Runs one driver call between its driver-domain callbacks.
template <typename Params, typename Body>
CUresult tracedDriverCall(CUpti_CallbackId cbid, const char* functionName, const Params* params,
                          Body&& body) {
  ensureInitialized();
  CUresult result = CUDA_SUCCESS;
  ApiCallbackScope scope(CUPTI_CB_DOMAIN_DRIVER_API, cbid, functionName, params, &result);
  result = body();
  scope.finish();
  return result;
}

CUresult driverResult(cudaError_t error) {
  switch (error) {
  case cudaSuccess:
    return CUDA_SUCCESS;
  case cudaErrorInvalidDeviceFunction:
  case cudaErrorInvalidResourceHandle:
    return CUDA_ERROR_INVALID_HANDLE;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
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

} // extern "C"
