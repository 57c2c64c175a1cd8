// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The stream-argument contract: a function that takes one stream runs its work after the
// caller's earlier work on that stream and before the caller's later work on it, as every CUDA
// library does. Work it forks onto a stream of its own must wait for the parameter before it
// touches what the caller handed in, and be joined back into the parameter before it returns.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

__global__ void scale(float* data) { data[threadIdx.x] *= 2.0f; }
__global__ void produce(const float* in, float* out) { out[threadIdx.x] = in[threadIdx.x]; }

// Entry: the side stream reads and writes `data` before waiting for `main_stream`, whose earlier
// work (the caller's) may still be writing it.
void fork_without_wait(float* data, cudaStream_t main_stream) {
  cudaStream_t side;
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  scale<<<1, 32, 0, side>>>(data);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'data' is read and written by kernel 'scale' on stream 'side' while the caller's work on stream 'main_stream' before the call may still be writing it; stream 'side' does not wait for stream 'main_stream' first [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-5]]:6: note: 'fork_without_wait' takes stream 'main_stream': the caller's work on it before the call may still be writing 'data'
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: an event recorded on stream 'main_stream' and waited on by stream 'side' (cudaStreamWaitEvent) here would order the two
  cudaEvent_t done;
  cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
  cudaEventRecord(done, side);
  cudaStreamWaitEvent(main_stream, done, 0);
  cudaEventDestroy(done);
  cudaStreamDestroy(side);
}

// Return: the side stream waited for `main_stream`, but is not joined back into it, so the
// caller's next work on `main_stream` may meet `out` (written) and `in` (read) in flight.
void fork_without_join(const float* in, float* out, cudaStream_t main_stream) {
  cudaStream_t side;
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  cudaEvent_t ready;
  cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
  cudaEventRecord(ready, main_stream);
  cudaStreamWaitEvent(side, ready, 0);
  produce<<<1, 32, 0, side>>>(in, out);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'in' is read by kernel 'produce' on stream 'side', which 'fork_without_join' does not join back into stream 'main_stream' before returning; the caller's later work on stream 'main_stream' may run while it is still reading it [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE+5]]:1: note: 'fork_without_join' returns here: an event recorded on stream 'side' after that work and waited on by stream 'main_stream' (cudaStreamWaitEvent), or a synchronization of stream 'side', before returning would order the caller's later work
  // CHECK-MESSAGES: :[[@LINE-3]]:3: warning: 'out' is written by kernel 'produce' on stream 'side', which 'fork_without_join' does not join back into stream 'main_stream' before returning; the caller's later work on stream 'main_stream' may run while it is still writing it [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE+3]]:1: note: 'fork_without_join' returns here: an event recorded on stream 'side' after that work and waited on by stream 'main_stream' (cudaStreamWaitEvent), or a synchronization of stream 'side', before returning would order the caller's later work
  cudaEventDestroy(ready);
  cudaStreamDestroy(side);
}

// The same, returning a status: the `return` ends the parameters, not the caller's memory they
// name, so the work still pending on `out` reaches the caller.
cudaError_t fork_without_join_status(const float* in, float* out, cudaStream_t main_stream) {
  cudaStream_t side;
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  cudaEvent_t ready;
  cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
  cudaEventRecord(ready, main_stream);
  cudaStreamWaitEvent(side, ready, 0);
  produce<<<1, 32, 0, side>>>(in, out);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'in' is read by kernel 'produce' on stream 'side', which 'fork_without_join_status' does not join back into stream 'main_stream' before returning; the caller's later work on stream 'main_stream' may run while it is still reading it [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE+4]]:1: note: 'fork_without_join_status' returns here: an event recorded on stream 'side' after that work and waited on by stream 'main_stream' (cudaStreamWaitEvent), or a synchronization of stream 'side', before returning would order the caller's later work
  // CHECK-MESSAGES: :[[@LINE-3]]:3: warning: 'out' is written by kernel 'produce' on stream 'side', which 'fork_without_join_status' does not join back into stream 'main_stream' before returning; the caller's later work on stream 'main_stream' may run while it is still writing it [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE+2]]:1: note: 'fork_without_join_status' returns here: an event recorded on stream 'side' after that work and waited on by stream 'main_stream' (cudaStreamWaitEvent), or a synchronization of stream 'side', before returning would order the caller's later work
  return cudaSuccess;
}

// Joined before the status is returned: silent.
cudaError_t fork_and_join_status(const float* in, float* out, cudaStream_t main_stream) {
  cudaStream_t side;
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  cudaEvent_t ready, done;
  cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
  cudaEventRecord(ready, main_stream);
  cudaStreamWaitEvent(side, ready, 0);
  produce<<<1, 32, 0, side>>>(in, out);
  cudaEventRecord(done, side);
  cudaStreamWaitEvent(main_stream, done, 0);
  return cudaSuccess;
}

// A caller the unjoined work only passes through is not reported for it again: the join belongs
// in fork_without_join, where it orders the work for every caller.
void passes_unjoined_work_through(const float* in, float* out, cudaStream_t main_stream) {
  fork_without_join(in, out, main_stream);
}

// Forked and joined: silent.
void fork_and_join(const float* in, float* out, cudaStream_t main_stream) {
  cudaStream_t side;
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  cudaEvent_t ready, done;
  cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
  cudaEventRecord(ready, main_stream);
  cudaStreamWaitEvent(side, ready, 0);
  produce<<<1, 32, 0, side>>>(in, out);
  cudaEventRecord(done, side);
  cudaStreamWaitEvent(main_stream, done, 0);
}

// The host waits for the caller's stream, then for the side stream before returning: silent.
void host_synchronized(float* data, cudaStream_t main_stream) {
  cudaStream_t side;
  cudaStreamCreate(&side);
  cudaStreamSynchronize(main_stream);
  scale<<<1, 32, 0, side>>>(data);
  cudaStreamSynchronize(side);
  cudaStreamDestroy(side);
}

// The device is synchronized on both sides: silent.
void device_synchronized(float* data, cudaStream_t main_stream) {
  cudaStream_t side;
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  cudaDeviceSynchronize();
  scale<<<1, 32, 0, side>>>(data);
  cudaDeviceSynchronize();
}

// Everything on the caller's stream: silent.
void single_stream(const float* in, float* out, cudaStream_t main_stream) {
  produce<<<1, 32, 0, main_stream>>>(in, out);
  scale<<<1, 32, 0, main_stream>>>(out);
}

// Memory the function allocated is its own; the caller never saw it: silent.
void own_buffer(cudaStream_t main_stream) {
  cudaStream_t side;
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  float* scratch;
  cudaMalloc((void**)&scratch, 128);
  scale<<<1, 32, 0, side>>>(scratch);
  cudaFree(scratch);
}

// Two stream parameters: which one the caller's work on `data` is on is not known: silent.
void two_streams(float* data, cudaStream_t first, cudaStream_t second) {
  cudaStream_t side;
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  scale<<<1, 32, 0, side>>>(data);
}

// The side stream is not known to differ from the parameter (it came from elsewhere): silent.
cudaStream_t pooled_stream();
void stream_from_elsewhere(float* data, cudaStream_t main_stream) {
  cudaStream_t side = pooled_stream();
  scale<<<1, 32, 0, side>>>(data);
}

// A parameter defaulting to the legacy stream: a blocking side stream is ordered with it when the
// caller leaves the default, so only a non-blocking one is held to the contract.
void defaulted_blocking(float* data, cudaStream_t main_stream = 0) {
  cudaStream_t side;
  cudaStreamCreate(&side);
  scale<<<1, 32, 0, side>>>(data);
}

// The stream parameter only records and waits; the side work is on the function's own memory.
void only_records(cudaStream_t main_stream) {
  cudaStream_t side;
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  float* scratch;
  cudaMalloc((void**)&scratch, 128);
  cudaEvent_t ready;
  cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
  cudaEventRecord(ready, main_stream);
  cudaStreamWaitEvent(side, ready, 0);
  scale<<<1, 32, 0, side>>>(scratch);
  cudaStreamSynchronize(side);
  cudaFree(scratch);
}

// The side work is in a helper analysed in place: the finding sits in the helper, its notes give
// the call and the function that takes the caller's stream.
static void launch_on(float* data, cudaStream_t stream) { scale<<<1, 32, 0, stream>>>(data); }
// CHECK-MESSAGES: :[[@LINE-1]]:59: warning: 'data' is read and written by kernel 'scale' on stream 'side' while the caller's work on stream 'main_stream' before the call may still be writing it; stream 'side' does not wait for stream 'main_stream' first [streamrace-unsynchronized-cross-stream]
void fork_through_helper(float* data, cudaStream_t main_stream) {
  cudaStream_t side;
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  launch_on(data, side);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: 'launch_on' is called here
  // CHECK-MESSAGES: :[[@LINE-5]]:6: note: 'fork_through_helper' takes stream 'main_stream': the caller's work on it before the call may still be writing 'data'
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: an event recorded on stream 'main_stream' and waited on by stream 'side' (cudaStreamWaitEvent) here would order the two
  cudaStreamSynchronize(side);
}

// A member stream the constructor created and a getter hands out may come back as the stream a
// caller passes, so the methods are not held to the contract for it: silent.
class Overlap {
public:
  Overlap() { cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking); }
  cudaStream_t side() const { return side_; }
  void run(float* data, cudaStream_t main_stream) { scale<<<1, 32, 0, side_>>>(data); }

private:
  cudaStream_t side_;
};
