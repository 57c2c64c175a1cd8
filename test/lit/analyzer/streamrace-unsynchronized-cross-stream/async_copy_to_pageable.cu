// A cudaMemcpyAsync from the device into pageable host memory returns once the copy is done
// (docs/semantics.md rule 7), so work after it on another stream is ordered after the copy and
// everything before it on the copy's stream. Pageable is what the analysis sees allocated so:
// malloc, new, a local array, a std::vector or std::string with the standard allocator. Pinned
// memory (cudaMallocHost, a registered vector) and a caller's buffer leave the copy pending.
// RUN: %check_streamrace %s %t -- %real_cuda
#include <cuda_runtime.h>

#include <cstdlib>
#include <vector>

__global__ void fill(float* p) { p[threadIdx.x] = 1.0f; }

void ordered_download_to_malloc(float* d, size_t n, cudaStream_t copy, cudaStream_t compute) {
  float* host = static_cast<float*>(malloc(n * sizeof(float)));
  fill<<<1, 32, 0, copy>>>(d);
  cudaMemcpyAsync(host, d, n * sizeof(float), cudaMemcpyDeviceToHost, copy);
  fill<<<1, 32, 0, compute>>>(d);
  free(host);
}

void ordered_download_to_vector(float* d, size_t n, cudaStream_t copy, cudaStream_t compute) {
  std::vector<float> host(n);
  fill<<<1, 32, 0, copy>>>(d);
  cudaMemcpyAsync(host.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost, copy);
  fill<<<1, 32, 0, compute>>>(d);
}

void ordered_download_to_local_array(float* d, cudaStream_t copy, cudaStream_t compute) {
  float host[32];
  fill<<<1, 32, 0, copy>>>(d);
  cudaMemcpyAsync(host, d, sizeof host, cudaMemcpyDeviceToHost, copy);
  fill<<<1, 32, 0, compute>>>(d);
}

void racy_download_to_pinned(float* d, size_t n, cudaStream_t copy, cudaStream_t compute) {
  float* host;
  cudaMallocHost(&host, n * sizeof(float));
  fill<<<1, 32, 0, copy>>>(d);
  cudaMemcpyAsync(host, d, n * sizeof(float), cudaMemcpyDeviceToHost, copy);
  fill<<<1, 32, 0, compute>>>(d);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'd' is written by kernel 'fill' on stream 'compute' while cudaMemcpyAsync on stream 'copy' may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: cudaMemcpyAsync reads 'd' on stream 'copy' here
}

void racy_download_to_registered_vector(float* d, size_t n, cudaStream_t copy,
                                        cudaStream_t compute) {
  std::vector<float> host(n);
  cudaHostRegister(host.data(), n * sizeof(float), cudaHostRegisterDefault);
  fill<<<1, 32, 0, copy>>>(d);
  cudaMemcpyAsync(host.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost, copy);
  fill<<<1, 32, 0, compute>>>(d);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'd' is written by kernel 'fill' on stream 'compute' while cudaMemcpyAsync on stream 'copy' may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: cudaMemcpyAsync reads 'd' on stream 'copy' here
  cudaStreamSynchronize(copy);
  cudaHostUnregister(host.data());
}

// The caller's buffer may be pinned: most buffers given to an asynchronous copy are.
void racy_download_to_callers_buffer(float* host, float* d, size_t n, cudaStream_t copy,
                                     cudaStream_t compute) {
  fill<<<1, 32, 0, copy>>>(d);
  cudaMemcpyAsync(host, d, n * sizeof(float), cudaMemcpyDeviceToHost, copy);
  fill<<<1, 32, 0, compute>>>(d);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'd' is written by kernel 'fill' on stream 'compute' while cudaMemcpyAsync on stream 'copy' may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: cudaMemcpyAsync reads 'd' on stream 'copy' here
}

// Uploads from pageable memory are not waited for: the device write is still pending.
void racy_upload_from_vector(float* d, size_t n, cudaStream_t copy, cudaStream_t compute) {
  std::vector<float> host(n, 1.0f);
  cudaMemcpyAsync(d, host.data(), n * sizeof(float), cudaMemcpyHostToDevice, copy);
  fill<<<1, 32, 0, compute>>>(d);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'd' is written by kernel 'fill' on stream 'compute' while cudaMemcpyAsync on stream 'copy' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: cudaMemcpyAsync writes 'd' on stream 'copy' here
  cudaStreamSynchronize(copy);
}
