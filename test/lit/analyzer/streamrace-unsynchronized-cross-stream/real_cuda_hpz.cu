// Against the real CUDA 13 and NCCL 2.28 headers: the hpZ copy/gather race, a kernel launch with
// <<<>>> using the kernel's summary, and the event-ordered twin.
// RUN: %check_streamrace %s %t -- %real_cuda
// RUN: %check_streamrace --tool=tidy %s %t.tidy -- %real_cuda --cuda-host-only --cuda-path=/usr/local/cuda -Wno-unknown-cuda-version
#include <cuda_runtime.h>
#include <nccl.h>

__global__ void scale(const float* in, float* out) { out[threadIdx.x] = 2.0f * in[threadIdx.x]; }

void racy(float* secondary, const float* primary, float* gathered, size_t n,
          cudaStream_t compute, cudaStream_t comm, ncclComm_t c, float* activations) {
  cudaMemcpyAsync(secondary, primary, n * sizeof(float), cudaMemcpyDeviceToDevice, compute);
  ncclAllGather(secondary, gathered, n, ncclFloat, c, comm);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'secondary' is read by ncclAllGather on stream 'comm' while cudaMemcpyAsync on stream 'compute' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-FIXES: cudaEventRecord(streamrace_ready_12, compute);
  // CHECK-FIXES-NEXT: cudaStreamWaitEvent(comm, streamrace_ready_12, 0);
  scale<<<1, 32, 0, compute>>>(gathered, activations);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'gathered' is read by kernel 'scale' on stream 'compute' while ncclAllGather on stream 'comm' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void ordered(float* secondary, const float* primary, float* gathered, size_t n,
             cudaStream_t compute, cudaStream_t comm, ncclComm_t c, float* activations) {
  cudaEvent_t copied, gathered_ready;
  cudaEventCreateWithFlags(&copied, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&gathered_ready, cudaEventDisableTiming);
  cudaMemcpyAsync(secondary, primary, n * sizeof(float), cudaMemcpyDeviceToDevice, compute);
  cudaEventRecord(copied, compute);
  cudaStreamWaitEvent(comm, copied, 0);
  ncclAllGather(secondary, gathered, n, ncclFloat, c, comm);
  cudaEventRecord(gathered_ready, comm);
  cudaStreamWaitEvent(compute, gathered_ready, 0);
  scale<<<1, 32, 0, compute>>>(gathered, activations);
}
