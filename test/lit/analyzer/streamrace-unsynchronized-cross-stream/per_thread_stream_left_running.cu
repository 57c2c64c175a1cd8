// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A function called from outside that takes no stream and hands none out promises its callers
// nothing to wait on. Work it leaves running on the per-thread default stream, on memory they
// handed in, meets their later work on the program's own streams, which the header creates
// non-blocking: the per-thread default stream orders none of them.
// RUN: %check_streamrace %s %t -- %mock_cuda -I%inputs/backend
#include "backend_streams.h"
#include "cuda_runtime.h"

struct Tensor {
  void* data;
  cudaEvent_t ready;
};

static void memset_tensor(Tensor* tensor, int value, size_t offset, size_t size) {
  cudaMemsetAsync(static_cast<char*>(tensor->data) + offset, value, size, cudaStreamPerThread);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'tensor->data' is written by cudaMemsetAsync on the per-thread default stream, still running when 'memset_tensor' returns: it takes no stream, so the caller's later work, on a stream of its own or on the host, may run while it is still writing it [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE+1]]:1: note: 'memset_tensor' returns here: a synchronization of the per-thread default stream before returning would order the caller's later work
}

static bool copy_tensor(const Tensor* src, Tensor* dst, size_t size) {
  cudaMemcpyAsync(dst->data, src->data, size, cudaMemcpyDeviceToDevice, cudaStreamPerThread);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'dst->data' is written by cudaMemcpyAsync on the per-thread default stream, still running when 'copy_tensor' returns: it takes no stream, so the caller's later work, on a stream of its own or on the host, may run while it is still writing it [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'src->data' is read by cudaMemcpyAsync on the per-thread default stream, still running when 'copy_tensor' returns: it takes no stream, so the caller's later work, on a stream of its own or on the host, may run while it is still reading it [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE+2]]:1: note: 'copy_tensor' returns here: a synchronization of the per-thread default stream before returning would order the caller's later work
  return true;
}

// Synchronized before returning: silent.
static void memset_tensor_synchronized(Tensor* tensor, int value, size_t offset, size_t size) {
  cudaMemsetAsync(static_cast<char*>(tensor->data) + offset, value, size, cudaStreamPerThread);
  cudaStreamSynchronize(cudaStreamPerThread);
}

// An event recorded after the work, kept in the tensor for its users to wait on: silent.
static void memset_tensor_with_event(Tensor* tensor, int value, size_t size) {
  cudaMemsetAsync(tensor->data, value, size, cudaStreamPerThread);
  cudaEventRecord(tensor->ready, cudaStreamPerThread);
}

void use_tensor(BackendContext* context, Tensor* tensor) {
  cudaStreamWaitEvent(context->stream(0), tensor->ready, 0);
}

// Memory it made itself is not its callers': silent.
static void scratch_fill(size_t size) {
  void* scratch;
  cudaMalloc(&scratch, size);
  cudaMemsetAsync(scratch, 0, size, cudaStreamPerThread);
}

// Work on the backend's own stream is the context's to order: silent.
static void memset_on_backend(BackendContext* context, Tensor* tensor, size_t size) {
  cudaMemsetAsync(tensor->data, 0, size, context->stream(0));
}

// A stream parameter makes it an asynchronous function, held to the stream-argument contract
// instead: the caller orders its work after that stream's. Silent.
static void memset_tensor_async(Tensor* tensor, size_t size, cudaStream_t stream) {
  cudaMemsetAsync(tensor->data, 0, size, stream);
}

struct BufferInterface {
  void (*memset_tensor)(Tensor*, int, size_t, size_t);
  bool (*copy_tensor)(const Tensor*, Tensor*, size_t);
  void (*memset_tensor_synchronized)(Tensor*, int, size_t, size_t);
  void (*memset_tensor_with_event)(Tensor*, int, size_t);
  void (*scratch_fill)(size_t);
  void (*memset_on_backend)(BackendContext*, Tensor*, size_t);
  void (*memset_tensor_async)(Tensor*, size_t, cudaStream_t);
};

BufferInterface buffer_interface = {memset_tensor,
                                    copy_tensor,
                                    memset_tensor_synchronized,
                                    memset_tensor_with_event,
                                    scratch_fill,
                                    memset_on_backend,
                                    memset_tensor_async};
