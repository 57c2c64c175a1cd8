// A host function runs in its stream's order: what its body reads or writes through its user
// data (the pointer itself, or pointer fields of the struct it points to) is an access on that
// stream, checked like a kernel's.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

struct Metrics {
  float* pinned;
  int step;
};

void print_metrics(void* data) {
  const Metrics* metrics = static_cast<const Metrics*>(data);
  float loss = metrics->pinned[0];
  (void)loss;
}

void clear_flag(void* data) { static_cast<int*>(data)[0] = 0; }

__global__ void raise_flag(int* flag) { flag[0] = 1; }

void logged_before_the_copy_is_done(Metrics* metrics, const float* device, cudaStream_t copy,
                                    cudaStream_t compute) {
  cudaMemcpyAsync(metrics->pinned, device, 16, cudaMemcpyDeviceToHost, copy);
  cudaLaunchHostFunc(compute, print_metrics, metrics);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'metrics->pinned' is read by host function 'print_metrics' on stream 'compute' while cudaMemcpyAsync on stream 'copy' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void logged_after_the_copy(Metrics* metrics, const float* device, cudaStream_t copy,
                           cudaStream_t compute) {
  cudaMemcpyAsync(metrics->pinned, device, 16, cudaMemcpyDeviceToHost, copy);
  cudaEvent_t copied;
  cudaEventCreateWithFlags(&copied, cudaEventDisableTiming);
  cudaEventRecord(copied, copy);
  cudaStreamWaitEvent(compute, copied, 0);
  cudaLaunchHostFunc(compute, print_metrics, metrics);
}

void flag_cleared_while_raised(int* flag, cudaStream_t a, cudaStream_t b) {
  raise_flag<<<1, 1, 0, a>>>(flag);
  cudaLaunchHostFunc(b, clear_flag, flag);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'flag' is written by host function 'clear_flag' on stream 'b' while kernel 'raise_flag' on stream 'a' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void flag_cleared_on_the_same_stream(int* flag, cudaStream_t a) {
  raise_flag<<<1, 1, 0, a>>>(flag);
  cudaLaunchHostFunc(a, clear_flag, flag);
}
