// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The stream-argument contract (stream_argument_contract.cu) for streams kept in an object the
// function is given, as C-style code keeps a pipeline's streams in a struct it passes around: a
// field that only the translation unit's stream creations fill holds streams the program made,
// never the caller's, whichever object holds it. Memory the program allocates into an object's
// private field is the object's own, which the caller reaches only through its methods; a public
// field, as a C-style struct's, the caller may fill itself.
// RUN: %check_streamrace %s %t -- %real_cuda
#include <cuda_runtime.h>

struct Pipeline {
  cudaStream_t copy_stream;
  cudaEvent_t ready;
  cudaEvent_t done;
  float* staging;
};

void pipeline_init(Pipeline* p, size_t n) {
  cudaStreamCreateWithFlags(&p->copy_stream, cudaStreamNonBlocking);
  cudaEventCreateWithFlags(&p->ready, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&p->done, cudaEventDisableTiming);
  cudaMalloc(&p->staging, n * sizeof(float));
}

// The copy on the pipeline's stream reads what the caller handed in, and writes the staging
// buffer the caller may have filled, before waiting for the caller's stream.
void stage_unordered(Pipeline* p, const float* src, size_t n, cudaStream_t stream) {
  cudaMemcpyAsync(p->staging, src, n * sizeof(float), cudaMemcpyDeviceToDevice, p->copy_stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'p->staging' is written by cudaMemcpyAsync on stream 'p->copy_stream' while the caller's work on stream 'stream' before the call may still be writing it; stream 'p->copy_stream' does not wait for stream 'stream' first [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-3]]:6: note: 'stage_unordered' takes stream 'stream': the caller's work on it before the call may still be writing 'p->staging'
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: an event recorded on stream 'stream' and waited on by stream 'p->copy_stream' (cudaStreamWaitEvent) here would order the two
  // CHECK-MESSAGES: :[[@LINE-4]]:3: warning: 'src' is read by cudaMemcpyAsync on stream 'p->copy_stream' while the caller's work on stream 'stream' before the call may still be writing it; stream 'p->copy_stream' does not wait for stream 'stream' first [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-6]]:6: note: 'stage_unordered' takes stream 'stream': the caller's work on it before the call may still be writing 'src'
  // CHECK-MESSAGES: :[[@LINE-6]]:3: note: an event recorded on stream 'stream' and waited on by stream 'p->copy_stream' (cudaStreamWaitEvent) here would order the two
  cudaStreamSynchronize(p->copy_stream);
}

// Waits for the caller's stream first, and the caller's stream waits for the copy: silent.
void stage_ordered(Pipeline* p, const float* src, size_t n, cudaStream_t stream) {
  cudaEventRecord(p->ready, stream);
  cudaStreamWaitEvent(p->copy_stream, p->ready, 0);
  cudaMemcpyAsync(p->staging, src, n * sizeof(float), cudaMemcpyDeviceToDevice, p->copy_stream);
  cudaEventRecord(p->done, p->copy_stream);
  cudaStreamWaitEvent(stream, p->done, 0);
}

// A stream field a function also fills from its caller may hold the caller's stream: no
// contract is read into it.
struct Attached {
  cudaStream_t stream;
  float* staging;
};

void attached_init(Attached* a, size_t n) {
  cudaStreamCreateWithFlags(&a->stream, cudaStreamNonBlocking);
  cudaMalloc(&a->staging, n * sizeof(float));
}

void attach(Attached* a, cudaStream_t stream) { a->stream = stream; }

void stage_attached(Attached* a, const float* src, size_t n, cudaStream_t stream) {
  cudaMemcpyAsync(a->staging, src, n * sizeof(float), cudaMemcpyDeviceToDevice, a->stream);
  cudaStreamSynchronize(a->stream);
}

// An object's private buffer, allocated by its constructor: only the copy's read of what the
// caller handed in is held to the caller's stream.
class Stager {
public:
  explicit Stager(size_t n) {
    cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
    cudaMalloc(&buffer_, n * sizeof(float));
  }

  void stage(const float* src, size_t n) {
    cudaMemcpyAsync(buffer_, src, n * sizeof(float), cudaMemcpyDeviceToDevice, stream_);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'src' is read by cudaMemcpyAsync on stream 'stager.stream_' while the caller's work on stream 'stream' before the call may still be writing it; stream 'stager.stream_' does not wait for stream 'stream' first [streamrace-unsynchronized-cross-stream]
    // CHECK-MESSAGES: :[[@LINE+12]]:3: note: 'stage' is called here
    // CHECK-MESSAGES: :[[@LINE+10]]:6: note: 'stage_through' takes stream 'stream': the caller's work on it before the call may still be writing 'src'
    // CHECK-MESSAGES: :[[@LINE+10]]:3: note: an event recorded on stream 'stream' and waited on by stream 'stager.stream_' (cudaStreamWaitEvent) here would order the two
    cudaStreamSynchronize(stream_);
  }

private:
  cudaStream_t stream_;
  float* buffer_;
};

void stage_through(Stager& stager, const float* src, size_t n, cudaStream_t stream) {
  stager.stage(src, n);
}

// The host waits for the caller's stream first: silent.
void stage_through_after_wait(Stager& stager, const float* src, size_t n, cudaStream_t stream) {
  cudaStreamSynchronize(stream);
  stager.stage(src, n);
}
