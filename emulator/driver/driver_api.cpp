// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The driver entry points a program calls directly, with cuda.h's signatures. Each forwards to
// the emulated runtime (cudart/driver_entry.cpp), which raises the CUPTI driver-domain callbacks.
#include <cuda.h>

#include "driver_entry.h"

extern "C" {

CUresult cuInit(unsigned int flags) {
  return streamraceEmuDriverInit(flags);
}

CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                        unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                        unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                        void** kernelParams, void** extra) {
  return streamraceEmuDriverLaunchKernel(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY,
                                         blockDimZ, sharedMemBytes, hStream, kernelParams, extra);
}

CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t* paramOffset,
                            size_t* paramSize) {
  return streamraceEmuDriverFuncGetParamInfo(func, paramIndex, paramOffset, paramSize);
}

CUresult cuFuncGetName(const char** name, CUfunction hfunc) {
  return streamraceEmuDriverFuncGetName(name, hfunc);
}

} // extern "C"
