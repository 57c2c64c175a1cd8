// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// __device__/__constant__ variables: their registration at start-up and the symbol copies.
#include <cuda_runtime_api.h>
// cupti.h brings the parameter structs and callback ids; they must not be included twice.
#include <cupti.h>

#include "api_tracing.h"
#include "copy_operations.h"
#include "symbol_table.h"

using namespace streamrace::emu;

namespace {

// The device address of bytes [offset, offset + count) of `symbol`, checked against its size.
cudaError_t symbolRange(const void* symbol, std::size_t count, std::size_t offset, void** address) {
  std::optional<DeviceSymbol> resolved = SymbolTable::instance().resolve(symbol);
  if (!resolved) {
    return cudaErrorInvalidSymbol;
  }
  if (offset > resolved->size || count > resolved->size - offset) {
    return cudaErrorInvalidValue;
  }
  *address = static_cast<std::byte*>(resolved->address) + offset;
  return cudaSuccess;
}

cudaError_t copyToSymbol(const void* symbol, const void* src, std::size_t count, std::size_t offset,
                         cudaMemcpyKind kind, cudaStream_t stream, DefaultStream zero,
                         ApiFlavor flavor) {
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice &&
      kind != cudaMemcpyDefault) {
    return cudaErrorInvalidMemcpyDirection;
  }
  void* address = nullptr;
  if (cudaError_t error = symbolRange(symbol, count, offset, &address); error != cudaSuccess) {
    return error;
  }
  return copyOnStream(address, src, count, kind, stream, zero, flavor);
}

cudaError_t copyFromSymbol(void* dst, const void* symbol, std::size_t count, std::size_t offset,
                           cudaMemcpyKind kind, cudaStream_t stream, DefaultStream zero,
                           ApiFlavor flavor) {
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice &&
      kind != cudaMemcpyDefault) {
    return cudaErrorInvalidMemcpyDirection;
  }
  void* address = nullptr;
  if (cudaError_t error = symbolRange(symbol, count, offset, &address); error != cudaSuccess) {
    return error;
  }
  return copyOnStream(dst, address, count, kind, stream, zero, flavor);
}

cudaError_t symbolAddress(void** devPtr, const void* symbol) {
  if (devPtr == nullptr) {
    return cudaErrorInvalidValue;
  }
  return symbolRange(symbol, 0, 0, devPtr);
}

cudaError_t symbolSize(std::size_t* size, const void* symbol) {
  if (size == nullptr) {
    return cudaErrorInvalidValue;
  }
  std::optional<DeviceSymbol> resolved = SymbolTable::instance().resolve(symbol);
  if (!resolved) {
    return cudaErrorInvalidSymbol;
  }
  *size = resolved->size;
  return cudaSuccess;
}

constexpr DefaultStream kPlain = DefaultStream::Legacy;
constexpr DefaultStream kPerThread = DefaultStream::PerThread;
constexpr ApiFlavor kSynchronous = ApiFlavor::Synchronous;
constexpr ApiFlavor kAsynchronous = ApiFlavor::Asynchronous;

} // namespace

extern "C" {

// The host shadow's address is how programs name the variable; its size is all the emulator
// needs to give it memory (constant and global variables alike).
void __cudaRegisterVar(void** /*fatCubinHandle*/, char* hostVar, char* /*deviceAddress*/,
                       const char* /*deviceName*/, int /*ext*/, size_t size, int /*constant*/,
                       int /*global*/) {
  SymbolTable::instance().registerVariable(hostVar, size);
}

cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset,
                               cudaMemcpyKind kind) {
  STREAMRACE_EMU_TRACED(
      cudaMemcpyToSymbol, v3020,
      copyToSymbol(symbol, src, count, offset, kind, nullptr, kPlain, kSynchronous), symbol, src,
      count, offset, kind);
}

cudaError_t cudaMemcpyToSymbol_ptds(const void* symbol, const void* src, size_t count,
                                    size_t offset, cudaMemcpyKind kind) {
  STREAMRACE_EMU_TRACED(
      cudaMemcpyToSymbol_ptds, v7000,
      copyToSymbol(symbol, src, count, offset, kind, nullptr, kPerThread, kSynchronous), symbol,
      src, count, offset, kind);
}

cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count,
                                    size_t offset, cudaMemcpyKind kind, cudaStream_t stream) {
  STREAMRACE_EMU_TRACED(
      cudaMemcpyToSymbolAsync, v3020,
      copyToSymbol(symbol, src, count, offset, kind, stream, kPlain, kAsynchronous), symbol, src,
      count, offset, kind, stream);
}

cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void* symbol, const void* src, size_t count,
                                         size_t offset, cudaMemcpyKind kind, cudaStream_t stream) {
  STREAMRACE_EMU_TRACED(
      cudaMemcpyToSymbolAsync_ptsz, v7000,
      copyToSymbol(symbol, src, count, offset, kind, stream, kPerThread, kAsynchronous), symbol,
      src, count, offset, kind, stream);
}

cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset,
                                 cudaMemcpyKind kind) {
  STREAMRACE_EMU_TRACED(
      cudaMemcpyFromSymbol, v3020,
      copyFromSymbol(dst, symbol, count, offset, kind, nullptr, kPlain, kSynchronous), dst, symbol,
      count, offset, kind);
}

cudaError_t cudaMemcpyFromSymbol_ptds(void* dst, const void* symbol, size_t count, size_t offset,
                                      cudaMemcpyKind kind) {
  STREAMRACE_EMU_TRACED(
      cudaMemcpyFromSymbol_ptds, v7000,
      copyFromSymbol(dst, symbol, count, offset, kind, nullptr, kPerThread, kSynchronous), dst,
      symbol, count, offset, kind);
}

cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count, size_t offset,
                                      cudaMemcpyKind kind, cudaStream_t stream) {
  STREAMRACE_EMU_TRACED(
      cudaMemcpyFromSymbolAsync, v3020,
      copyFromSymbol(dst, symbol, count, offset, kind, stream, kPlain, kAsynchronous), dst, symbol,
      count, offset, kind, stream);
}

cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void* dst, const void* symbol, size_t count,
                                           size_t offset, cudaMemcpyKind kind,
                                           cudaStream_t stream) {
  STREAMRACE_EMU_TRACED(
      cudaMemcpyFromSymbolAsync_ptsz, v7000,
      copyFromSymbol(dst, symbol, count, offset, kind, stream, kPerThread, kAsynchronous), dst,
      symbol, count, offset, kind, stream);
}

cudaError_t cudaGetSymbolAddress(void** devPtr, const void* symbol) {
  STREAMRACE_EMU_TRACED(cudaGetSymbolAddress, v3020, symbolAddress(devPtr, symbol), devPtr, symbol);
}

cudaError_t cudaGetSymbolSize(size_t* size, const void* symbol) {
  STREAMRACE_EMU_TRACED(cudaGetSymbolSize, v3020, symbolSize(size, symbol), size, symbol);
}

} // extern "C"
