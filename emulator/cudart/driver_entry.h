// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the driver stand-in (emulator/driver, libcuda.so.1) forwards to: the driver calls that
// need the runtime's devices, kernels, streams and memory. Exported by the emulated
// libcudart.so.13 only, under its own version node; each raises the driver-domain CUPTI
// callbacks a real driver would. Each is the driver function of the same name after
// "streamraceEmuDriver", with its signature.
#pragma once

#include <cuda.h>

#include <cstddef>

extern "C" {

CUresult streamraceEmuDriverInit(unsigned int flags);
CUresult streamraceEmuDriverDriverGetVersion(int* version);

CUresult streamraceEmuDriverDeviceGet(CUdevice* device, int ordinal);
CUresult streamraceEmuDriverDeviceGetCount(int* count);
CUresult streamraceEmuDriverDeviceGetAttribute(int* value, CUdevice_attribute attribute,
                                               CUdevice device);
CUresult streamraceEmuDriverDeviceGetName(char* name, int length, CUdevice device);
CUresult streamraceEmuDriverDeviceGetUuid(CUuuid* uuid, CUdevice device);
CUresult streamraceEmuDriverDeviceTotalMem(size_t* bytes, CUdevice device);
CUresult streamraceEmuDriverDevicePrimaryCtxGetState(CUdevice device, unsigned int* flags,
                                                     int* active);
CUresult streamraceEmuDriverDevicePrimaryCtxRetain(CUcontext* context, CUdevice device);
CUresult streamraceEmuDriverDevicePrimaryCtxRelease(CUdevice device);

CUresult streamraceEmuDriverCtxGetCurrent(CUcontext* context);
CUresult streamraceEmuDriverCtxSetCurrent(CUcontext context);
CUresult streamraceEmuDriverCtxPushCurrent(CUcontext context);
CUresult streamraceEmuDriverCtxPopCurrent(CUcontext* context);
CUresult streamraceEmuDriverCtxCreate(CUcontext* context, CUctxCreateParams* params,
                                      unsigned int flags, CUdevice device);
CUresult streamraceEmuDriverCtxDestroy(CUcontext context);
CUresult streamraceEmuDriverCtxGetDevice(CUdevice* device);
CUresult streamraceEmuDriverCtxSynchronize(void);
CUresult streamraceEmuDriverStreamGetCtx(CUstream stream, CUcontext* context);

CUresult streamraceEmuDriverPointerGetAttribute(void* data, CUpointer_attribute attribute,
                                                CUdeviceptr pointer);
CUresult streamraceEmuDriverMemGetAddressRange(CUdeviceptr* base, size_t* size,
                                               CUdeviceptr pointer);
CUresult streamraceEmuDriverMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
CUresult streamraceEmuDriverMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                                        CUstream stream);
CUresult streamraceEmuDriverMemcpyHtoD(CUdeviceptr dst, const void* src, size_t bytes);
CUresult streamraceEmuDriverMemcpyDtoH(void* dst, CUdeviceptr src, size_t bytes);
CUresult streamraceEmuDriverMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
CUresult streamraceEmuDriverMemcpyHtoDAsync(CUdeviceptr dst, const void* src, size_t bytes,
                                            CUstream stream);
CUresult streamraceEmuDriverMemcpyDtoHAsync(void* dst, CUdeviceptr src, size_t bytes,
                                            CUstream stream);
CUresult streamraceEmuDriverMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                                            CUstream stream);
CUresult streamraceEmuDriverMemsetD8(CUdeviceptr dst, unsigned char value, size_t count);
CUresult streamraceEmuDriverMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t count,
                                          CUstream stream);
CUresult streamraceEmuDriverLaunchHostFunc(CUstream stream, CUhostFn function, void* userData);
CUresult streamraceEmuDriverEventRecord(CUevent event, CUstream stream);
CUresult streamraceEmuDriverEventRecordWithFlags(CUevent event, CUstream stream,
                                                 unsigned int flags);
CUresult streamraceEmuDriverStreamWaitEvent(CUstream stream, CUevent event, unsigned int flags);
CUresult streamraceEmuDriverStreamSynchronize(CUstream stream);
CUresult streamraceEmuDriverStreamQuery(CUstream stream);
CUresult streamraceEmuDriverEventSynchronize(CUevent event);
CUresult streamraceEmuDriverEventQuery(CUevent event);
CUresult streamraceEmuDriverMemAlloc(CUdeviceptr* pointer, size_t bytes);
CUresult streamraceEmuDriverMemAllocManaged(CUdeviceptr* pointer, size_t bytes, unsigned int flags);
CUresult streamraceEmuDriverMemAllocHost(void** pointer, size_t bytes);
CUresult streamraceEmuDriverMemHostAlloc(void** pointer, size_t bytes, unsigned int flags);
CUresult streamraceEmuDriverMemAllocAsync(CUdeviceptr* pointer, size_t bytes, CUstream stream);
CUresult streamraceEmuDriverMemFree(CUdeviceptr pointer);
CUresult streamraceEmuDriverMemFreeHost(void* pointer);
CUresult streamraceEmuDriverMemFreeAsync(CUdeviceptr pointer, CUstream stream);
CUresult streamraceEmuDriverStreamCreate(CUstream* stream, unsigned int flags);
CUresult streamraceEmuDriverStreamCreateWithPriority(CUstream* stream, unsigned int flags,
                                                     int priority);
CUresult streamraceEmuDriverStreamDestroy(CUstream stream);
CUresult streamraceEmuDriverEventCreate(CUevent* event, unsigned int flags);
CUresult streamraceEmuDriverEventDestroy(CUevent event);
CUresult streamraceEmuDriverMemsetD32(CUdeviceptr destination, unsigned int value, size_t count);
CUresult streamraceEmuDriverMemsetD32Async(CUdeviceptr destination, unsigned int value,
                                           size_t count, CUstream stream);
CUresult streamraceEmuDriverStreamWriteValue32(CUstream stream, CUdeviceptr address,
                                               cuuint32_t value, unsigned int flags);

CUresult streamraceEmuDriverLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                         unsigned int gridDimZ, unsigned int blockDimX,
                                         unsigned int blockDimY, unsigned int blockDimZ,
                                         unsigned int sharedMemBytes, CUstream hStream,
                                         void** kernelParams, void** extra);
CUresult streamraceEmuDriverLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX,
                                                    unsigned int gridDimY, unsigned int gridDimZ,
                                                    unsigned int blockDimX, unsigned int blockDimY,
                                                    unsigned int blockDimZ,
                                                    unsigned int sharedMemBytes, CUstream hStream,
                                                    void** kernelParams);
CUresult streamraceEmuDriverFuncGetParamInfo(CUfunction func, std::size_t paramIndex,
                                             std::size_t* paramOffset, std::size_t* paramSize);
CUresult streamraceEmuDriverFuncGetName(const char** name, CUfunction hfunc);
CUresult streamraceEmuDriverFuncGetAttribute(int* value, CUfunction_attribute attribute,
                                             CUfunction function);
CUresult streamraceEmuDriverKernelGetAttribute(int* value, CUfunction_attribute attribute,
                                               CUkernel kernel, CUdevice device);
CUresult streamraceEmuDriverFuncSetAttribute(CUfunction function, CUfunction_attribute attribute,
                                             int value);
CUresult streamraceEmuDriverFuncSetCacheConfig(CUfunction function, CUfunc_cache config);
CUresult streamraceEmuDriverOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks,
                                                                      CUfunction function,
                                                                      int blockSize,
                                                                      size_t dynamicSMemSize);
}
