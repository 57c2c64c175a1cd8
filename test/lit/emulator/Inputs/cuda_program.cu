// A small CUDA program, built by nvcc with -cudart shared against the real toolkit, that the
// emulator must run unmodified: <<<>>> launches (one kernel with a CPU implementation, one
// without), created and default streams, events with a cross-stream wait, host functions and
// copies in every direction.
#include <cuda_runtime.h>
#include <streamrace_emulator/kernel_registry.h>

#include <cstdio>
#include <vector>

#include "../../Inputs/check_call.h"

__global__ void scale(float* data, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    data[i] *= factor;
  }
}

__global__ void deviceOnly(int* data) {
  data[threadIdx.x] = 1;
}

void scaleOnCpu(const StreamraceEmuLaunch& launch, float* data, float factor, int n) {
  int threads = static_cast<int>(launch.gridDim.x * launch.blockDim.x);
  for (int i = 0; i < n && i < threads; ++i) {
    data[i] *= factor;
  }
}

static void CUDART_CB reportOnHost(void* userData) {
  std::printf("host function after the copy sees %.1f\n",
              static_cast<double>(*static_cast<float*>(userData)));
}

int main() {
  bool registered = streamrace_emulator::registerKernel<&scaleOnCpu>(scale);
  std::printf("cpu kernel registered: %s\n", registered ? "yes" : "no");

  int devices = 0;
  CHECK(cudaGetDeviceCount(&devices));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("devices: %d, compute capability %d.%d\n", devices, prop.major, prop.minor);

  constexpr int n = 256;
  std::vector<float> host(n, 2.0f);
  float* pinned = nullptr;
  float* input = nullptr;
  float* output = nullptr;
  int* untouched = nullptr;
  CHECK(cudaMallocHost(&pinned, n * sizeof(float)));
  CHECK(cudaMalloc(&input, n * sizeof(float)));
  CHECK(cudaMalloc(&output, n * sizeof(float)));
  CHECK(cudaMalloc(&untouched, 32 * sizeof(int)));
  CHECK(cudaMemset(untouched, 0, 32 * sizeof(int)));

  cudaStream_t compute, copy;
  CHECK(cudaStreamCreate(&compute));
  CHECK(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking));
  cudaEvent_t start, scaled;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&scaled));

  CHECK(cudaEventRecord(start, compute));
  CHECK(cudaMemcpyAsync(input, host.data(), n * sizeof(float), cudaMemcpyHostToDevice, compute));
  scale<<<(n + 127) / 128, 128, 0, compute>>>(input, 3.0f, n);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(scaled, compute));
  CHECK(cudaStreamWaitEvent(copy, scaled, 0));
  CHECK(cudaMemcpyAsync(output, input, n * sizeof(float), cudaMemcpyDeviceToDevice, copy));
  CHECK(cudaMemcpyAsync(pinned, output, n * sizeof(float), cudaMemcpyDeviceToHost, copy));
  CHECK(cudaLaunchHostFunc(copy, reportOnHost, pinned));
  CHECK(cudaStreamSynchronize(copy));
  std::printf("first %.1f last %.1f\n", static_cast<double>(pinned[0]),
              static_cast<double>(pinned[n - 1]));

  float elapsed = -1;
  CHECK(cudaEventElapsedTime(&elapsed, start, scaled));
  std::printf("elapsed time measured: %s\n", elapsed >= 0 ? "yes" : "no");

  deviceOnly<<<1, 32, 0, cudaStreamPerThread>>>(untouched);
  deviceOnly<<<1, 32>>>(untouched);
  CHECK(cudaDeviceSynchronize());
  int firstUntouched = -1;
  CHECK(cudaMemcpy(&firstUntouched, untouched, sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("kernel without CPU implementation left %d\n", firstUntouched);

  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(scaled));
  CHECK(cudaStreamDestroy(compute));
  CHECK(cudaStreamDestroy(copy));
  CHECK(cudaFree(input));
  CHECK(cudaFree(output));
  CHECK(cudaFree(untouched));
  CHECK(cudaFreeHost(pinned));
  std::printf("done\n");
  return 0;
}
