// The hpZ shape (ZeRO++ secondary partition, DeepSpeed #5059): a device-to-device copy on the
// compute stream fills the secondary partition while an all-gather on the communication stream
// reads it. One rank per process: a single rank alone, or the job a launcher describes in RANK,
// WORLD_SIZE and LOCAL_RANK (every rank calls ncclGetUniqueId, so the launcher must hand out the
// same id to all). `fixed` orders the copy and the all-gather with an event. The streams are
// named and the step is an NVTX range, as training frameworks do.
//
//   hpz_shape racy|fixed
#include <cuda_runtime_api.h>
#include <nccl.h>

#include "../../Inputs/check_call.h"
#include "../../Inputs/check_nccl_call.h"
#include "../../Inputs/launcher_environment.h"
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCudaRt.h>

#include <cstdio>
#include <string_view>

namespace {

constexpr std::size_t kElements = 1 << 12;

int run(bool fixed) {
  const int rank = environment_number("RANK", 0);
  const int ranks = environment_number("WORLD_SIZE", 1);
  CHECK(cudaSetDevice(environment_number("LOCAL_RANK", 0)));
  ncclUniqueId id;
  NCCL_CHECK(ncclGetUniqueId(&id));
  ncclComm_t comm = nullptr;
  NCCL_CHECK(ncclCommInitRank(&comm, ranks, id, rank));

  float* weights = nullptr;
  float* secondary_partition = nullptr;
  float* gathered = nullptr;
  CHECK(cudaMalloc(reinterpret_cast<void**>(&weights), kElements * sizeof(float)));
  CHECK(cudaMalloc(reinterpret_cast<void**>(&secondary_partition), kElements * sizeof(float)));
  CHECK(cudaMalloc(reinterpret_cast<void**>(&gathered), ranks * kElements * sizeof(float)));
  CHECK(cudaMemset(weights, 0, kElements * sizeof(float)));
  CHECK(cudaDeviceSynchronize());

  cudaStream_t compute = nullptr;
  cudaStream_t communication = nullptr;
  CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&communication, cudaStreamNonBlocking));
  cudaEvent_t partition_ready = nullptr;
  CHECK(cudaEventCreateWithFlags(&partition_ready, cudaEventDisableTiming));

  nvtxNameCudaStreamA(compute, "compute");
  nvtxNameCudaStreamA(communication, "communication");
  nvtxRangePushA("hpz step");
  CHECK(cudaMemcpyAsync(secondary_partition, weights, kElements * sizeof(float),
                        cudaMemcpyDeviceToDevice, compute));
  if (fixed) {
    CHECK(cudaEventRecord(partition_ready, compute));
    CHECK(cudaStreamWaitEvent(communication, partition_ready, 0));
  }
  NCCL_CHECK(
      ncclAllGather(secondary_partition, gathered, kElements, ncclFloat, comm, communication));
  nvtxRangePop();
  CHECK(cudaStreamSynchronize(communication));
  CHECK(cudaStreamSynchronize(compute));
  std::printf("all-gather done\n");

  CHECK(cudaEventDestroy(partition_ready));
  CHECK(cudaStreamDestroy(compute));
  CHECK(cudaStreamDestroy(communication));
  CHECK(cudaFree(weights));
  CHECK(cudaFree(secondary_partition));
  CHECK(cudaFree(gathered));
  NCCL_CHECK(ncclCommDestroy(comm));
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 2 || (std::string_view(argv[1]) != "racy" && std::string_view(argv[1]) != "fixed")) {
    std::fprintf(stderr, "usage: hpz_shape racy|fixed\n");
    return 2;
  }
  return run(std::string_view(argv[1]) == "fixed");
}
