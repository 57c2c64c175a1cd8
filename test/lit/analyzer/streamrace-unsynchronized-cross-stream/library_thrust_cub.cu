// thrust algorithms run on their execution policy's stream (`par.on(s)` returns when the work is
// done, `par_nosync.on(s)` only enqueues it); CUB's device-wide algorithms on their stream
// argument, except the first call that only asks for the temporary storage size.
// RUN: %check_streamrace %s %t -- %real_cuda
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

__global__ void consume(const int* keys, int* out) {
  out[threadIdx.x] = keys[threadIdx.x];
}

void nosync_sort_then_other_stream(int* keys, int* out, int n, cudaStream_t a, cudaStream_t b) {
  thrust::sort(thrust::cuda::par_nosync.on(a), keys, keys + n);
  consume<<<1, 32, 0, b>>>(keys, out);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'keys' is read by kernel 'consume' on stream 'b' while thrust::sort on stream 'a' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: thrust::sort reads and writes 'keys' on stream 'a' here
}

// `par` waits for its stream before returning.
void sync_sort_then_other_stream(int* keys, int* out, int n, cudaStream_t a, cudaStream_t b) {
  thrust::sort(thrust::cuda::par.on(a), keys, keys + n);
  consume<<<1, 32, 0, b>>>(keys, out);
}

// The sort itself races with an upload still pending on another stream.
void sort_before_upload_done(int* keys, const int* host, int n, cudaStream_t a, cudaStream_t b) {
  cudaMemcpyAsync(keys, host, sizeof(int) * n, cudaMemcpyHostToDevice, b);
  auto policy = thrust::cuda::par.on(a);
  thrust::sort(policy, keys, keys + n);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'keys' is read and written by thrust::sort on stream 'a' while cudaMemcpyAsync on stream 'b' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-4]]:3: note: cudaMemcpyAsync writes 'keys' on stream 'b' here
}

void cub_sum_reads_upload(const int* host, int* d_in, int* d_out, int n, cudaStream_t copy,
                          cudaStream_t compute) {
  void* d_temp = nullptr;
  size_t temp_bytes = 0;
  cub::DeviceReduce::Sum(nullptr, temp_bytes, d_in, d_out, n, compute);
  cudaMalloc(&d_temp, temp_bytes);
  cudaMemcpyAsync(d_in, host, sizeof(int) * n, cudaMemcpyHostToDevice, copy);
  cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_out, n, compute);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'd_in' is read by cub::DeviceReduce::Sum on stream 'compute' while cudaMemcpyAsync on stream 'copy' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: cudaMemcpyAsync writes 'd_in' on stream 'copy' here
}

void cub_scan_after_wait(const int* host, int* d_in, int* d_out, void* d_temp, size_t temp_bytes,
                         int n, cudaStream_t copy, cudaStream_t compute, cudaEvent_t uploaded) {
  cudaMemcpyAsync(d_in, host, sizeof(int) * n, cudaMemcpyHostToDevice, copy);
  cudaEventRecord(uploaded, copy);
  cudaStreamWaitEvent(compute, uploaded, 0);
  cub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, d_in, d_out, n, compute);
}
