// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host callback (cudaLaunchHostFunc, as loggers and data loaders use it): the callback runs in the
// compute stream's order, but reads pinned metrics the copy stream may still be writing.
// Fixed: the compute stream waits for the copy's event before the callback is enqueued.
#include <cuda_runtime.h>

#include <cstdio>

struct MetricsLog {
  float* pinned_metrics;
  int step;
};

void CUDART_CB write_metrics(void* user_data) {
  const MetricsLog* log = static_cast<const MetricsLog*>(user_data);
  std::printf("step %d: loss %f\n", log->step, log->pinned_metrics[0]);
}

void log_step(MetricsLog* log, const float* d_metrics, cudaStream_t copy_stream,
              cudaStream_t compute) {
  cudaMemcpyAsync(log->pinned_metrics, d_metrics, 4 * sizeof(float), cudaMemcpyDeviceToHost,
                  copy_stream);
#ifdef FIXED
  cudaEvent_t copied;
  cudaEventCreateWithFlags(&copied, cudaEventDisableTiming);
  cudaEventRecord(copied, copy_stream);
  cudaStreamWaitEvent(compute, copied, 0);
  cudaEventDestroy(copied);
#endif
  // expect: streamrace-unsynchronized-cross-stream
  cudaLaunchHostFunc(compute, write_metrics, log);
}

void run_logger(const float* d_metrics, int step, cudaStream_t copy_stream, cudaStream_t compute) {
  MetricsLog log{nullptr, step};
  cudaMallocHost(&log.pinned_metrics, 4 * sizeof(float));
  log_step(&log, d_metrics, copy_stream, compute);
  cudaStreamSynchronize(compute);
  cudaFreeHost(log.pinned_metrics);
}
