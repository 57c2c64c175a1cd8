// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Streams kept in a class, created in its constructor and used by the methods a driver calls:
// how the constructor created them (blocking or cudaStreamNonBlocking) decides whether work on
// the legacy default stream is ordered after them, in every method, also through an RAII
// wrapper's getter or conversion operator.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

__global__ void produce(float* out) { out[threadIdx.x] = 1.0f; }

class SideStreamTrainer {
public:
  SideStreamTrainer() {
    cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking);
    cudaMalloc((void**)&buffer_, 128);
  }
  void step(float* out) {
    produce<<<1, 32, 0, side_>>>(buffer_);
    cudaMemcpyAsync(out, buffer_, 128, cudaMemcpyDeviceToDevice, 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'this->buffer_' is read by cudaMemcpyAsync on the legacy default stream while kernel 'produce' on stream 'this->side_' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  }

private:
  cudaStream_t side_;
  float* buffer_;
};

class BlockingSideStreamTrainer {
public:
  BlockingSideStreamTrainer() {
    cudaStreamCreate(&side_);
    cudaMalloc((void**)&buffer_, 128);
  }
  void step(float* out) {
    produce<<<1, 32, 0, side_>>>(buffer_);
    cudaMemcpyAsync(out, buffer_, 128, cudaMemcpyDeviceToDevice, 0);
  }

private:
  cudaStream_t side_;
  float* buffer_;
};

// RAII wrappers as training code writes them.
class NonBlockingStream {
public:
  NonBlockingStream() { cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking); }
  cudaStream_t get() const { return stream_; }
  operator cudaStream_t() const { return stream_; }

private:
  cudaStream_t stream_;
};

class Stream {
public:
  Stream() { cudaStreamCreate(&stream_); }
  cudaStream_t get() const { return stream_; }

private:
  cudaStream_t stream_;
};

void through_a_getter(float* buffer, float* out) {
  NonBlockingStream copies;
  produce<<<1, 32, 0, copies.get()>>>(buffer);
  produce<<<1, 32>>>(out);
  cudaMemcpyAsync(out, buffer, 128, cudaMemcpyDeviceToDevice, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buffer' is read by cudaMemcpyAsync on the legacy default stream while kernel 'produce' on stream 'copies.get()' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void through_a_conversion(float* buffer, float* out) {
  NonBlockingStream copies;
  cudaMemsetAsync(buffer, 0, 128, copies);
  produce<<<1, 32>>>(buffer);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buffer' is written by kernel 'produce' on the legacy default stream while cudaMemsetAsync on stream 'copies' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void blocking_wrapper(float* buffer, float* out) {
  Stream copies;
  produce<<<1, 32, 0, copies.get()>>>(buffer);
  cudaMemcpyAsync(out, buffer, 128, cudaMemcpyDeviceToDevice, 0);
}
