// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A function nothing in the file calls is called from outside, once per step. When it waits for
// an event of its object that it records only further down (a no-op on its first call, as CUDA
// documents, and the previous call's work on the next), it is written to be called again: its
// next call is analysed too, starting with what the last one left pending on the object's
// buffers, the events it recorded and the flags it set (`p->primed = true`).
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

__global__ void accumulate(float* out, const float* staged) {
  out[threadIdx.x] += staged[threadIdx.x];
}

struct Pipeline {
  float* host_stage;
  float* scratch;
  cudaStream_t copy;
  cudaStream_t compute;
  cudaEvent_t staged;
  cudaEvent_t stage_read;
  cudaEvent_t scratch_free;
  bool primed;
};

// The next call's upload overwrites `scratch` while this call's kernel on `compute` may still
// read it: only the host stage is waited for.
void step_without_scratch_wait(Pipeline* p, const float* src, float* dst) {
  if (p->primed) cudaStreamWaitEvent(p->copy, p->stage_read, 0);
  cudaMemcpyAsync(p->host_stage, src, 256, cudaMemcpyDeviceToHost, p->copy);
  cudaMemcpyAsync(p->scratch, p->host_stage, 256, cudaMemcpyHostToDevice, p->copy);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'p->scratch' is written by cudaMemcpyAsync on stream 'p->copy' while kernel 'accumulate' of the previous call to 'step_without_scratch_wait' on stream 'p->compute' may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE+5]]:3: note: kernel 'accumulate' of the previous call to 'step_without_scratch_wait' reads 'p->scratch' on stream 'p->compute' here
  // CHECK-MESSAGES: :[[@LINE+4]]:57: note: an event recorded on stream 'p->compute' here, and waited on before the later access, would order the two
  cudaEventRecord(p->stage_read, p->copy);
  cudaEventRecord(p->staged, p->copy);
  cudaStreamWaitEvent(p->compute, p->staged, 0);
  accumulate<<<1, 64, 0, p->compute>>>(dst, p->scratch);
  cudaEventRecord(p->scratch_free, p->compute);
  p->primed = true;
}

// Both waits, each skipped on the first call only (the flag the last call set holds when the
// next one starts): silent.
void step(Pipeline* p, const float* src, float* dst) {
  if (p->primed) cudaStreamWaitEvent(p->copy, p->stage_read, 0);
  if (p->primed) cudaStreamWaitEvent(p->copy, p->scratch_free, 0);
  cudaMemcpyAsync(p->host_stage, src, 256, cudaMemcpyDeviceToHost, p->copy);
  cudaMemcpyAsync(p->scratch, p->host_stage, 256, cudaMemcpyHostToDevice, p->copy);
  cudaEventRecord(p->stage_read, p->copy);
  cudaEventRecord(p->staged, p->copy);
  cudaStreamWaitEvent(p->compute, p->staged, 0);
  accumulate<<<1, 64, 0, p->compute>>>(dst, p->scratch);
  cudaEventRecord(p->scratch_free, p->compute);
  p->primed = true;
}

// Unconditional waits (a wait on an event never recorded does nothing): silent.
void step_unguarded(Pipeline* p, const float* src, float* dst) {
  cudaStreamWaitEvent(p->copy, p->scratch_free, 0);
  cudaMemcpyAsync(p->scratch, src, 256, cudaMemcpyDeviceToDevice, p->copy);
  cudaEventRecord(p->staged, p->copy);
  cudaStreamWaitEvent(p->compute, p->staged, 0);
  accumulate<<<1, 64, 0, p->compute>>>(dst, p->scratch);
  cudaEventRecord(p->scratch_free, p->compute);
}

// A function that shows nothing of its calls' order is not taken to be called back to back:
// its callers may order the streams between two calls. Silent.
void upload_and_use(Pipeline* p, const float* src, float* dst) {
  cudaMemcpyAsync(p->scratch, src, 256, cudaMemcpyDeviceToDevice, p->copy);
  cudaEventRecord(p->staged, p->copy);
  cudaStreamWaitEvent(p->compute, p->staged, 0);
  accumulate<<<1, 64, 0, p->compute>>>(dst, p->scratch);
}

// A flag another function may clear (it is given the pipeline) is not known after the call:
// the next call may skip the wait, and its upload meet the last call's kernel.
void reset_if_needed(Pipeline* p);
void step_after_reset(Pipeline* p, const float* src, float* dst) {
  if (p->primed) cudaStreamWaitEvent(p->copy, p->scratch_free, 0);
  cudaMemcpyAsync(p->scratch, src, 256, cudaMemcpyDeviceToDevice, p->copy);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'p->scratch' is written by cudaMemcpyAsync on stream 'p->copy' while kernel 'accumulate' of the previous call to 'step_after_reset' on stream 'p->compute' may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE+5]]:3: note: kernel 'accumulate' of the previous call to 'step_after_reset' reads 'p->scratch' on stream 'p->compute' here
  // CHECK-MESSAGES: :[[@LINE+4]]:57: note: an event recorded on stream 'p->compute' here, and waited on before the later access, would order the two
  cudaEventRecord(p->staged, p->copy);
  cudaStreamWaitEvent(p->compute, p->staged, 0);
  p->primed = true;
  accumulate<<<1, 64, 0, p->compute>>>(dst, p->scratch);
  cudaEventRecord(p->scratch_free, p->compute);
  reset_if_needed(p);
}

// Two devices exchange through pinned host stages: each downloads into its own stage, then
// uploads its peer's. The next call's download into a stage must wait for the peer's upload
// from it (`read_done[peer]`). A loop keeps which stage went with which stream (`stage[1 - i]`
// read on `streams[i]`), and so does the next call; the exchange is a helper the entry point
// calls, so the pair is inside one call of it and still reported, once, from the next call.
struct HostPair {
  unsigned char* host = nullptr;
  cudaError_t alloc(size_t bytes) {
    return cudaHostAlloc(reinterpret_cast<void**>(&host), bytes, cudaHostAllocPortable);
  }
};

struct Exchange {
  HostPair stage[2];
  unsigned char* landing[2];
  cudaStream_t streams[2];
  cudaEvent_t downloaded[2];
  cudaEvent_t read_done[2];
  cudaEvent_t landing_free[2];
  bool read_done_valid;
  bool landing_free_valid;
};

static void exchange_without_stage_wait(Exchange* p, unsigned char** src, size_t bytes) {
  for (int i = 0; i < 2; ++i) {
    cudaMemcpyAsync(p->stage[i].host, src[i], bytes, cudaMemcpyDeviceToHost, p->streams[i]);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'p->stage[i].host' is written by cudaMemcpyAsync on stream 'p->streams[*]' while cudaMemcpyAsync of the previous call to 'all_reduce_without_stage_wait' on stream 'p->streams[*]' may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    // CHECK-MESSAGES: :[[@LINE+7]]:5: note: cudaMemcpyAsync of the previous call to 'all_reduce_without_stage_wait' reads 'p->stage[i].host' on stream 'p->streams[*]' here
    cudaEventRecord(p->downloaded[i], p->streams[i]);
  }
  for (int i = 0; i < 2; ++i) {
    const int peer = 1 - i;
    if (p->landing_free_valid) cudaStreamWaitEvent(p->streams[i], p->landing_free[i], 0);
    cudaStreamWaitEvent(p->streams[i], p->downloaded[peer], 0);
    cudaMemcpyAsync(p->landing[i], p->stage[peer].host, bytes, cudaMemcpyHostToDevice,
                    p->streams[i]);
    cudaEventRecord(p->read_done[i], p->streams[i]);
    cudaEventRecord(p->landing_free[i], p->streams[i]);
  }
  p->landing_free_valid = true;
}

bool all_reduce_without_stage_wait(Exchange* p, unsigned char** src, size_t bytes) {
  exchange_without_stage_wait(p, src, bytes);
  return true;
}

static void exchange(Exchange* p, unsigned char** src, size_t bytes) {
  for (int i = 0; i < 2; ++i) {
    if (p->read_done_valid) cudaStreamWaitEvent(p->streams[i], p->read_done[1 - i], 0);
    cudaMemcpyAsync(p->stage[i].host, src[i], bytes, cudaMemcpyDeviceToHost, p->streams[i]);
    cudaEventRecord(p->downloaded[i], p->streams[i]);
  }
  for (int i = 0; i < 2; ++i) {
    const int peer = 1 - i;
    if (p->landing_free_valid) cudaStreamWaitEvent(p->streams[i], p->landing_free[i], 0);
    cudaStreamWaitEvent(p->streams[i], p->downloaded[peer], 0);
    cudaMemcpyAsync(p->landing[i], p->stage[peer].host, bytes, cudaMemcpyHostToDevice,
                    p->streams[i]);
    cudaEventRecord(p->read_done[i], p->streams[i]);
    cudaEventRecord(p->landing_free[i], p->streams[i]);
  }
  p->read_done_valid = true;
  p->landing_free_valid = true;
}

// With the wait for the peer's upload from the stage: silent.
bool all_reduce(Exchange* p, unsigned char** src, size_t bytes) {
  exchange(p, src, bytes);
  return true;
}
