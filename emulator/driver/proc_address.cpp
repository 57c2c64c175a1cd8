// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// cuGetProcAddress: the driver function of a name, which is how the runtime
// (cudaGetDriverEntryPointByVersion) and libraries built against it reach the driver. Names are
// the base names cuda.h documents ("cuMemGetAddressRange"), answered with the current version
// of each function (cuMemGetAddressRange_v2); every function of the stand-in answers for any
// requested CUDA version.
#include <cuda.h>

#include <cstring>

namespace {

struct Entry {
  const char* name;
  void* function;
};

template <typename Function> void* address(Function* function) {
  return reinterpret_cast<void*>(function);
}

const Entry kEntries[] = {
    {"cuInit", address(&cuInit)},
    {"cuDriverGetVersion", address(&cuDriverGetVersion)},
    {"cuGetErrorName", address(&cuGetErrorName)},
    {"cuGetErrorString", address(&cuGetErrorString)},
    {"cuLogsRegisterCallback", address(&cuLogsRegisterCallback)},
    {"cuLogsUnregisterCallback", address(&cuLogsUnregisterCallback)},
    {"cuDeviceGet", address(&cuDeviceGet)},
    {"cuDeviceGetCount", address(&cuDeviceGetCount)},
    {"cuDeviceGetAttribute", address(&cuDeviceGetAttribute)},
    {"cuDeviceGetName", address(&cuDeviceGetName)},
    {"cuDeviceGetUuid", address(&cuDeviceGetUuid)},
    {"cuDeviceTotalMem", address(&cuDeviceTotalMem)},
    {"cuDevicePrimaryCtxGetState", address(&cuDevicePrimaryCtxGetState)},
    {"cuDevicePrimaryCtxRetain", address(&cuDevicePrimaryCtxRetain)},
    {"cuDevicePrimaryCtxRelease", address(&cuDevicePrimaryCtxRelease)},
    {"cuCtxGetCurrent", address(&cuCtxGetCurrent)},
    {"cuCtxSetCurrent", address(&cuCtxSetCurrent)},
    {"cuCtxPushCurrent", address(&cuCtxPushCurrent)},
    {"cuCtxPopCurrent", address(&cuCtxPopCurrent)},
    {"cuCtxCreate", address(&cuCtxCreate_v4)},
    {"cuCtxDestroy", address(&cuCtxDestroy_v2)},
    {"cuCtxGetDevice", address(&cuCtxGetDevice)},
    {"cuCtxSynchronize", address(&cuCtxSynchronize)},
    {"cuStreamGetCtx", address(&cuStreamGetCtx)},
    {"cuPointerGetAttribute", address(&cuPointerGetAttribute)},
    {"cuMemGetAddressRange", address(&cuMemGetAddressRange)},
    {"cuMemsetD32Async", address(&cuMemsetD32Async)},
    {"cuStreamWriteValue32", address(&cuStreamWriteValue32)},
    {"cuLaunchKernel", address(&cuLaunchKernel)},
    {"cuLaunchCooperativeKernel", address(&cuLaunchCooperativeKernel)},
    {"cuFuncGetParamInfo", address(&cuFuncGetParamInfo)},
    {"cuFuncGetName", address(&cuFuncGetName)},
    {"cuFuncGetAttribute", address(&cuFuncGetAttribute)},
    {"cuFuncSetAttribute", address(&cuFuncSetAttribute)},
    {"cuFuncSetCacheConfig", address(&cuFuncSetCacheConfig)},
    {"cuKernelGetAttribute", address(&cuKernelGetAttribute)},
    {"cuOccupancyMaxActiveBlocksPerMultiprocessor",
     address(&cuOccupancyMaxActiveBlocksPerMultiprocessor)},
    {"cuModuleLoad", address(&cuModuleLoad)},
    {"cuModuleLoadData", address(&cuModuleLoadData)},
    {"cuModuleLoadDataEx", address(&cuModuleLoadDataEx)},
    {"cuModuleUnload", address(&cuModuleUnload)},
    {"cuModuleGetFunction", address(&cuModuleGetFunction)},
    {"cuLinkCreate", address(&cuLinkCreate)},
    {"cuLinkAddData", address(&cuLinkAddData)},
    {"cuLinkComplete", address(&cuLinkComplete)},
    {"cuLinkDestroy", address(&cuLinkDestroy)},
    {"cuTensorMapEncodeTiled", address(&cuTensorMapEncodeTiled)},
    {"cuMemGetAllocationGranularity", address(&cuMemGetAllocationGranularity)},
    {"cuMemAddressReserve", address(&cuMemAddressReserve)},
    {"cuMemAddressFree", address(&cuMemAddressFree)},
    {"cuMemCreate", address(&cuMemCreate)},
    {"cuMemRelease", address(&cuMemRelease)},
    {"cuMemMap", address(&cuMemMap)},
    {"cuMemUnmap", address(&cuMemUnmap)},
    {"cuMemSetAccess", address(&cuMemSetAccess)},
    {"cuMemRetainAllocationHandle", address(&cuMemRetainAllocationHandle)},
    {"cuMemGetAllocationPropertiesFromHandle", address(&cuMemGetAllocationPropertiesFromHandle)},
    {"cuMemExportToShareableHandle", address(&cuMemExportToShareableHandle)},
    {"cuMemImportFromShareableHandle", address(&cuMemImportFromShareableHandle)},
    {"cuMulticastCreate", address(&cuMulticastCreate)},
    {"cuMulticastAddDevice", address(&cuMulticastAddDevice)},
    {"cuMulticastBindMem", address(&cuMulticastBindMem)},
    {"cuMulticastUnbind", address(&cuMulticastUnbind)},
    {"cuDeviceGetDevResource", address(&cuDeviceGetDevResource)},
    {"cuDevSmResourceSplitByCount", address(&cuDevSmResourceSplitByCount)},
    {"cuDevResourceGenerateDesc", address(&cuDevResourceGenerateDesc)},
    {"cuGreenCtxCreate", address(&cuGreenCtxCreate)},
    {"cuGreenCtxDestroy", address(&cuGreenCtxDestroy)},
    {"cuGreenCtxStreamCreate", address(&cuGreenCtxStreamCreate)},
    {"cuCtxFromGreenCtx", address(&cuCtxFromGreenCtx)},
    {"cuGetProcAddress", address(&cuGetProcAddress)},
};

CUresult lookUp(const char* symbol, void** pfn, CUdriverProcAddressQueryResult* symbolStatus) {
  if (symbol == nullptr || pfn == nullptr) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  for (const Entry& entry : kEntries) {
    if (std::strcmp(entry.name, symbol) == 0) {
      *pfn = entry.function;
      if (symbolStatus != nullptr) {
        *symbolStatus = CU_GET_PROC_ADDRESS_SUCCESS;
      }
      return CUDA_SUCCESS;
    }
  }
  *pfn = nullptr;
  if (symbolStatus != nullptr) {
    *symbolStatus = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  }
  return CUDA_ERROR_NOT_FOUND;
}

} // namespace

extern "C" {

CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int, cuuint64_t,
                             CUdriverProcAddressQueryResult* symbolStatus) {
  return lookUp(symbol, pfn, symbolStatus);
}

// The CUDA 11 form, still exported by the driver for programs built against it.
#undef cuGetProcAddress
CUresult cuGetProcAddress(const char* symbol, void** pfn, int, cuuint64_t) {
  return lookUp(symbol, pfn, nullptr);
}

} // extern "C"
