// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the driver stand-in (emulator/driver, libcuda.so.1) forwards to: the driver calls that
// need the runtime's kernels and streams. Exported by the emulated libcudart.so.13 only, under
// its own version node; each raises the driver-domain CUPTI callbacks a real driver would.
#pragma once

#include <cuda.h>

#include <cstddef>

extern "C" {

CUresult streamraceEmuDriverInit(unsigned int flags);
CUresult streamraceEmuDriverLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                         unsigned int gridDimZ, unsigned int blockDimX,
                                         unsigned int blockDimY, unsigned int blockDimZ,
                                         unsigned int sharedMemBytes, CUstream hStream,
                                         void** kernelParams, void** extra);
CUresult streamraceEmuDriverFuncGetParamInfo(CUfunction func, std::size_t paramIndex,
                                             std::size_t* paramOffset, std::size_t* paramSize);
CUresult streamraceEmuDriverFuncGetName(const char** name, CUfunction hfunc);
}
