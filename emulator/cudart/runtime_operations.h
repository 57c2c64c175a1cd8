// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The work behind the runtime's stream, event and memory entry points, without their CUPTI
// callbacks: shared by the runtime entry points and the driver's (driver_calls.cpp), each of
// which raises the callbacks of its own domain around it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "runtime_state.h"

namespace streamrace::emu {

cudaError_t createStream(cudaStream_t* pStream, unsigned flags, int priority);
cudaError_t destroyStream(cudaStream_t handle);
cudaError_t synchronizeStream(cudaStream_t handle, DefaultStream zero);
cudaError_t queryStream(cudaStream_t handle, DefaultStream zero);
cudaError_t waitEvent(cudaStream_t handle, cudaEvent_t eventHandle, unsigned flags,
                      DefaultStream zero);
cudaError_t launchHostFunction(cudaStream_t handle, cudaHostFn_t function, void* userData,
                               DefaultStream zero);

cudaError_t createEvent(cudaEvent_t* event, unsigned flags);
cudaError_t recordEvent(cudaEvent_t eventHandle, cudaStream_t streamHandle, unsigned flags,
                        DefaultStream zero);
cudaError_t queryEvent(cudaEvent_t eventHandle);
cudaError_t synchronizeEvent(cudaEvent_t eventHandle);
cudaError_t destroyEvent(cudaEvent_t event);

cudaError_t allocateDevice(void** devPtr, std::size_t size);
cudaError_t freeDevice(void* devPtr);
cudaError_t hostAlloc(void** pointer, std::size_t size, unsigned flags);
cudaError_t freeHost(void* pointer);
cudaError_t mallocManaged(void** pointer, std::size_t size, unsigned flags);
cudaError_t mallocAsync(void** devPtr, std::size_t size, cudaStream_t handle, DefaultStream zero);
cudaError_t freeAsync(void* devPtr, cudaStream_t handle, DefaultStream zero);

} // namespace streamrace::emu
