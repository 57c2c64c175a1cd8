// A graph made by stream capture runs, at each cudaGraphLaunch, the work captured into it: the
// kernels of the captured stream and of every stream that joined the capture by waiting on an
// event recorded in it. Launched on one stream, that work races with later work on another
// stream until an event or a synchronization orders the two; each racy function has an ordered
// twin that must stay silent.
// RUN: %check_streamrace %s %t -- %real_cuda
#include <cuda_runtime.h>

__global__ void scale(const float* x, float* y) { y[threadIdx.x] = 2.0f * x[threadIdx.x]; }
__global__ void shift(float* z) { z[threadIdx.x] += 1.0f; }

void launched_then_read_elsewhere(const float* x, float* y, float* host, cudaStream_t s,
                                  cudaStream_t other) {
  cudaGraph_t graph;
  cudaGraphExec_t executable;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  scale<<<1, 32, 0, s>>>(x, y);
  cudaStreamEndCapture(s, &graph);
  cudaGraphInstantiate(&executable, graph, 0);
  cudaGraphLaunch(executable, s);
  cudaMemcpyAsync(host, y, 32 * sizeof(float), cudaMemcpyDeviceToHost, other);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'y' is read by cudaMemcpyAsync on stream 'other' while cudaGraphLaunch on stream 's' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void launched_then_synchronized(const float* x, float* y, float* host, cudaStream_t s,
                                cudaStream_t other) {
  cudaGraph_t graph;
  cudaGraphExec_t executable;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  scale<<<1, 32, 0, s>>>(x, y);
  cudaStreamEndCapture(s, &graph);
  cudaGraphInstantiate(&executable, graph, 0);
  cudaGraphLaunch(executable, s);
  cudaStreamSynchronize(s);
  cudaMemcpyAsync(host, y, 32 * sizeof(float), cudaMemcpyDeviceToHost, other);
}

// The capture's work reads x too: a write to x on another stream before the launch is done races.
void input_overwritten_during_launch(const float* x, float* y, float* next, cudaStream_t s,
                                     cudaStream_t other) {
  cudaGraph_t graph;
  cudaGraphExec_t executable;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  scale<<<1, 32, 0, s>>>(x, y);
  cudaStreamEndCapture(s, &graph);
  cudaGraphInstantiate(&executable, graph, 0);
  cudaGraphLaunch(executable, s);
  cudaMemcpyAsync(const_cast<float*>(x), next, 32 * sizeof(float), cudaMemcpyDeviceToDevice,
                  other);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'x' is written by cudaMemcpyAsync on stream 'other' while cudaGraphLaunch on stream 's' may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void input_overwritten_after_an_event(const float* x, float* y, float* next, cudaStream_t s,
                                      cudaStream_t other, cudaEvent_t done) {
  cudaGraph_t graph;
  cudaGraphExec_t executable;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  scale<<<1, 32, 0, s>>>(x, y);
  cudaStreamEndCapture(s, &graph);
  cudaGraphInstantiate(&executable, graph, 0);
  cudaGraphLaunch(executable, s);
  cudaEventRecord(done, s);
  cudaStreamWaitEvent(other, done, 0);
  cudaMemcpyAsync(const_cast<float*>(x), next, 32 * sizeof(float), cudaMemcpyDeviceToDevice,
                  other);
}

// A stream that waits on an event recorded in the capture joins it: its kernel is part of the
// graph, run by the launch on `s`, not on `side` at capture time.
void joined_stream_work_launched(float* z, float* host, cudaStream_t s, cudaStream_t side,
                                 cudaStream_t other, cudaEvent_t fork, cudaEvent_t join) {
  cudaGraph_t graph;
  cudaGraphExec_t executable;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  cudaEventRecord(fork, s);
  cudaStreamWaitEvent(side, fork, 0);
  shift<<<1, 32, 0, side>>>(z);
  cudaEventRecord(join, side);
  cudaStreamWaitEvent(s, join, 0);
  cudaStreamEndCapture(s, &graph);
  cudaGraphInstantiate(&executable, graph, 0);
  cudaStreamSynchronize(side);
  cudaGraphLaunch(executable, s);
  cudaMemcpyAsync(host, z, 32 * sizeof(float), cudaMemcpyDeviceToHost, other);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'z' is read by cudaMemcpyAsync on stream 'other' while cudaGraphLaunch on stream 's' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void joined_stream_work_synchronized(float* z, float* host, cudaStream_t s, cudaStream_t side,
                                     cudaStream_t other, cudaEvent_t fork, cudaEvent_t join) {
  cudaGraph_t graph;
  cudaGraphExec_t executable;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  cudaEventRecord(fork, s);
  cudaStreamWaitEvent(side, fork, 0);
  shift<<<1, 32, 0, side>>>(z);
  cudaEventRecord(join, side);
  cudaStreamWaitEvent(s, join, 0);
  cudaStreamEndCapture(s, &graph);
  cudaGraphInstantiate(&executable, graph, 0);
  cudaGraphLaunch(executable, s);
  cudaStreamSynchronize(s);
  cudaMemcpyAsync(host, z, 32 * sizeof(float), cudaMemcpyDeviceToHost, other);
}

// Captured once inside the loop that launches it, launched again in a timing loop, then read on
// the legacy stream, which does not wait for a non-blocking stream.
void timing_loop_without_final_sync(const float* x, float* y, float* host) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  bool created = false;
  cudaGraph_t graph;
  cudaGraphExec_t executable;
  for (int i = 0; i < 100; ++i) {
    if (!created) {
      cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
      scale<<<1, 32, 0, s>>>(x, y);
      cudaStreamEndCapture(s, &graph);
      cudaGraphInstantiate(&executable, graph, 0);
      created = true;
    }
    cudaGraphLaunch(executable, s);
    cudaStreamSynchronize(s);
  }
  for (int i = 0; i < 1000; ++i)
    cudaGraphLaunch(executable, s);
  cudaMemcpy(host, y, 32 * sizeof(float), cudaMemcpyDeviceToHost);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'y' is read by cudaMemcpy on the legacy default stream while cudaGraphLaunch on stream 's' may still be writing it
}

void timing_loop_then_device_sync(const float* x, float* y, float* host) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  bool created = false;
  cudaGraph_t graph;
  cudaGraphExec_t executable;
  for (int i = 0; i < 100; ++i) {
    if (!created) {
      cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
      scale<<<1, 32, 0, s>>>(x, y);
      cudaStreamEndCapture(s, &graph);
      cudaGraphInstantiate(&executable, graph, 0);
      created = true;
    }
    cudaGraphLaunch(executable, s);
    cudaStreamSynchronize(s);
  }
  for (int i = 0; i < 1000; ++i)
    cudaGraphLaunch(executable, s);
  cudaDeviceSynchronize();
  cudaMemcpy(host, y, 32 * sizeof(float), cudaMemcpyDeviceToHost);
}
