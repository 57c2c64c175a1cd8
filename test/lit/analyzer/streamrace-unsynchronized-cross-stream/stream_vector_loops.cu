// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A fork and a join written as loops over a vector of streams (TransformerEngine's comm/GEMM
// overlap): each stream waits for the main stream's event in one loop, and records an event the
// main stream waits on in another. The loops reach every element, `streams[0]` too, and run at
// least once wherever an element has work (an empty vector holds no stream to have any).
// RUN: %check_streamrace %s %t -- %real_cuda
#include <cuda_runtime.h>

#include <vector>

__global__ void scale(float* data) { data[threadIdx.x] *= 2.0f; }

class Overlap {
public:
  Overlap() {
    for (int i = 0; i < 3; i++) {
      cudaStream_t stream;
      cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
      streams_.push_back(stream);
    }
    cudaEventCreateWithFlags(&start_, cudaEventDisableTiming);
    cudaEventCreateWithFlags(&stop_, cudaEventDisableTiming);
  }

  // Forked and joined by the loops: silent.
  void forked_and_joined(float* data, cudaStream_t main_stream) {
    cudaEventRecord(start_, main_stream);
    for (size_t i = 0; i < streams_.size(); i++)
      cudaStreamWaitEvent(streams_[i], start_, 0);
    scale<<<1, 32, 0, streams_[0]>>>(data);
    for (size_t i = 0; i < streams_.size(); i++) {
      cudaEventRecord(stop_, streams_[i]);
      cudaStreamWaitEvent(main_stream, stop_, 0);
    }
  }

  // The fork loop waits on nothing the main stream recorded: the kernel on `streams_[0]` meets
  // the caller's work.
  void joined_only(float* data, cudaStream_t main_stream) {
    scale<<<1, 32, 0, streams_[0]>>>(data);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'data' is read and written by kernel 'scale' on stream 'this->streams_[0]' while the caller's work on stream 'main_stream' before the call may still be writing it; stream 'this->streams_[0]' does not wait for stream 'main_stream' first [streamrace-unsynchronized-cross-stream]
    // CHECK-MESSAGES: :[[@LINE-3]]:8: note: 'joined_only' takes stream 'main_stream': the caller's work on it before the call may still be writing 'data'
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: an event recorded on stream 'main_stream' and waited on by stream 'this->streams_[0]' (cudaStreamWaitEvent) here would order the two
    for (size_t i = 0; i < streams_.size(); i++) {
      cudaEventRecord(stop_, streams_[i]);
      cudaStreamWaitEvent(main_stream, stop_, 0);
    }
  }

  // Forked, never joined: the caller's later work meets the kernel's.
  void forked_only(float* data, cudaStream_t main_stream) {
    cudaEventRecord(start_, main_stream);
    for (size_t i = 0; i < streams_.size(); i++)
      cudaStreamWaitEvent(streams_[i], start_, 0);
    scale<<<1, 32, 0, streams_[0]>>>(data);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'data' is read and written by kernel 'scale' on stream 'this->streams_[0]', which 'forked_only' does not join back into stream 'main_stream' before returning; the caller's later work on stream 'main_stream' may run while it is still writing it [streamrace-unsynchronized-cross-stream]
    // CHECK-MESSAGES: :[[@LINE+1]]:3: note: 'forked_only' returns here: an event recorded on stream 'this->streams_[0]' after that work and waited on by stream 'main_stream' (cudaStreamWaitEvent), or a synchronization of stream 'this->streams_[0]', before returning would order the caller's later work
  }

private:
  std::vector<cudaStream_t> streams_;
  cudaEvent_t start_, stop_;
};

void run(Overlap& overlap, float* data, cudaStream_t stream) {
  overlap.forked_and_joined(data, stream);
  overlap.joined_only(data, stream);
  overlap.forked_only(data, stream);
}
