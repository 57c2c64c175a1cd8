// Host code nvcc accepts and clang alone rejects parses as nvcc's host pass reads it: host-side
// min/max from CUDA's math headers, __CUDACC__ as a number, braced launch configurations, a
// __shared__ object with a constructor, omp.h from the host compiler, `alignas` weaker than its
// type's own alignment (GCC ignores it; TransformerEngine's `alignas(64) CUtensorMap`, which CUDA 13
// aligns to 128), more times than clang's default error limit, and `alignas` after `__device__`,
// which clang takes for an attribute of the type. The race at the end shows the file
// was analyzed; its column shows a braced launch earlier on the line moves nothing after it.
// RUN: %check_streamrace %s %t -- %real_cuda -std=c++17 -fopenmp
#include <cuda_runtime.h>
#include <omp.h>

#if __CUDACC__ && __CUDACC_VER_MAJOR__ >= 11
struct Counter {
  __device__ Counter() : value(0) {}
  int value;
};

__global__ void count(float* out) {
  __shared__ Counter counter;
  out[threadIdx.x] = static_cast<float>(counter.value);
}
#endif

struct alignas(128) Descriptor {
  unsigned long long words[16];
};
namespace descriptors {
constexpr int kCount = 4;
__device__ alignas(256) Descriptor on_the_device[kCount];
}  // namespace descriptors

#define FOUR_DESCRIPTORS(n)                                                                        \
  alignas(64) Descriptor a##n{};                                                                   \
  alignas(64) Descriptor b##n{};                                                                   \
  alignas(64) Descriptor c##n{};                                                                   \
  alignas(64) Descriptor d##n{};                                                                   \
  (void)a##n;                                                                                      \
  (void)b##n;                                                                                      \
  (void)c##n;                                                                                      \
  (void)d##n;

void make_descriptors() {
  FOUR_DESCRIPTORS(0)
  FOUR_DESCRIPTORS(1)
  FOUR_DESCRIPTORS(2)
  FOUR_DESCRIPTORS(3)
  FOUR_DESCRIPTORS(4)
  FOUR_DESCRIPTORS(5)
}

int chunk(int total, int parts) { return max(1, min(total / parts, 1024)); }
unsigned long widest(unsigned long a, unsigned long b) { return max(a, b); }

void launch_then_copy(float* buf, float* host, int n, cudaStream_t a, cudaStream_t b) {
  count<<<chunk(n, 256), {256, 1, 1}, 0, a>>>(buf); cudaMemcpyAsync(host, buf, n, cudaMemcpyDeviceToHost, b);
  // CHECK-MESSAGES: :[[@LINE-1]]:53: warning: 'buf' is read by cudaMemcpyAsync on stream 'b' while kernel 'count' on stream 'a' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: kernel 'count' writes 'buf' on stream 'a' here
  // CHECK-MESSAGES: :[[@LINE-3]]:52: note: an event recorded on stream 'a' here, and waited on before the later access, would order the two
  (void)omp_get_max_threads();
}
