// A file as a CUDA project builds it with nvcc (nvcc_compile_commands.test): a kernel launching a
// kernel needs -rdc=true, omp.h the host compiler's -fopenmp, USE_NVTX the build's -D.
#include <cuda_runtime.h>
#include <omp.h>

#ifndef USE_NVTX
#error "the compilation database's -D is missing"
#endif

__global__ void child(float* buf) { buf[threadIdx.x] = 0.0f; }
__global__ void parent(float* buf) { child<<<1, 32>>>(buf); }

void produce_then_copy(float* buf, float* host, cudaStream_t a, cudaStream_t b) {
  parent<<<1, 1, 0, a>>>(buf);
  cudaMemcpyAsync(host, buf, 128, cudaMemcpyDeviceToHost, b);
  (void)omp_get_num_threads();
}

// What nvcc's host pass accepts and clang alone does not: `register` in C++17 (a warning from the
// host compiler) and time() without <ctime> (nvcc's runtime headers include <time.h>).
unsigned seed() {
  register unsigned now = (unsigned)time(nullptr);
  return now;
}
