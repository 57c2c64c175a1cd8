// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A registration handle: an integer a function of the program returns when given the address of a
// buffer pointer (`reg = registerBuffer(&buffer, bytes, comm)`), which later calls pass in place
// of the buffer. A launcher given the handle reads the registered memory: the pointer's, or, for
// a handle kept in a field, the field of the same object the pointer is kept in.
// RUN: %check_streamrace %s %t -- %mock_cuda
// RUN: %check_streamrace --tool=tidy %s %t.tidy -- %mock_cuda
#include "cuda_runtime.h"

#include <cstddef>

struct Communicator;
int registerBuffer(void** buffer, size_t bytes, Communicator* comm, bool allocate);
int countNonZero(const float* data, int n);
void allgatherInPlace(int handle, int offset, int elements, Communicator* comm,
                      cudaStream_t stream = 0, cudaEvent_t launched = 0);
void sendChunk(int source, size_t offset, int peer, Communicator* comm, cudaStream_t stream);
void receiveChunk(int target, size_t offset, int peer, Communicator* comm, cudaStream_t stream);
void scaleBy(int factor, Communicator* comm, cudaStream_t stream);

__global__ void fill(float* out) { out[threadIdx.x] = 1.0f; }

// The all-gather reads the registered buffer on `gather` while the kernel on `compute` may still
// be writing it.
void gather_after_fill(Communicator* comm, cudaStream_t compute, cudaStream_t gather) {
  void* buffer;
  const int handle = registerBuffer(&buffer, 1024, comm, true);
  fill<<<1, 32, 0, compute>>>(static_cast<float*>(buffer));
  allgatherInPlace(handle, 0, 256, comm, gather);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buffer' is read by allgatherInPlace on stream 'gather' while kernel 'fill' on stream 'compute' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: kernel 'fill' writes 'buffer' on stream 'compute' here
  // CHECK-MESSAGES: :[[@LINE-4]]:60: note: an event recorded on stream 'compute' here, and waited on before the later access, would order the two
}

// The same, the gathering stream waiting for the kernel first: silent.
void gather_after_fill_ordered(Communicator* comm, cudaStream_t compute, cudaStream_t gather,
                               cudaEvent_t filled) {
  void* buffer;
  const int handle = registerBuffer(&buffer, 1024, comm, true);
  fill<<<1, 32, 0, compute>>>(static_cast<float*>(buffer));
  cudaEventRecord(filled, compute);
  cudaStreamWaitEvent(gather, filled, 0);
  allgatherInPlace(handle, 0, 256, comm, gather);
}

// An integer a function returns from a buffer it is given, not from a pointer's address, is a
// number: the launcher given it reads nothing of the buffer.
void count_is_no_handle(float* data, Communicator* comm, cudaStream_t compute,
                        cudaStream_t other) {
  fill<<<1, 32, 0, compute>>>(data);
  const int nonZero = countNonZero(data, 32);
  scaleBy(nonZero, comm, other);
}

// A handle kept in a field names the pointer field it registered, in the object's other methods.
class Ring {
public:
  explicit Ring(Communicator* comm) : comm_(comm) {
    handle_ = registerBuffer(&buffer_, 1024, comm_, true);
    cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&send_, cudaStreamNonBlocking);
    cudaEventCreate(&filled_);
  }

  // The send reads the buffer while the kernel may still be writing it.
  void step() {
    fill<<<1, 32, 0, compute_>>>(static_cast<float*>(buffer_));
    sendChunk(handle_, 0, 1, comm_, send_);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'this->buffer_' is read by sendChunk on stream 'this->send_' while kernel 'fill' on stream 'this->compute_' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: kernel 'fill' writes 'this->buffer_' on stream 'this->compute_' here
    // CHECK-MESSAGES: :[[@LINE-4]]:64: note: an event recorded on stream 'this->compute_' here, and waited on before the later access, would order the two
  }

  // Ordered by an event: silent.
  void step_ordered() {
    fill<<<1, 32, 0, compute_>>>(static_cast<float*>(buffer_));
    cudaEventRecord(filled_, compute_);
    cudaStreamWaitEvent(send_, filled_, 0);
    sendChunk(handle_, 0, 1, comm_, send_);
  }

  // A send and a receive given the same handle on two streams: both taken as reads (which of them
  // writes the memory, the declarations do not say), silent.
  void exchange(cudaStream_t receive) {
    sendChunk(handle_, 0, 1, comm_, send_);
    receiveChunk(handle_, 512, 1, comm_, receive);
  }

private:
  Communicator* comm_;
  void* buffer_ = nullptr;
  int handle_ = -1;
  cudaStream_t compute_, send_;
  cudaEvent_t filled_;
};

// An object built from the registered pointer holds it: the handle names that field. A public
// method hands its memory out, so the caller may have filled it on its stream before calling
// `gather`, whose side stream must wait for the caller's stream first.
class Tensor {
public:
  Tensor() = default;
  Tensor(void* data, size_t bytes);
  void* dptr() const;
};

class Overlap {
public:
  Overlap(size_t bytes, Communicator* comm) : comm_(comm) {
    void* registered;
    handle_ = registerBuffer(&registered, bytes, comm_, true);
    buffer_ = Tensor(registered, bytes);
    cudaStreamCreateWithFlags(&comm_stream_, cudaStreamNonBlocking);
    cudaEventCreate(&start_);
    cudaEventCreate(&stop_);
  }

  void* buffer() const { return buffer_.dptr(); }

  void gather(cudaStream_t main) {
    allgatherInPlace(handle_, 0, 1024, comm_, comm_stream_);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'this->buffer_' is read by allgatherInPlace on stream 'this->comm_stream_' while the caller's work on stream 'main' before the call may still be writing it; stream 'this->comm_stream_' does not wait for stream 'main' first [streamrace-unsynchronized-cross-stream]
    // CHECK-MESSAGES: :[[@LINE-3]]:8: note: 'gather' takes stream 'main': the caller's work on it before the call may still be writing 'this->buffer_'
    cudaEventRecord(stop_, comm_stream_);
    cudaStreamWaitEvent(main, stop_, 0);
  }

  // The side stream waits for the caller's stream first: silent.
  void gather_ordered(cudaStream_t main) {
    cudaEventRecord(start_, main);
    cudaStreamWaitEvent(comm_stream_, start_, 0);
    allgatherInPlace(handle_, 0, 1024, comm_, comm_stream_);
    cudaEventRecord(stop_, comm_stream_);
    cudaStreamWaitEvent(main, stop_, 0);
  }

private:
  Communicator* comm_;
  int handle_ = -1;
  Tensor buffer_;
  cudaStream_t comm_stream_;
  cudaEvent_t start_, stop_;
};

// The same object without a method handing its memory out: only its own methods reach it, and the
// caller's earlier work on its stream cannot be writing it (silent).
class PrivateOverlap {
public:
  PrivateOverlap(size_t bytes, Communicator* comm) : comm_(comm) {
    void* registered;
    handle_ = registerBuffer(&registered, bytes, comm_, true);
    buffer_ = Tensor(registered, bytes);
    cudaStreamCreateWithFlags(&comm_stream_, cudaStreamNonBlocking);
    cudaEventCreate(&stop_);
  }

  void gather(cudaStream_t main) {
    allgatherInPlace(handle_, 0, 1024, comm_, comm_stream_);
    cudaEventRecord(stop_, comm_stream_);
    cudaStreamWaitEvent(main, stop_, 0);
  }

private:
  Communicator* comm_;
  int handle_ = -1;
  Tensor buffer_;
  cudaStream_t comm_stream_;
  cudaEvent_t stop_;
};
