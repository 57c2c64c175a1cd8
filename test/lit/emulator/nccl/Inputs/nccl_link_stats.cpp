// One AllGather of a known size (run under streamrace-emu-launch with
// STREAMRACE_EMU_NCCL_STATS set), so the link model's byte counters can be checked against the
// ring formula: each rank sends (nranks - 1) * count * sizeof(float) to its ring successor.
#include "nccl_test_support.h"

int main(int argc, char** argv) {
  const std::size_t count = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1024;
  const int rank = environmentInt("RANK", 0);
  const int world = environmentInt("WORLD_SIZE", 1);
  CUDA_OK(cudaSetDevice(environmentInt("LOCAL_RANK", 0)));
  const ncclUniqueId id = exchangeUniqueId(rank);
  ncclComm_t comm = nullptr;
  NCCL_OK(ncclCommInitRank(&comm, world, id, rank));
  float* send = deviceCopyOf(std::vector<float>(count, 1.0f));
  float* receive = deviceCopyOf(std::vector<float>(count * world, 0.0f));
  NCCL_OK(ncclAllGather(send, receive, count, ncclFloat32, comm, nullptr));
  CUDA_OK(cudaStreamSynchronize(nullptr));
  NCCL_OK(ncclCommDestroy(comm));
  return 0;
}
