// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Two families the emulator cannot give a meaning to, refused with cudaErrorNotSupported so a
// program that depends on them learns it at the call: interprocess handles (each emulated
// process's device memory lives in its own address space, so no other process could open it)
// and loading device code at run time (cudaLibrary*: the emulator runs no device code). The
// queries on a library answer as for a handle that was never loaded.
#include <cuda_runtime_api.h>
// cupti.h brings the parameter structs and callback ids; they must not be included twice.
#include <cupti.h>

#include "api_tracing.h"

extern "C" {

cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t* handle, void* devPtr) {
  STREAMRACE_EMU_TRACED(cudaIpcGetMemHandle, v4010, cudaErrorNotSupported, handle, devPtr);
}

cudaError_t cudaIpcOpenMemHandle(void** devPtr, cudaIpcMemHandle_t handle, unsigned int flags) {
  STREAMRACE_EMU_TRACED(cudaIpcOpenMemHandle, v4010, cudaErrorNotSupported, devPtr, handle, flags);
}

cudaError_t cudaIpcCloseMemHandle(void* devPtr) {
  STREAMRACE_EMU_TRACED(cudaIpcCloseMemHandle, v4010, cudaErrorNotSupported, devPtr);
}

cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t* handle, cudaEvent_t event) {
  STREAMRACE_EMU_TRACED(cudaIpcGetEventHandle, v4010, cudaErrorNotSupported, handle, event);
}

cudaError_t cudaIpcOpenEventHandle(cudaEvent_t* event, cudaIpcEventHandle_t handle) {
  STREAMRACE_EMU_TRACED(cudaIpcOpenEventHandle, v4010, cudaErrorNotSupported, event, handle);
}

cudaError_t cudaLibraryLoadData(cudaLibrary_t* library, const void* code,
                                enum cudaJitOption* jitOptions, void** jitOptionsValues,
                                unsigned int numJitOptions, enum cudaLibraryOption* libraryOptions,
                                void** libraryOptionValues, unsigned int numLibraryOptions) {
  STREAMRACE_EMU_TRACED(cudaLibraryLoadData, v12060, cudaErrorNotSupported, library, code,
                        jitOptions, jitOptionsValues, numJitOptions, libraryOptions,
                        libraryOptionValues, numLibraryOptions);
}

cudaError_t cudaLibraryLoadFromFile(cudaLibrary_t* library, const char* fileName,
                                    enum cudaJitOption* jitOptions, void** jitOptionsValues,
                                    unsigned int numJitOptions,
                                    enum cudaLibraryOption* libraryOptions,
                                    void** libraryOptionValues, unsigned int numLibraryOptions) {
  STREAMRACE_EMU_TRACED(cudaLibraryLoadFromFile, v12060, cudaErrorNotSupported, library, fileName,
                        jitOptions, jitOptionsValues, numJitOptions, libraryOptions,
                        libraryOptionValues, numLibraryOptions);
}

cudaError_t cudaLibraryUnload(cudaLibrary_t library) {
  STREAMRACE_EMU_TRACED(cudaLibraryUnload, v12060, cudaErrorInvalidResourceHandle, library);
}

cudaError_t cudaLibraryGetKernel(cudaKernel_t* pKernel, cudaLibrary_t library, const char* name) {
  STREAMRACE_EMU_TRACED(cudaLibraryGetKernel, v12060, cudaErrorInvalidResourceHandle, pKernel,
                        library, name);
}

cudaError_t cudaLibraryGetKernelCount(unsigned int* count, cudaLibrary_t lib) {
  STREAMRACE_EMU_TRACED(cudaLibraryGetKernelCount, v12060, cudaErrorInvalidResourceHandle, count,
                        lib);
}

cudaError_t cudaLibraryGetGlobal(void** dptr, size_t* bytes, cudaLibrary_t library,
                                 const char* name) {
  STREAMRACE_EMU_TRACED(cudaLibraryGetGlobal, v12060, cudaErrorInvalidResourceHandle, dptr, bytes,
                        library, name);
}

cudaError_t cudaLibraryGetManaged(void** dptr, size_t* bytes, cudaLibrary_t library,
                                  const char* name) {
  STREAMRACE_EMU_TRACED(cudaLibraryGetManaged, v12060, cudaErrorInvalidResourceHandle, dptr, bytes,
                        library, name);
}

cudaError_t cudaLibraryGetUnifiedFunction(void** fptr, cudaLibrary_t library, const char* symbol) {
  STREAMRACE_EMU_TRACED(cudaLibraryGetUnifiedFunction, v12060, cudaErrorInvalidResourceHandle, fptr,
                        library, symbol);
}

} // extern "C"
