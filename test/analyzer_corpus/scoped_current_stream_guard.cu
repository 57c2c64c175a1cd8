// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A scoped "current stream" guard (c10::cuda::CUDAStreamGuard style): inside the guard the kernel
// runs on the side stream, after it on the non-blocking main stream, which reads the result
// unordered. Fixed: the main stream waits for the side stream's event when the guard's scope ends.
#include <cuda_runtime.h>

__global__ void rotary_embed(const float* in, float* out) {
  out[threadIdx.x] = in[threadIdx.x] * 0.7f;
}
__global__ void attention_scores(const float* q, float* scores) {
  scores[threadIdx.x] = q[threadIdx.x];
}

static cudaStream_t current_stream = nullptr;

class StreamGuard {
public:
  explicit StreamGuard(cudaStream_t stream) : previous_(current_stream) { current_stream = stream; }
  ~StreamGuard() { current_stream = previous_; }
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

private:
  cudaStream_t previous_;
};

void attention_block(const float* q_in, float* q, float* scores) {
  cudaStream_t main_stream, side;
  cudaStreamCreateWithFlags(&main_stream, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  current_stream = main_stream;
  {
    StreamGuard guard(side);
    rotary_embed<<<1, 64, 0, current_stream>>>(q_in, q);
#ifdef FIXED
    cudaEvent_t embedded;
    cudaEventCreateWithFlags(&embedded, cudaEventDisableTiming);
    cudaEventRecord(embedded, current_stream);
    cudaStreamWaitEvent(main_stream, embedded, 0);
    cudaEventDestroy(embedded);
#endif
  }
  // expect: streamrace-unsynchronized-cross-stream
  attention_scores<<<1, 64, 0, current_stream>>>(q, scores);
  cudaStreamSynchronize(main_stream);
}
