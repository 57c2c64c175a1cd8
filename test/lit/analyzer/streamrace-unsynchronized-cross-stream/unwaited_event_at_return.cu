// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A function called from outside records an event after work on memory that outlives the call:
// the record shows the work is meant to be waited for. When nothing in the translation unit
// waits for that event, synchronizes it, queries it or times with it, and the work is still
// running and ordered before no other stream when the function returns, whoever uses the memory
// next meets it unordered.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

struct Backend {
  cudaStream_t stream;
  cudaEvent_t copy_event;
  cudaEvent_t done_event;
};

struct Tensor {
  float* data;
  size_t bytes;
};

void backend_init(Backend* backend) {
  cudaStreamCreateWithFlags(&backend->stream, cudaStreamNonBlocking);
  cudaEventCreateWithFlags(&backend->copy_event, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&backend->done_event, cudaEventDisableTiming);
}

void backend_free(Backend* backend) {
  if (backend->copy_event != nullptr) cudaEventDestroy(backend->copy_event);
  cudaEventDestroy(backend->done_event);
  cudaStreamDestroy(backend->stream);
}

// The copy between two backends is recorded on the source's stream, and the destination's
// stream never waits for it.
bool copy_between_backends(Backend* src_backend, Backend* dst_backend, const Tensor* src,
                           Tensor* dst) {
  if (src_backend == dst_backend) return false;
  cudaMemcpyAsync(dst->data, src->data, dst->bytes, cudaMemcpyDeviceToDevice,
                  src_backend->stream);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'dst->data' is written by cudaMemcpyAsync on stream 'src_backend->stream', still running when 'copy_between_backends' returns, and 'src_backend->copy_event', recorded after it, is waited for nowhere in this translation unit: later work on another stream, or on the host, may run while it is still writing it [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE+2]]:3: note: 'src_backend->copy_event' is recorded here: a cudaStreamWaitEvent on it by the stream that next uses 'dst->data' (cudaEventSynchronize before the host does) would order the two
  if (!src_backend->copy_event) cudaEventCreate(&src_backend->copy_event);
  cudaEventRecord(src_backend->copy_event, src_backend->stream);
  return true;
}

// The destination's stream waits for the copy: silent.
bool copy_between_backends_waited(Backend* src_backend, Backend* dst_backend, const Tensor* src,
                                  Tensor* dst) {
  cudaMemcpyAsync(dst->data, src->data, dst->bytes, cudaMemcpyDeviceToDevice,
                  src_backend->stream);
  cudaEventRecord(src_backend->done_event, src_backend->stream);
  cudaStreamWaitEvent(dst_backend->stream, src_backend->done_event, 0);
  return true;
}

// Recorded on a stream the caller passed in: the caller orders its work after that stream's.
// Silent.
void fill_on_callers_stream(Backend* backend, Tensor* tensor, cudaStream_t stream) {
  cudaMemsetAsync(tensor->data, 0, tensor->bytes, stream);
  cudaEventRecord(backend->copy_event, stream);
}

// Memory the function allocated is its own: silent.
void scratch_on_backend(Backend* backend, size_t bytes) {
  float* scratch;
  cudaMalloc(reinterpret_cast<void**>(&scratch), bytes);
  cudaMemsetAsync(scratch, 0, bytes, backend->stream);
  cudaEventRecord(backend->copy_event, backend->stream);
}
