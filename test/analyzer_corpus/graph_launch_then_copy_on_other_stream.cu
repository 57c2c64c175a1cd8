// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// CUDA graph replay (torch.cuda.graphs style): the decode graph is launched on the replay stream
// and its static output buffer is copied out on another stream with no ordering against the launch.
// Fixed: the copy stream waits for an event recorded after the graph launch.
#include <cuda_runtime.h>

__global__ void decode_layer(const float* hidden, float* logits) {
  logits[threadIdx.x] = hidden[threadIdx.x];
}

class DecodeGraph {
public:
  DecodeGraph(const float* static_hidden, float* static_logits) : logits_(static_logits) {
    cudaStreamCreateWithFlags(&replay_, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&copy_, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&replayed_, cudaEventDisableTiming);
    cudaGraph_t graph;
    cudaStreamBeginCapture(replay_, cudaStreamCaptureModeThreadLocal);
    decode_layer<<<1, 128, 0, replay_>>>(static_hidden, static_logits);
    cudaStreamEndCapture(replay_, &graph);
    cudaGraphInstantiate(&exec_, graph, 0);
    cudaGraphDestroy(graph);
  }

  void step(float* logits_history, int t) {
    cudaGraphLaunch(exec_, replay_);
#ifdef FIXED
    cudaEventRecord(replayed_, replay_);
    cudaStreamWaitEvent(copy_, replayed_, 0);
#endif
    // expect: streamrace-unsynchronized-cross-stream
    cudaMemcpyAsync(logits_history + t * 128, logits_, 128 * sizeof(float),
                    cudaMemcpyDeviceToDevice, copy_);
  }

private:
  float* logits_;
  cudaStream_t replay_;
  cudaStream_t copy_;
  cudaEvent_t replayed_;
  cudaGraphExec_t exec_;
};
