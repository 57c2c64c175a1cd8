// A buffer owned through a smart pointer: `p->data()` and `p.get()->data()` name the same
// storage, whichever spelling each access uses.
// RUN: %check_streamrace %s %t -- %real_cuda -std=c++17
#include <cuda_runtime.h>

#include <memory>

__global__ void fill(float* out) { out[threadIdx.x] = 1.0f; }
__global__ void scale(float* inout) { inout[threadIdx.x] *= 2.0f; }

struct Tensor {
  float* data() const { return data_; }
  float* data_ = nullptr;
};

void racy(std::unique_ptr<Tensor>& tensor, cudaStream_t a, cudaStream_t b) {
  fill<<<1, 32, 0, a>>>(tensor->data());
  scale<<<1, 32, 0, b>>>(tensor.get()->data());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'tensor.get()->data()' is read and written by kernel 'scale' on stream 'b' while kernel 'fill' on stream 'a' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: kernel 'fill' writes 'tensor.get()->data()' on stream 'a' here
}

void ordered(std::shared_ptr<Tensor> tensor, cudaStream_t a, cudaStream_t b) {
  cudaEvent_t filled;
  cudaEventCreateWithFlags(&filled, cudaEventDisableTiming);
  fill<<<1, 32, 0, a>>>(tensor->data());
  cudaEventRecord(filled, a);
  cudaStreamWaitEvent(b, filled, 0);
  scale<<<1, 32, 0, b>>>(tensor->data());
}
