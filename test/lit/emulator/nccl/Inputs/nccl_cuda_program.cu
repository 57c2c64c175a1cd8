// A CUDA program as users write them, built by nvcc with -cudart shared against the real
// toolkit and linked to the real libnccl (run under streamrace-emu-launch): a <<<>>> kernel fills
// each rank's buffer on a compute stream, an event hands it to a communication stream, an
// AllReduce sums it across ranks and a copy brings it back.
#include "nccl_test_support.h"

#include <streamrace_emulator/kernel_registry.h>

__global__ void fill(float* data, float value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    data[i] = value * static_cast<float>(i + 1);
  }
}

void fillOnCpu(const StreamraceEmuLaunch&, float* data, float value, int n) {
  for (int i = 0; i < n; ++i) {
    data[i] = value * static_cast<float>(i + 1);
  }
}

int main() {
  const bool registered = streamrace_emulator::registerKernel<&fillOnCpu>(fill);
  const int rank = environmentInt("RANK", 0);
  const int world = environmentInt("WORLD_SIZE", 1);
  CUDA_OK(cudaSetDevice(environmentInt("LOCAL_RANK", 0)));
  const ncclUniqueId id = exchangeUniqueId(rank);
  ncclComm_t comm = nullptr;
  NCCL_OK(ncclCommInitRank(&comm, world, id, rank));

  constexpr int n = 256;
  cudaStream_t compute = nullptr;
  cudaStream_t communication = nullptr;
  CUDA_OK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
  CUDA_OK(cudaStreamCreateWithFlags(&communication, cudaStreamNonBlocking));
  cudaEvent_t filled = nullptr;
  CUDA_OK(cudaEventCreateWithFlags(&filled, cudaEventDisableTiming));
  float* data = nullptr;
  float* pinned = nullptr;
  CUDA_OK(cudaMalloc(&data, n * sizeof(float)));
  CUDA_OK(cudaMallocHost(&pinned, n * sizeof(float)));

  fill<<<(n + 127) / 128, 128, 0, compute>>>(data, static_cast<float>(rank + 1), n);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaEventRecord(filled, compute));
  CUDA_OK(cudaStreamWaitEvent(communication, filled, 0));
  NCCL_OK(ncclAllReduce(data, data, n, ncclFloat32, ncclSum, comm, communication));
  CUDA_OK(cudaMemcpyAsync(pinned, data, n * sizeof(float), cudaMemcpyDeviceToHost, communication));
  CUDA_OK(cudaStreamSynchronize(communication));
  std::printf("rank %d cpu kernel %s, allreduce first %.1f last %.1f\n", rank,
              registered ? "registered" : "missing", pinned[0], pinned[n - 1]);

  NCCL_OK(ncclCommDestroy(comm));
  CUDA_OK(cudaEventDestroy(filled));
  CUDA_OK(cudaFreeHost(pinned));
  CUDA_OK(cudaFree(data));
  return 0;
}
