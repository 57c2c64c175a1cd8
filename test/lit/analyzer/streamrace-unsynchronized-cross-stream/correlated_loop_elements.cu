// A loop that names its buffer and its stream through its variable (`host[i]` copied out on
// `streams[i]`) leaves, once it is over, work whose element is no longer known but whose stream is
// the one of the same `i`. A later access that tells which element it touches tells the stream:
// reading `host[1 - j]` on `streams[j]` meets the copy only where it ran on `streams[1 - j]`,
// another stream, so the pair exchange without events is reported, and so is reading the next
// element `slots[j + 1]` on `streams[j]`. The ordered twins (an event
// per element waited on first) stay silent, as do reading each element on its own stream, a
// buffer the loop did not index by its variable, and the iterations of one loop among themselves
// (work meant to run side by side). A finished loop's work is forgotten this way at the next
// iteration of a loop around it: there it is an earlier iteration's.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

__global__ void consume(float* inout) { inout[threadIdx.x] *= 2.0f; }

struct Pair {
  float* host[2];
  float* scratch[2];
  cudaStream_t streams[2];
  cudaEvent_t copied[2];
};

void exchange(Pair* p, float* const* sources) {
  for (int i = 0; i < 2; ++i)
    cudaMemcpyAsync(p->host[i], sources[i], 256, cudaMemcpyDeviceToHost, p->streams[i]);
  for (int i = 0; i < 2; ++i) {
    const int peer = 1 - i;
    cudaMemcpyAsync(p->scratch[i], p->host[peer], 256, cudaMemcpyHostToDevice, p->streams[i]);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'p->host[1-i]' is read by cudaMemcpyAsync on stream 'p->streams[*]' while cudaMemcpyAsync on stream 'p->streams[*]' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    // CHECK-MESSAGES: :[[@LINE-5]]:5: note: cudaMemcpyAsync writes 'p->host[1-i]' on stream 'p->streams[*]' here
    // CHECK-MESSAGES: :[[@LINE-6]]:89: note: an event recorded on stream 'p->streams[*]' here, and waited on before the later access, would order the two
  }
}

void exchange_ordered(Pair* p, float* const* sources) {
  for (int i = 0; i < 2; ++i) {
    cudaMemcpyAsync(p->host[i], sources[i], 256, cudaMemcpyDeviceToHost, p->streams[i]);
    cudaEventRecord(p->copied[i], p->streams[i]);
  }
  for (int i = 0; i < 2; ++i) {
    const int peer = 1 - i;
    cudaStreamWaitEvent(p->streams[i], p->copied[peer], 0);
    cudaMemcpyAsync(p->scratch[i], p->host[peer], 256, cudaMemcpyHostToDevice, p->streams[i]);
  }
}

void next_element(float** slots, cudaStream_t* streams, int n) {
  for (int i = 0; i < n; ++i)
    cudaMemsetAsync(slots[i], 0, 256, streams[i]);
  for (int j = 0; j + 1 < n; ++j)
    consume<<<1, 64, 0, streams[j]>>>(slots[j + 1]);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'slots[j+1]' is read and written by kernel 'consume' on stream 'streams[*]' while cudaMemsetAsync on stream 'streams[*]' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void next_element_ordered(float** slots, cudaStream_t* streams, cudaEvent_t* cleared, int n) {
  for (int i = 0; i < n; ++i) {
    cudaMemsetAsync(slots[i], 0, 256, streams[i]);
    cudaEventRecord(cleared[i], streams[i]);
  }
  for (int j = 0; j + 1 < n; ++j) {
    cudaStreamWaitEvent(streams[j], cleared[j + 1], 0);
    consume<<<1, 64, 0, streams[j]>>>(slots[j + 1]);
  }
}

void own_element(float** slots, cudaStream_t* streams, int n) {
  for (int i = 0; i < n; ++i)
    cudaMemsetAsync(slots[i], 0, 256, streams[i]);
  for (int j = 0; j < n; ++j)
    consume<<<1, 64, 0, streams[j]>>>(slots[j]);
}

void unindexed_buffer(float* whole, cudaStream_t* streams, int n) {
  for (int i = 0; i < n; ++i)
    cudaMemsetAsync(whole + i * 64, 0, 256, streams[i]);
  for (int j = 0; j < n; ++j)
    consume<<<1, 64, 0, streams[j]>>>(whole + (n - 1 - j) * 64);
}

void iterations_side_by_side(float** slots, cudaStream_t* streams, int n) {
  for (int i = 1; i < n; ++i) {
    cudaMemsetAsync(slots[i], 0, 256, streams[i]);
    consume<<<1, 64, 0, streams[i]>>>(slots[i - 1]);
  }
}

// Each round fills one half of the slots (which, the analysis cannot tell) and exchanges them.
void rounds_of_a_pair(float** slots, cudaStream_t* streams, cudaEvent_t* filled, int rounds) {
  for (int round = 0; round < rounds; ++round) {
    const int half = (round % 2) * 64;
    for (int i = 0; i < 2; ++i) {
      cudaMemsetAsync(slots[i] + half, 0, 256, streams[i]);
      cudaEventRecord(filled[i], streams[i]);
    }
    for (int i = 0; i < 2; ++i) {
      cudaStreamWaitEvent(streams[i], filled[1 - i], 0);
      consume<<<1, 64, 0, streams[i]>>>(slots[1 - i] + half);
    }
  }
}

// A finding about a finished loop's work names its element as any element.
void fan_out_not_joined(float** buffers, cudaStream_t stream, cudaEvent_t ready) {
  cudaStream_t side[2];
  for (int i = 0; i < 2; ++i)
    cudaStreamCreateWithFlags(&side[i], cudaStreamNonBlocking);
  cudaEventRecord(ready, stream);
  for (int i = 0; i < 2; ++i) {
    cudaStreamWaitEvent(side[i], ready, 0);
    cudaMemsetAsync(buffers[1 - i], 0, 256, side[i]);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'buffers[*]' is written by cudaMemsetAsync on stream 'side[*]', which 'fan_out_not_joined' does not join back into stream 'stream' before returning; the caller's later work on stream 'stream' may run while it is still writing it [streamrace-unsynchronized-cross-stream]
  }
}
