// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The copy and set paths shared by the memcpy/memset entry points, the symbol copies and the
// driver's copies and sets.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "runtime_state.h"

namespace streamrace::emu {

// Synchronous entry points (cudaMemcpy) make the host wait where the runtime documents it;
// asynchronous ones (cudaMemcpyAsync) only for device-to-pageable copies.
enum class ApiFlavor { Synchronous, Asynchronous };

cudaError_t copyOnStream(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind,
                         cudaStream_t handle, DefaultStream zero, ApiFlavor flavor);

// `count` bytes of `value` at `devPtr` (device, pinned or managed memory).
cudaError_t setOnStream(void* devPtr, int value, std::size_t count, cudaStream_t handle,
                        DefaultStream zero, ApiFlavor flavor);

cudaError_t copy3D(const cudaMemcpy3DParms* parameters, cudaStream_t handle, DefaultStream zero,
                   ApiFlavor flavor);

} // namespace streamrace::emu
