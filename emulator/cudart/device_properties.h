// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What each emulated device claims to be, asked through the runtime (cudaGetDeviceProperties,
// cudaDeviceGetAttribute) and the driver stand-in (cuDeviceGetAttribute) alike.
#pragma once

#include <cuda_runtime_api.h>

namespace streamrace::emu {

cudaError_t fillProperties(cudaDeviceProp* prop, int device);
// An attribute the emulator does not describe reads 0, as a feature the device lacks.
cudaError_t deviceAttribute(int* value, cudaDeviceAttr attr, int device);

} // namespace streamrace::emu
