// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Buffers owned by tensor objects held in std::unique_ptr and read through ->data(): the KV cache
// is appended on the prefill stream and read by the decode stream through the same getter,
// unordered. Fixed: the decode stream waits for an event recorded after the append.
#include <cuda_runtime.h>

#include <memory>

__global__ void append_kv(const float* kv_new, float* cache, int pos) {
  cache[pos * 64 + threadIdx.x] = kv_new[threadIdx.x];
}
__global__ void attend(const float* cache, float* out, int len) {
  out[threadIdx.x] = cache[(len - 1) * 64 + threadIdx.x];
}

class DeviceTensor {
public:
  explicit DeviceTensor(size_t elems) { cudaMalloc(&data_, elems * sizeof(float)); }
  ~DeviceTensor() { cudaFree(data_); }
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;
  float* data() const { return data_; }

private:
  float* data_ = nullptr;
};

struct KvCache {
  std::unique_ptr<DeviceTensor> keys;
  int length = 0;
};

void prefill_then_decode(KvCache& cache, const float* kv_new, float* out, cudaStream_t prefill,
                         cudaStream_t decode) {
  append_kv<<<1, 64, 0, prefill>>>(kv_new, cache.keys->data(), cache.length);
  cache.length += 1;
#ifdef FIXED
  cudaEvent_t appended;
  cudaEventCreateWithFlags(&appended, cudaEventDisableTiming);
  cudaEventRecord(appended, prefill);
  cudaStreamWaitEvent(decode, appended, 0);
  cudaEventDestroy(appended);
#endif
  // expect: streamrace-unsynchronized-cross-stream
  attend<<<1, 64, 0, decode>>>(cache.keys->data(), out, cache.length);
}
