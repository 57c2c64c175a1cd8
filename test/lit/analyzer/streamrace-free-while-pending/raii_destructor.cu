// An RAII buffer frees in its destructor, which runs where the buffer's scope ends (the end of
// the block, or a `return` leaving it): the stream-ordered free must come after the last user.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

__global__ void produce(float* out) { out[threadIdx.x] = 1.0f; }

class DeviceBuffer {
public:
  DeviceBuffer(size_t bytes, cudaStream_t stream) : stream_(stream) {
    cudaMallocAsync((void**)&data_, bytes, stream_);
  }
  ~DeviceBuffer() { cudaFreeAsync(data_, stream_); }
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'scratch.data()' is freed by cudaFreeAsync on stream 'alloc' while kernel 'produce' on stream 'worker' may still be writing it [streamrace-free-while-pending]
  // CHECK-MESSAGES: :[[@LINE+19]]:1: note: the destructor '~DeviceBuffer' is called here
  // CHECK-MESSAGES: :[[@LINE-3]]:21: warning: 'early.data()' is freed by cudaFreeAsync on stream 'alloc' while kernel 'produce' on stream 'worker' may still be writing it [streamrace-free-while-pending]
  // CHECK-MESSAGES: :[[@LINE+37]]:18: note: the destructor '~DeviceBuffer' is called here
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  float* data() const { return data_; }

private:
  float* data_ = nullptr;
  cudaStream_t stream_;
};

void freed_at_the_end_of_the_block(cudaStream_t alloc, cudaStream_t worker) {
  DeviceBuffer scratch(1024, alloc);
  cudaEvent_t allocated;
  cudaEventCreateWithFlags(&allocated, cudaEventDisableTiming);
  cudaEventRecord(allocated, alloc);
  cudaStreamWaitEvent(worker, allocated, 0);
  produce<<<1, 32, 0, worker>>>(scratch.data());
}

void freed_after_the_worker_is_done(cudaStream_t alloc, cudaStream_t worker) {
  DeviceBuffer scratch(1024, alloc);
  cudaEvent_t allocated;
  cudaEventCreateWithFlags(&allocated, cudaEventDisableTiming);
  cudaEventRecord(allocated, alloc);
  cudaStreamWaitEvent(worker, allocated, 0);
  produce<<<1, 32, 0, worker>>>(scratch.data());
  cudaEventRecord(allocated, worker);
  cudaStreamWaitEvent(alloc, allocated, 0);
}

void freed_at_an_early_return(bool skip_sync, cudaStream_t alloc, cudaStream_t worker) {
  DeviceBuffer early(1024, alloc);
  cudaEvent_t allocated;
  cudaEventCreateWithFlags(&allocated, cudaEventDisableTiming);
  cudaEventRecord(allocated, alloc);
  cudaStreamWaitEvent(worker, allocated, 0);
  produce<<<1, 32, 0, worker>>>(early.data());
  if (skip_sync) return;
  cudaStreamSynchronize(worker);
  // The block's end is no statement to insert before: only the early return gets a fix-it.
  // CHECK-FIXES: produce<<<1, 32, 0, worker>>>(early.data());
  // CHECK-FIXES-NEXT: cudaEvent_t streamrace_ready_[[EARLY:[0-9]+]];
  // CHECK-FIXES-NEXT: cudaEventCreateWithFlags(&streamrace_ready_[[EARLY]], cudaEventDisableTiming);
  // CHECK-FIXES-NEXT: cudaEventRecord(streamrace_ready_[[EARLY]], worker);
  // CHECK-FIXES-NEXT: cudaStreamWaitEvent(alloc, streamrace_ready_[[EARLY]], 0);
  // CHECK-FIXES-NEXT: cudaEventDestroy(streamrace_ready_[[EARLY]]);
  // CHECK-FIXES-NEXT: if (skip_sync) return;
}

void freed_on_the_stream_that_used_it(cudaStream_t alloc) {
  DeviceBuffer own(1024, alloc);
  produce<<<1, 32, 0, alloc>>>(own.data());
}
