// One rank of a multi-process job (run under streamrace-emu-launch): every collective and a
// send/recv exchange, ungrouped or all in one group (--grouped), printing what each rank got.
// --id-per-rank makes every rank call ncclGetUniqueId instead of receiving rank 0's id.
#include "nccl_test_support.h"

#include <string>

int main(int argc, char** argv) {
  bool grouped = false;
  bool idPerRank = false;
  for (int i = 1; i < argc; ++i) {
    grouped = grouped || std::string(argv[i]) == "--grouped";
    idPerRank = idPerRank || std::string(argv[i]) == "--id-per-rank";
  }
  const int rank = environmentInt("RANK", 0);
  const int world = environmentInt("WORLD_SIZE", 1);
  CUDA_OK(cudaSetDevice(environmentInt("LOCAL_RANK", 0)));
  ncclUniqueId id{};
  if (idPerRank) {
    NCCL_OK(ncclGetUniqueId(&id));
  } else {
    id = exchangeUniqueId(rank);
  }
  ncclComm_t comm = nullptr;
  NCCL_OK(ncclCommInitRank(&comm, world, id, rank));
  int count = 0;
  int userRank = 0;
  int device = 0;
  NCCL_OK(ncclCommCount(comm, &count));
  NCCL_OK(ncclCommUserRank(comm, &userRank));
  NCCL_OK(ncclCommCuDevice(comm, &device));
  std::printf("rank %d comm: count=%d rank=%d device=%d\n", rank, count, userRank, device);

  cudaStream_t stream = nullptr;
  CUDA_OK(cudaStreamCreate(&stream));
  constexpr std::size_t n = 4;
  std::vector<int> mine(n);
  std::vector<int> perPeer(n * world);
  std::vector<float> halves(n);
  for (std::size_t i = 0; i < n; ++i) {
    mine[i] = 10 * rank + static_cast<int>(i);
    halves[i] = static_cast<float>(rank) + 0.5f * static_cast<float>(i);
  }
  for (std::size_t i = 0; i < perPeer.size(); ++i) {
    perPeer[i] = 100 * rank + static_cast<int>(i);
  }
  int* dMine = deviceCopyOf(mine);
  int* dPerPeer = deviceCopyOf(perPeer);
  float* dHalves = deviceCopyOf(halves);
  int* dGathered = deviceCopyOf(std::vector<int>(n * world, -1));
  int* dReduceScattered = deviceCopyOf(std::vector<int>(n, -1));
  float* dAllReduced = deviceCopyOf(std::vector<float>(n, -1));
  int* dBroadcast = deviceCopyOf(std::vector<int>(n, -1));
  int* dReduced = deviceCopyOf(std::vector<int>(n, -1));
  int* dAllToAll = deviceCopyOf(std::vector<int>(n * world, -1));
  int* dGatheredAtRoot = deviceCopyOf(std::vector<int>(n * world, -1));
  int* dScattered = deviceCopyOf(std::vector<int>(n, -1));
  int* dReceived = deviceCopyOf(std::vector<int>(n, -1));
  float* dPreMultiplied = deviceCopyOf(std::vector<float>(n, -1));
  // Each rank scales its own contribution by rank + 1 before the sum.
  float factor = static_cast<float>(rank + 1);
  ncclRedOp_t preMulSum{};
  NCCL_OK(
      ncclRedOpCreatePreMulSum(&preMulSum, &factor, ncclFloat32, ncclScalarHostImmediate, comm));

  if (grouped) {
    NCCL_OK(ncclGroupStart());
  }
  NCCL_OK(ncclAllGather(dMine, dGathered, n, ncclInt32, comm, stream));
  NCCL_OK(ncclReduceScatter(dPerPeer, dReduceScattered, n, ncclInt32, ncclSum, comm, stream));
  NCCL_OK(ncclAllReduce(dHalves, dAllReduced, n, ncclFloat32, ncclSum, comm, stream));
  NCCL_OK(ncclAllReduce(dHalves, dPreMultiplied, n, ncclFloat32, preMulSum, comm, stream));
  NCCL_OK(ncclBroadcast(dMine, dBroadcast, n, ncclInt32, world - 1, comm, stream));
  NCCL_OK(ncclReduce(dMine, dReduced, n, ncclInt32, ncclMax, 0, comm, stream));
  NCCL_OK(ncclAlltoAll(dPerPeer, dAllToAll, n, ncclInt32, comm, stream));
  NCCL_OK(ncclGather(dMine, dGatheredAtRoot, n, ncclInt32, 0, comm, stream));
  NCCL_OK(ncclScatter(dPerPeer, dScattered, n, ncclInt32, 0, comm, stream));
  // Pairs (0,1), (2,3), ...: outside a group the lower rank sends first, as real NCCL requires.
  const int peer = rank ^ 1;
  if (peer < world) {
    if (grouped || rank < peer) {
      NCCL_OK(ncclSend(dMine, n, ncclInt32, peer, comm, stream));
      NCCL_OK(ncclRecv(dReceived, n, ncclInt32, peer, comm, stream));
    } else {
      NCCL_OK(ncclRecv(dReceived, n, ncclInt32, peer, comm, stream));
      NCCL_OK(ncclSend(dMine, n, ncclInt32, peer, comm, stream));
    }
  }
  if (grouped) {
    NCCL_OK(ncclGroupEnd());
  }
  CUDA_OK(cudaStreamSynchronize(stream));

  std::printf("rank %d allgather: %s\n", rank, joined(hostCopyOf(dGathered, n * world)).c_str());
  std::printf("rank %d reducescatter: %s\n", rank, joined(hostCopyOf(dReduceScattered, n)).c_str());
  std::printf("rank %d allreduce: %s\n", rank, joined(hostCopyOf(dAllReduced, n)).c_str());
  std::printf("rank %d premulsum: %s\n", rank, joined(hostCopyOf(dPreMultiplied, n)).c_str());
  std::printf("rank %d broadcast: %s\n", rank, joined(hostCopyOf(dBroadcast, n)).c_str());
  std::printf("rank %d reduce: %s\n", rank, joined(hostCopyOf(dReduced, n)).c_str());
  std::printf("rank %d alltoall: %s\n", rank, joined(hostCopyOf(dAllToAll, n * world)).c_str());
  std::printf("rank %d gather: %s\n", rank, joined(hostCopyOf(dGatheredAtRoot, n * world)).c_str());
  std::printf("rank %d scatter: %s\n", rank, joined(hostCopyOf(dScattered, n)).c_str());
  std::printf("rank %d sendrecv: %s\n", rank, joined(hostCopyOf(dReceived, n)).c_str());
  NCCL_OK(ncclRedOpDestroy(preMulSum, comm));
  NCCL_OK(ncclCommDestroy(comm));
  CUDA_OK(cudaStreamDestroy(stream));
  return 0;
}
