// A __device__ function named in host code without being called, as nvcc accepts it: its address
// picked in a constant expression and handed to a launcher as a template argument
// (TransformerEngine's `constexpr auto op = (OP == nullptr) ? detail::identity : OP;`). clang
// rejects the reference; the analyzer drops that error as nvcc's host pass would not give it, and
// analyzes the file: the kernel launched with the picked function races with the copy after it.
// A host call of a device function stays an error, as nvcc gives one
// (Inputs/host_calls_device_function.cu).
// RUN: %check_streamrace %s %t -- %real_cuda -std=c++17
// RUN: not streamrace-check %inputs/host_calls_device_function.cu -- %real_cuda -std=c++17 2>&1 | FileCheck --check-prefix=CALL %s
// CALL: host_calls_device_function.cu:6:37: error: no matching function for call to 'half_of'
#include <cuda_runtime.h>

namespace detail {
__device__ inline float identity(float value) { return value; }
}  // namespace detail

template <typename T> __device__ T gelu(T x) { return x * T(0.5); }

template <float (*OP)(float)> __global__ void apply(const float* in, float* out) {
  out[threadIdx.x] = OP(in[threadIdx.x]);
}

template <float (*OP)(float)> void launch_unary(const float* in, float* out, cudaStream_t stream) {
  constexpr float (*op)(float) = (OP == nullptr) ? detail::identity : OP;
  apply<op><<<1, 32, 0, stream>>>(in, out);
}

void gelu_then_copy(const float* in, float* out, float* host, cudaStream_t a, cudaStream_t b) {
  launch_unary<&gelu<float>>(in, out, a);
  cudaMemcpyAsync(host, out, 32 * sizeof(float), cudaMemcpyDeviceToHost, b);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'out' is read by cudaMemcpyAsync on stream 'b' while kernel 'apply' on stream 'a' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}
