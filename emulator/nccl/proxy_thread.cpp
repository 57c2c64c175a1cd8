// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "proxy_thread.h"

#include "settings.h"

#include <cuda_runtime_api.h>

#include <cstring>
#include <thread>

namespace streamrace::emu::nccl {
namespace {

constexpr std::size_t kFifoBytes = 4096;

bool proxyThreadWanted() {
  const std::optional<std::string> text = settingText(Setting::NcclProxyThread);
  if (!text || *text == "off") {
    return false;
  }
  if (*text != "on") {
    rejectSetting(Setting::NcclProxyThread, *text);
  }
  return true;
}

// What a proxy does first: a pinned FIFO the host fills, copied to the device on the proxy's
// own stream, waited for, and given back.
bool stageFifo(int device) {
  void* fifo = nullptr;
  void* deviceFifo = nullptr;
  cudaStream_t stream = nullptr;
  bool ok = cudaSetDevice(device) == cudaSuccess &&
            cudaHostAlloc(&fifo, kFifoBytes, cudaHostAllocDefault) == cudaSuccess &&
            cudaMalloc(&deviceFifo, kFifoBytes) == cudaSuccess &&
            cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess;
  if (ok) {
    std::memset(fifo, 0, kFifoBytes);
    ok = cudaMemcpyAsync(deviceFifo, fifo, kFifoBytes, cudaMemcpyHostToDevice, stream) ==
             cudaSuccess &&
         cudaStreamSynchronize(stream) == cudaSuccess;
  }
  if (stream != nullptr) {
    ok = cudaStreamDestroy(stream) == cudaSuccess && ok;
  }
  if (deviceFifo != nullptr) {
    ok = cudaFree(deviceFifo) == cudaSuccess && ok;
  }
  if (fifo != nullptr) {
    ok = cudaFreeHost(fifo) == cudaSuccess && ok;
  }
  return ok;
}

} // namespace

bool runProxySetUp(int device) {
  if (!proxyThreadWanted()) {
    return true;
  }
  bool ok = false;
  std::thread proxy([&] { ok = stageFifo(device); });
  proxy.join();
  return ok;
}

} // namespace streamrace::emu::nccl
