// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The driver entry points programs and libraries call directly, with cuda.h's signatures. Those
// that need the emulated machine (devices, contexts, kernels, streams, memory) forward to the
// emulated runtime (cudart/driver_*.cpp), which raises the CUPTI driver-domain callbacks; error
// names and log callbacks are answered here. Loading device code (modules, the JIT linker,
// tensor maps), virtual memory management, multicast objects and green contexts have no
// meaning without a GPU and return CUDA_ERROR_NOT_SUPPORTED.
#include <cuda.h>

#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include "driver_entry.h"

namespace {

struct ErrorName {
  CUresult code;
  const char* name;
};

constexpr ErrorName kErrorNames[] = {
#include "cuda_result_names.inc"
};

const char* errorName(CUresult error) {
  for (const ErrorName& entry : kErrorNames) {
    if (entry.code == error) {
      return entry.name;
    }
  }
  return nullptr;
}

// The driver's description of an error reads like its name: CUDA_ERROR_OUT_OF_MEMORY is
// "out of memory". Built once per code, kept for the process, as the driver's strings are.
const char* errorDescription(CUresult error) {
  static std::mutex mutex;
  static std::set<std::string, std::less<>> descriptions;
  const char* name = errorName(error);
  if (name == nullptr) {
    return nullptr;
  }
  std::string_view words(name);
  for (std::string_view prefix : {"CUDA_ERROR_", "CUDA_"}) {
    if (words.starts_with(prefix)) {
      words.remove_prefix(prefix.size());
      break;
    }
  }
  std::string text(words);
  for (char& c : text) {
    c = c == '_' ? ' ' : static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  }
  std::lock_guard lock(mutex);
  return descriptions.insert(std::move(text)).first->c_str();
}

// Registered log callbacks. The emulator writes no driver log, so none is ever called.
std::mutex logCallbacksMutex;
std::set<CUlogsCallbackHandle> logCallbacks;
CUlogsCallbackHandle nextLogCallback() {
  static std::uintptr_t next = 0;
  return reinterpret_cast<CUlogsCallbackHandle>(++next);
}

} // namespace

extern "C" {

CUresult cuInit(unsigned int flags) {
  return streamraceEmuDriverInit(flags);
}

CUresult cuDriverGetVersion(int* driverVersion) {
  return streamraceEmuDriverDriverGetVersion(driverVersion);
}

CUresult cuGetErrorName(CUresult error, const char** pStr) {
  if (pStr == nullptr) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  *pStr = errorName(error);
  return *pStr != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult error, const char** pStr) {
  if (pStr == nullptr) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  *pStr = errorDescription(error);
  return *pStr != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuLogsRegisterCallback(CUlogsCallback callbackFunc, void*,
                                CUlogsCallbackHandle* callbackOut) {
  if (callbackFunc == nullptr || callbackOut == nullptr) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  std::lock_guard lock(logCallbacksMutex);
  *callbackOut = nextLogCallback();
  logCallbacks.insert(*callbackOut);
  return CUDA_SUCCESS;
}

CUresult cuLogsUnregisterCallback(CUlogsCallbackHandle callback) {
  std::lock_guard lock(logCallbacksMutex);
  return logCallbacks.erase(callback) == 1 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  return streamraceEmuDriverDeviceGet(device, ordinal);
}

CUresult cuDeviceGetCount(int* count) {
  return streamraceEmuDriverDeviceGetCount(count);
}

CUresult cuDeviceGetAttribute(int* pi, CUdevice_attribute attrib, CUdevice dev) {
  return streamraceEmuDriverDeviceGetAttribute(pi, attrib, dev);
}

CUresult cuDeviceGetName(char* name, int len, CUdevice dev) {
  return streamraceEmuDriverDeviceGetName(name, len, dev);
}

CUresult cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice dev) {
  return streamraceEmuDriverDeviceGetUuid(uuid, dev);
}

CUresult cuDeviceTotalMem(size_t* bytes, CUdevice dev) {
  return streamraceEmuDriverDeviceTotalMem(bytes, dev);
}

CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int* flags, int* active) {
  return streamraceEmuDriverDevicePrimaryCtxGetState(dev, flags, active);
}

CUresult cuDevicePrimaryCtxRetain(CUcontext* pctx, CUdevice dev) {
  return streamraceEmuDriverDevicePrimaryCtxRetain(pctx, dev);
}

CUresult cuDevicePrimaryCtxRelease(CUdevice dev) {
  return streamraceEmuDriverDevicePrimaryCtxRelease(dev);
}

CUresult cuCtxGetCurrent(CUcontext* pctx) {
  return streamraceEmuDriverCtxGetCurrent(pctx);
}

CUresult cuCtxSetCurrent(CUcontext ctx) {
  return streamraceEmuDriverCtxSetCurrent(ctx);
}

CUresult cuCtxPushCurrent(CUcontext ctx) {
  return streamraceEmuDriverCtxPushCurrent(ctx);
}

CUresult cuCtxPopCurrent(CUcontext* pctx) {
  return streamraceEmuDriverCtxPopCurrent(pctx);
}

CUresult cuCtxCreate_v4(CUcontext* pctx, CUctxCreateParams* ctxCreateParams, unsigned int flags,
                        CUdevice dev) {
  return streamraceEmuDriverCtxCreate(pctx, ctxCreateParams, flags, dev);
}

CUresult cuCtxDestroy_v2(CUcontext ctx) {
  return streamraceEmuDriverCtxDestroy(ctx);
}

CUresult cuCtxGetDevice(CUdevice* device) {
  return streamraceEmuDriverCtxGetDevice(device);
}

CUresult cuCtxSynchronize(void) {
  return streamraceEmuDriverCtxSynchronize();
}

CUresult cuStreamGetCtx(CUstream hStream, CUcontext* pctx) {
  return streamraceEmuDriverStreamGetCtx(hStream, pctx);
}

CUresult cuPointerGetAttribute(void* data, CUpointer_attribute attribute, CUdeviceptr ptr) {
  return streamraceEmuDriverPointerGetAttribute(data, attribute, ptr);
}

CUresult cuMemGetAddressRange(CUdeviceptr* pbase, size_t* psize, CUdeviceptr dptr) {
  return streamraceEmuDriverMemGetAddressRange(pbase, psize, dptr);
}

CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  return streamraceEmuDriverMemcpy(dst, src, bytes);
}

CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream) {
  return streamraceEmuDriverMemcpyAsync(dst, src, bytes, stream);
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t bytes) {
  return streamraceEmuDriverMemcpyHtoD(dst, src, bytes);
}

CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t bytes) {
  return streamraceEmuDriverMemcpyDtoH(dst, src, bytes);
}

CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  return streamraceEmuDriverMemcpyDtoD(dst, src, bytes);
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, size_t bytes, CUstream stream) {
  return streamraceEmuDriverMemcpyHtoDAsync(dst, src, bytes, stream);
}

CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, size_t bytes, CUstream stream) {
  return streamraceEmuDriverMemcpyDtoHAsync(dst, src, bytes, stream);
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream) {
  return streamraceEmuDriverMemcpyDtoDAsync(dst, src, bytes, stream);
}

CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char value, size_t count) {
  return streamraceEmuDriverMemsetD8(dst, value, count);
}

CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t count, CUstream stream) {
  return streamraceEmuDriverMemsetD8Async(dst, value, count, stream);
}

CUresult cuLaunchHostFunc(CUstream stream, CUhostFn function, void* userData) {
  return streamraceEmuDriverLaunchHostFunc(stream, function, userData);
}

CUresult cuEventRecord(CUevent event, CUstream stream) {
  return streamraceEmuDriverEventRecord(event, stream);
}

CUresult cuEventRecordWithFlags(CUevent event, CUstream stream, unsigned int flags) {
  return streamraceEmuDriverEventRecordWithFlags(event, stream, flags);
}

CUresult cuStreamWaitEvent(CUstream stream, CUevent event, unsigned int flags) {
  return streamraceEmuDriverStreamWaitEvent(stream, event, flags);
}

CUresult cuStreamSynchronize(CUstream stream) {
  return streamraceEmuDriverStreamSynchronize(stream);
}

CUresult cuStreamQuery(CUstream stream) {
  return streamraceEmuDriverStreamQuery(stream);
}

CUresult cuEventSynchronize(CUevent event) {
  return streamraceEmuDriverEventSynchronize(event);
}

CUresult cuEventQuery(CUevent event) {
  return streamraceEmuDriverEventQuery(event);
}

CUresult cuMemAlloc_v2(CUdeviceptr* pointer, size_t bytes) {
  return streamraceEmuDriverMemAlloc(pointer, bytes);
}

CUresult cuMemAllocManaged(CUdeviceptr* pointer, size_t bytes, unsigned int flags) {
  return streamraceEmuDriverMemAllocManaged(pointer, bytes, flags);
}

CUresult cuMemAllocHost_v2(void** pointer, size_t bytes) {
  return streamraceEmuDriverMemAllocHost(pointer, bytes);
}

CUresult cuMemHostAlloc(void** pointer, size_t bytes, unsigned int flags) {
  return streamraceEmuDriverMemHostAlloc(pointer, bytes, flags);
}

CUresult cuMemAllocAsync(CUdeviceptr* pointer, size_t bytes, CUstream stream) {
  return streamraceEmuDriverMemAllocAsync(pointer, bytes, stream);
}

CUresult cuMemFree_v2(CUdeviceptr pointer) {
  return streamraceEmuDriverMemFree(pointer);
}

CUresult cuMemFreeHost(void* pointer) {
  return streamraceEmuDriverMemFreeHost(pointer);
}

CUresult cuMemFreeAsync(CUdeviceptr pointer, CUstream stream) {
  return streamraceEmuDriverMemFreeAsync(pointer, stream);
}

CUresult cuStreamCreate(CUstream* stream, unsigned int flags) {
  return streamraceEmuDriverStreamCreate(stream, flags);
}

CUresult cuStreamCreateWithPriority(CUstream* stream, unsigned int flags, int priority) {
  return streamraceEmuDriverStreamCreateWithPriority(stream, flags, priority);
}

CUresult cuStreamDestroy_v2(CUstream stream) {
  return streamraceEmuDriverStreamDestroy(stream);
}

CUresult cuEventCreate(CUevent* event, unsigned int flags) {
  return streamraceEmuDriverEventCreate(event, flags);
}

CUresult cuEventDestroy_v2(CUevent event) {
  return streamraceEmuDriverEventDestroy(event);
}

CUresult cuMemsetD32_v2(CUdeviceptr destination, unsigned int value, size_t count) {
  return streamraceEmuDriverMemsetD32(destination, value, count);
}

CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t n, CUstream hStream) {
  return streamraceEmuDriverMemsetD32Async(dstDevice, ui, n, hStream);
}

CUresult cuStreamWriteValue32(CUstream stream, CUdeviceptr addr, cuuint32_t value,
                              unsigned int flags) {
  return streamraceEmuDriverStreamWriteValue32(stream, addr, value, flags);
}

CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                        unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                        unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                        void** kernelParams, void** extra) {
  return streamraceEmuDriverLaunchKernel(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY,
                                         blockDimZ, sharedMemBytes, hStream, kernelParams, extra);
}

CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                   unsigned int gridDimZ, unsigned int blockDimX,
                                   unsigned int blockDimY, unsigned int blockDimZ,
                                   unsigned int sharedMemBytes, CUstream hStream,
                                   void** kernelParams) {
  return streamraceEmuDriverLaunchCooperativeKernel(f, gridDimX, gridDimY, gridDimZ, blockDimX,
                                                    blockDimY, blockDimZ, sharedMemBytes, hStream,
                                                    kernelParams);
}

CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t* paramOffset,
                            size_t* paramSize) {
  return streamraceEmuDriverFuncGetParamInfo(func, paramIndex, paramOffset, paramSize);
}

CUresult cuFuncGetName(const char** name, CUfunction hfunc) {
  return streamraceEmuDriverFuncGetName(name, hfunc);
}

CUresult cuFuncGetAttribute(int* pi, CUfunction_attribute attrib, CUfunction hfunc) {
  return streamraceEmuDriverFuncGetAttribute(pi, attrib, hfunc);
}

CUresult cuKernelGetAttribute(int* pi, CUfunction_attribute attrib, CUkernel kernel, CUdevice dev) {
  return streamraceEmuDriverKernelGetAttribute(pi, attrib, kernel, dev);
}

CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value) {
  return streamraceEmuDriverFuncSetAttribute(hfunc, attrib, value);
}

CUresult cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config) {
  return streamraceEmuDriverFuncSetCacheConfig(hfunc, config);
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, CUfunction func, int blockSize,
                                                     size_t dynamicSMemSize) {
  return streamraceEmuDriverOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, func, blockSize,
                                                                      dynamicSMemSize);
}

// ---- No meaning without a GPU. ----

CUresult cuModuleLoad(CUmodule*, const char*) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuModuleLoadData(CUmodule*, const void*) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuModuleLoadDataEx(CUmodule*, const void*, unsigned int, CUjit_option*, void**) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

// No module can have been loaded.
CUresult cuModuleUnload(CUmodule) {
  return CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuModuleGetFunction(CUfunction*, CUmodule, const char*) {
  return CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuLinkCreate(unsigned int, CUjit_option*, void**, CUlinkState*) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuLinkAddData(CUlinkState, CUjitInputType, void*, size_t, const char*, unsigned int,
                       CUjit_option*, void**) {
  return CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuLinkComplete(CUlinkState, void**, size_t*) {
  return CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuLinkDestroy(CUlinkState) {
  return CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuTensorMapEncodeTiled(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                                const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                                const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                CUtensorMapL2promotion, CUtensorMapFloatOOBfill) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMemGetAllocationGranularity(size_t*, const CUmemAllocationProp*,
                                       CUmemAllocationGranularity_flags) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMemAddressReserve(CUdeviceptr*, size_t, size_t, CUdeviceptr, unsigned long long) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMemAddressFree(CUdeviceptr, size_t) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMemCreate(CUmemGenericAllocationHandle*, size_t, const CUmemAllocationProp*,
                     unsigned long long) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMemRelease(CUmemGenericAllocationHandle) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMemMap(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMemUnmap(CUdeviceptr, size_t) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMemSetAccess(CUdeviceptr, size_t, const CUmemAccessDesc*, size_t) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle*, void*) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp*,
                                                CUmemGenericAllocationHandle) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMemExportToShareableHandle(void*, CUmemGenericAllocationHandle,
                                      CUmemAllocationHandleType, unsigned long long) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle*, void*,
                                        CUmemAllocationHandleType) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMulticastCreate(CUmemGenericAllocationHandle*, const CUmulticastObjectProp*) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMulticastAddDevice(CUmemGenericAllocationHandle, CUdevice) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMulticastBindMem(CUmemGenericAllocationHandle, size_t, CUmemGenericAllocationHandle,
                            size_t, size_t, unsigned long long) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMulticastUnbind(CUmemGenericAllocationHandle, CUdevice, size_t, size_t) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuDeviceGetDevResource(CUdevice, CUdevResource*, CUdevResourceType) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuDevSmResourceSplitByCount(CUdevResource*, unsigned int*, const CUdevResource*,
                                     CUdevResource*, unsigned int, unsigned int) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuDevResourceGenerateDesc(CUdevResourceDesc*, CUdevResource*, unsigned int) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuGreenCtxCreate(CUgreenCtx*, CUdevResourceDesc, CUdevice, unsigned int) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuGreenCtxDestroy(CUgreenCtx) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuGreenCtxStreamCreate(CUstream*, CUgreenCtx, unsigned int, int) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuCtxFromGreenCtx(CUcontext*, CUgreenCtx) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

} // extern "C"
