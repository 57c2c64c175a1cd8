// Subgroups the torchrun way (run under streamrace-emu-launch, 4 ranks): besides the world
// communicator, each pair of ranks {0,1}, {2,3} gets a communicator whose id comes from the
// pair's first rank, so two different ranks each create their first-but-one id. Then the same
// pairs again through ncclCommSplit.
#include "nccl_test_support.h"

int main() {
  const int rank = environmentInt("RANK", 0);
  const int world = environmentInt("WORLD_SIZE", 1);
  CUDA_OK(cudaSetDevice(environmentInt("LOCAL_RANK", 0)));
  ncclComm_t everyone = nullptr;
  NCCL_OK(ncclCommInitRank(&everyone, world, exchangeUniqueId(rank), rank));
  const int pair = rank / 2;
  ncclComm_t pairComm = nullptr;
  const ncclUniqueId pairId = exchangeUniqueId(rank % 2 == 0, "pair-" + std::to_string(pair));
  NCCL_OK(ncclCommInitRank(&pairComm, 2, pairId, rank % 2));
  ncclComm_t splitComm = nullptr;
  NCCL_OK(ncclCommSplit(everyone, pair, rank, &splitComm, nullptr));

  int* mine = deviceCopyOf(std::vector<int>{rank + 1});
  int* worldSum = deviceCopyOf(std::vector<int>{0});
  int* pairSum = deviceCopyOf(std::vector<int>{0});
  int* splitSum = deviceCopyOf(std::vector<int>{0});
  NCCL_OK(ncclAllReduce(mine, worldSum, 1, ncclInt32, ncclSum, everyone, nullptr));
  NCCL_OK(ncclAllReduce(mine, pairSum, 1, ncclInt32, ncclSum, pairComm, nullptr));
  NCCL_OK(ncclAllReduce(mine, splitSum, 1, ncclInt32, ncclSum, splitComm, nullptr));
  CUDA_OK(cudaDeviceSynchronize());
  std::printf("rank %d sums: world %d, pair %d, split %d\n", rank, hostCopyOf(worldSum, 1)[0],
              hostCopyOf(pairSum, 1)[0], hostCopyOf(splitSum, 1)[0]);
  NCCL_OK(ncclCommDestroy(splitComm));
  NCCL_OK(ncclCommDestroy(pairComm));
  NCCL_OK(ncclCommDestroy(everyone));
  return 0;
}
