// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A function that takes one stream and whose body is in another translation unit (a project's
// `invokeSoftmax(out, in, n, stream)`) enqueues its work on that stream and returns, as CUDA code
// bases write such launchers: it reads what it gets as pointers, and writes what it gets as
// pointers to non-const numbers. A `void *` or a pointer to a struct may be a handle or a
// descriptor, read only; host memory it is given, it may fill and wait for before returning. An
// event it is given, its stream waits on first, and it records after its work.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

// Declared here, defined elsewhere.
void invokeScale(float* out, const float* in, int n, cudaStream_t stream);
void invokeSum(const float* in, int n, cudaStream_t stream);
struct Communicator;
void sendChunk(void* registration, Communicator* comm, int bytes, cudaStream_t stream);
void downloadResult(float* host, const float* device, int n, cudaStream_t stream);
void forkAndJoin(float* data, cudaStream_t first, cudaStream_t second);
void launchThenRecord(float* data, cudaStream_t stream, cudaEvent_t done);

__global__ void consume(const float* in, float* out) { out[threadIdx.x] = in[threadIdx.x]; }

// The launcher reads `staged` on `compute` while the upload on `copy` may still write it.
void upload_then_launch(float* out, float* staged, const float* host, cudaStream_t copy,
                        cudaStream_t compute) {
  cudaMemcpyAsync(staged, host, 256, cudaMemcpyHostToDevice, copy);
  invokeScale(out, staged, 64, compute);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'staged' is read by invokeScale on stream 'compute' while cudaMemcpyAsync on stream 'copy' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: cudaMemcpyAsync writes 'staged' on stream 'copy' here
  // CHECK-MESSAGES: :[[@LINE-4]]:68: note: an event recorded on stream 'copy' here, and waited on before the later access, would order the two
}

// Ordered by an event: silent.
void upload_then_launch_ordered(float* out, float* staged, const float* host, cudaStream_t copy,
                                cudaStream_t compute, cudaEvent_t uploaded) {
  cudaMemcpyAsync(staged, host, 256, cudaMemcpyHostToDevice, copy);
  cudaEventRecord(uploaded, copy);
  cudaStreamWaitEvent(compute, uploaded, 0);
  invokeScale(out, staged, 64, compute);
}

// The launcher writes `out` on `first`; the kernel on `second` reads it unordered.
void launch_then_consume(float* out, const float* in, float* result, cudaStream_t first,
                         cudaStream_t second) {
  invokeScale(out, in, 64, first);
  consume<<<1, 64, 0, second>>>(out, result);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'out' is read by kernel 'consume' on stream 'second' while invokeScale on stream 'first' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: invokeScale reads and writes 'out' on stream 'first' here
  // CHECK-MESSAGES: :[[@LINE-4]]:35: note: an event recorded on stream 'first' here, and waited on before the later access, would order the two
}

// The same, with `second` waiting for `first`: silent.
void launch_then_consume_ordered(float* out, const float* in, float* result, cudaStream_t first,
                                 cudaStream_t second, cudaEvent_t done) {
  invokeScale(out, in, 64, first);
  cudaEventRecord(done, first);
  cudaStreamWaitEvent(second, done, 0);
  consume<<<1, 64, 0, second>>>(out, result);
}

// Two launchers that only read one buffer, on two streams: silent.
void two_readers(const float* in, cudaStream_t first, cudaStream_t second) {
  invokeSum(in, 64, first);
  invokeSum(in, 64, second);
}

// A registration handle and a communicator passed to two sends on two streams are not data the
// sends write: silent.
void two_sends(void* registration, Communicator* comm, cudaStream_t first, cudaStream_t second) {
  sendChunk(registration, comm, 1024, first);
  sendChunk(registration, comm, 1024, second);
}

// Pinned host memory a launcher is given may be filled and waited for inside it: the host's read
// after it is not reported.
void download(const float* device, cudaStream_t stream) {
  float* host;
  cudaMallocHost(reinterpret_cast<void**>(&host), 256);
  downloadResult(host, device, 64, stream);
  float first = host[0];
  (void)first;
  cudaFreeHost(host);
}

// With two streams, the function orders its own work in ways the declaration does not say: not
// taken as a launcher, silent.
void unknown_orderings(float* data, const float* host, cudaStream_t copy, cudaStream_t compute) {
  cudaMemcpyAsync(data, host, 256, cudaMemcpyHostToDevice, copy);
  forkAndJoin(data, copy, compute);
}

// An event a launcher is given it may wait on first: one not recorded yet orders nothing, and the
// launcher's work on `compute` races with the upload on `copy`.
void launch_given_unrecorded_event(float* data, const float* host, cudaStream_t copy,
                                   cudaStream_t compute, cudaEvent_t done) {
  cudaMemcpyAsync(data, host, 256, cudaMemcpyHostToDevice, copy);
  launchThenRecord(data, compute, done);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'data' is read and written by launchThenRecord on stream 'compute' while cudaMemcpyAsync on stream 'copy' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: cudaMemcpyAsync writes 'data' on stream 'copy' here
  // CHECK-MESSAGES: :[[@LINE-4]]:66: note: an event recorded on stream 'copy' here, and waited on before the later access, would order the two
}

// Recorded after the upload, the event it is given orders the launcher's work after it: silent.
void launch_given_recorded_event(float* data, const float* host, cudaStream_t copy,
                                 cudaStream_t compute, cudaEvent_t ready) {
  cudaMemcpyAsync(data, host, 256, cudaMemcpyHostToDevice, copy);
  cudaEventRecord(ready, copy);
  launchThenRecord(data, compute, ready);
}

// The event stands for the launcher's work after it: a stream that waits on it reads `data`
// after the launcher wrote it (silent); one that does not races with it.
void wait_for_launchers_event(float* data, float* out, cudaStream_t compute, cudaStream_t other,
                              cudaEvent_t done) {
  launchThenRecord(data, compute, done);
  cudaStreamWaitEvent(other, done, 0);
  consume<<<1, 64, 0, other>>>(data, out);
}

void skip_launchers_event(float* data, float* out, cudaStream_t compute, cudaStream_t other,
                          cudaEvent_t done) {
  launchThenRecord(data, compute, done);
  consume<<<1, 64, 0, other>>>(data, out);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'data' is read by kernel 'consume' on stream 'other' while launchThenRecord on stream 'compute' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: launchThenRecord reads and writes 'data' on stream 'compute' here
  // CHECK-MESSAGES: :[[@LINE-4]]:41: note: an event recorded on stream 'compute' here, and waited on before the later access, would order the two
}

// An event parameter left at its default `0` is none: the launcher is work on its stream alone.
void launchWithOptionalEvent(float* data, cudaStream_t stream, cudaEvent_t launched = 0);

void optional_event_left_out(float* data, const float* host, cudaStream_t copy,
                             cudaStream_t compute) {
  cudaMemcpyAsync(data, host, 256, cudaMemcpyHostToDevice, copy);
  launchWithOptionalEvent(data, compute);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'data' is read and written by launchWithOptionalEvent on stream 'compute' while cudaMemcpyAsync on stream 'copy' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: cudaMemcpyAsync writes 'data' on stream 'copy' here
  // CHECK-MESSAGES: :[[@LINE-4]]:66: note: an event recorded on stream 'copy' here, and waited on before the later access, would order the two
}
