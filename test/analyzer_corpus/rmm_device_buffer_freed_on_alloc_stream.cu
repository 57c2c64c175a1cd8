// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RAPIDS rmm::device_buffer: the RAII buffer frees on the stream it was allocated on, but its last
// user was a kernel on another stream; the stream-ordered free does not wait for that kernel.
// Fixed: the allocation stream waits for the worker stream's event before the buffer goes out of
// scope.
#include <cuda_runtime.h>

__global__ void histogram(const int* keys, int* bins) {
  atomicAdd(&bins[keys[threadIdx.x] & 63], 1);
}

class DeviceBuffer {
public:
  DeviceBuffer(size_t bytes, cudaStream_t stream) : stream_(stream) {
    cudaMallocAsync(&data_, bytes, stream_);
  }
  ~DeviceBuffer() {
    // expect: streamrace-free-while-pending
    cudaFreeAsync(data_, stream_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* data() const { return data_; }

private:
  void* data_ = nullptr;
  cudaStream_t stream_;
};

void count_keys(const int* keys, int* device_totals, cudaStream_t alloc_stream,
                cudaStream_t worker) {
  DeviceBuffer bins(64 * sizeof(int), alloc_stream);
  cudaMemsetAsync(bins.data(), 0, 64 * sizeof(int), alloc_stream);
  cudaEvent_t zeroed;
  cudaEventCreateWithFlags(&zeroed, cudaEventDisableTiming);
  cudaEventRecord(zeroed, alloc_stream);
  cudaStreamWaitEvent(worker, zeroed, 0);
  histogram<<<1, 256, 0, worker>>>(keys, static_cast<int*>(bins.data()));
  cudaMemcpyAsync(device_totals, bins.data(), 64 * sizeof(int), cudaMemcpyDeviceToDevice, worker);
#ifdef FIXED
  cudaEvent_t counted;
  cudaEventCreateWithFlags(&counted, cudaEventDisableTiming);
  cudaEventRecord(counted, worker);
  cudaStreamWaitEvent(alloc_stream, counted, 0);
  cudaEventDestroy(counted);
#endif
  cudaEventDestroy(zeroed);
}
