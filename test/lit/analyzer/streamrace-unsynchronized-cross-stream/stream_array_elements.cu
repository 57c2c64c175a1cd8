// Elements of a stream array whose indices the analysis can tell apart are different streams: two
// different constants, or forms of one variable that no integer makes equal (`i` and `i + 1`,
// `i` and `1 - i`, a pair partner `peer = 1 - i`, a ring neighbour `(dev + 1) % n`). Work on
// one, unordered before work on the other, is reported; each racy case has an ordered twin (an
// event recorded on the first and waited on by the second) that stays silent. Indices that may
// be equal (two unrelated variables) may name one stream, so nothing is reported between them.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

__global__ void consume(float* inout) { inout[threadIdx.x] *= 2.0f; }

void two_constants(float* buffer, float* staging, cudaStream_t* streams) {
  cudaMemcpyAsync(buffer, staging, 256, cudaMemcpyHostToDevice, streams[0]);
  consume<<<1, 64, 0, streams[1]>>>(buffer);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buffer' is read and written by kernel 'consume' on stream 'streams[1]' while cudaMemcpyAsync on stream 'streams[0]' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: cudaMemcpyAsync writes 'buffer' on stream 'streams[0]' here
  // CHECK-MESSAGES: :[[@LINE-4]]:77: note: an event recorded on stream 'streams[0]' here, and waited on before the later access, would order the two
}

void two_constants_ordered(float* buffer, float* staging, cudaStream_t* streams,
                           cudaEvent_t copied) {
  cudaMemcpyAsync(buffer, staging, 256, cudaMemcpyHostToDevice, streams[0]);
  cudaEventRecord(copied, streams[0]);
  cudaStreamWaitEvent(streams[1], copied, 0);
  consume<<<1, 64, 0, streams[1]>>>(buffer);
}

void next_element(float* buffer, float* staging, cudaStream_t* streams, int i) {
  cudaMemcpyAsync(buffer, staging, 256, cudaMemcpyHostToDevice, streams[i]);
  consume<<<1, 64, 0, streams[i + 1]>>>(buffer);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buffer' is read and written by kernel 'consume' on stream 'streams[*]' while cudaMemcpyAsync on stream 'streams[*]' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void next_element_ordered(float* buffer, float* staging, cudaStream_t* streams, int i,
                          cudaEvent_t copied) {
  cudaMemcpyAsync(buffer, staging, 256, cudaMemcpyHostToDevice, streams[i]);
  cudaEventRecord(copied, streams[i]);
  cudaStreamWaitEvent(streams[i + 1], copied, 0);
  consume<<<1, 64, 0, streams[i + 1]>>>(buffer);
}

void mirrored_element(float* buffer, float* staging, cudaStream_t* streams, int i) {
  cudaMemcpyAsync(buffer, staging, 256, cudaMemcpyHostToDevice, streams[i]);
  consume<<<1, 64, 0, streams[1 - i]>>>(buffer);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buffer' is read and written by kernel 'consume' on stream 'streams[*]' while cudaMemcpyAsync on stream 'streams[*]' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void mirrored_element_ordered(float* buffer, float* staging, cudaStream_t* streams, int i,
                              cudaEvent_t copied) {
  cudaMemcpyAsync(buffer, staging, 256, cudaMemcpyHostToDevice, streams[i]);
  cudaEventRecord(copied, streams[i]);
  cudaStreamWaitEvent(streams[1 - i], copied, 0);
  consume<<<1, 64, 0, streams[1 - i]>>>(buffer);
}

// ggml's two-device all-reduce: each device pulls what its peer copied out.
void pair_partners(float** staged, float* const* sources, cudaStream_t* streams) {
  for (int i = 0; i < 2; ++i) {
    const int peer = 1 - i;
    cudaMemcpyAsync(staged[peer], sources[peer], 256, cudaMemcpyDeviceToHost, streams[peer]);
    consume<<<1, 64, 0, streams[i]>>>(staged[peer]);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'staged[1-i]' is read and written by kernel 'consume' on stream 'streams[*]' while cudaMemcpyAsync on stream 'streams[*]' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  }
}

void pair_partners_ordered(float** staged, float* const* sources, cudaStream_t* streams,
                           cudaEvent_t* copied) {
  for (int i = 0; i < 2; ++i) {
    const int peer = 1 - i;
    cudaMemcpyAsync(staged[peer], sources[peer], 256, cudaMemcpyDeviceToHost, streams[peer]);
    cudaEventRecord(copied[peer], streams[peer]);
    cudaStreamWaitEvent(streams[i], copied[peer], 0);
    consume<<<1, 64, 0, streams[i]>>>(staged[peer]);
  }
}

void ring_neighbours(float** halos, cudaStream_t* streams, int n) {
  for (int dev = 0; dev < n; ++dev) {
    const int next = (dev + 1) % n;
    cudaMemsetAsync(halos[dev], 0, 256, streams[dev]);
    consume<<<1, 64, 0, streams[next]>>>(halos[dev]);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'halos[dev]' is read and written by kernel 'consume' on stream 'streams[*]' while cudaMemsetAsync on stream 'streams[*]' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  }
}

void ring_neighbours_ordered(float** halos, cudaStream_t* streams, cudaEvent_t* cleared, int n) {
  for (int dev = 0; dev < n; ++dev) {
    const int next = (dev + 1) % n;
    cudaMemsetAsync(halos[dev], 0, 256, streams[dev]);
    cudaEventRecord(cleared[dev], streams[dev]);
    cudaStreamWaitEvent(streams[next], cleared[dev], 0);
    consume<<<1, 64, 0, streams[next]>>>(halos[dev]);
  }
}

void same_element(float* buffer, float* staging, cudaStream_t* streams, int i) {
  cudaMemcpyAsync(buffer, staging, 256, cudaMemcpyHostToDevice, streams[i]);
  consume<<<1, 64, 0, streams[i]>>>(buffer);
}

void unrelated_indices(float* buffer, float* staging, cudaStream_t* streams, int a, int b) {
  cudaMemcpyAsync(buffer, staging, 256, cudaMemcpyHostToDevice, streams[a]);
  consume<<<1, 64, 0, streams[b]>>>(buffer);
}

void indices_that_meet_at_zero(float* buffer, float* staging, cudaStream_t* streams, int i) {
  cudaMemcpyAsync(buffer, staging, 256, cudaMemcpyHostToDevice, streams[i + 1]);
  consume<<<1, 64, 0, streams[1 - i]>>>(buffer);
}
