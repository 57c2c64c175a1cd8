// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Ordering through a chain of events (producer -> relay -> consumer streams): the relay stream
// records its event before waiting for the producer, so the consumer is not ordered after it.
// Fixed: the relay waits for the producer first and records after, which orders the chain.
#include <cuda_runtime.h>

__global__ void encode(const float* in, float* features) {
  features[threadIdx.x] = in[threadIdx.x] * 0.1f;
}
__global__ void pool(const float* features, float* pooled) {
  pooled[threadIdx.x] = features[threadIdx.x];
}
__global__ void classify(const float* features, float* logits) {
  logits[threadIdx.x] = features[threadIdx.x];
}

void three_stage(const float* in, float* features, float* pooled, float* logits,
                 cudaStream_t producer, cudaStream_t relay, cudaStream_t consumer) {
  cudaEvent_t encoded, relayed;
  cudaEventCreateWithFlags(&encoded, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&relayed, cudaEventDisableTiming);
  encode<<<1, 256, 0, producer>>>(in, features);
  cudaEventRecord(encoded, producer);
#ifdef FIXED
  cudaStreamWaitEvent(relay, encoded, 0);
  cudaEventRecord(relayed, relay);
#else
  cudaEventRecord(relayed, relay);
  cudaStreamWaitEvent(relay, encoded, 0);
#endif
  pool<<<1, 256, 0, relay>>>(features, pooled);
  cudaStreamWaitEvent(consumer, relayed, 0);
  // expect: streamrace-unsynchronized-cross-stream
  classify<<<1, 256, 0, consumer>>>(features, logits);
  cudaStreamSynchronize(consumer);
  cudaEventDestroy(encoded);
  cudaEventDestroy(relayed);
}
