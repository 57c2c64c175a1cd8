// Ranks as threads of one process.
//   init-all: one thread, ncclCommInitAll over N devices, one group driving every device's
//             AllReduce on its own stream (the classic single-process pattern).
//   group-init: the same, with the ranks created by ncclCommInitRank calls inside one group.
//   threads:  one thread per rank, each calling ncclCommInitRank with a shared id, then an
//             AllGather, and ncclCommSplit into even and odd ranks with an AllReduce in each.
#include "nccl_test_support.h"

#include <cstring>
#include <mutex>
#include <thread>

namespace {

std::mutex printMutex;

void initAll(int ranks, bool groupedInitRank) {
  std::vector<ncclComm_t> comms(ranks);
  if (groupedInitRank) {
    // One thread initializing every rank: inside a group, ncclCommInitRank does not block.
    ncclUniqueId id{};
    NCCL_OK(ncclGetUniqueId(&id));
    NCCL_OK(ncclGroupStart());
    for (int rank = 0; rank < ranks; ++rank) {
      CUDA_OK(cudaSetDevice(rank));
      NCCL_OK(ncclCommInitRank(&comms[rank], ranks, id, rank));
    }
    NCCL_OK(ncclGroupEnd());
  } else {
    NCCL_OK(ncclCommInitAll(comms.data(), ranks, nullptr));
  }
  std::vector<cudaStream_t> streams(ranks);
  std::vector<float*> buffers(ranks);
  for (int rank = 0; rank < ranks; ++rank) {
    CUDA_OK(cudaSetDevice(rank));
    CUDA_OK(cudaStreamCreate(&streams[rank]));
    buffers[rank] = deviceCopyOf(std::vector<float>{1.0f * rank, 2.0f * rank, 3.0f});
  }
  NCCL_OK(ncclGroupStart());
  for (int rank = 0; rank < ranks; ++rank) {
    CUDA_OK(cudaSetDevice(rank));
    NCCL_OK(ncclAllReduce(buffers[rank], buffers[rank], 3, ncclFloat32, ncclSum, comms[rank],
                          streams[rank]));
  }
  NCCL_OK(ncclGroupEnd());
  for (int rank = 0; rank < ranks; ++rank) {
    CUDA_OK(cudaSetDevice(rank));
    CUDA_OK(cudaStreamSynchronize(streams[rank]));
    int device = -1;
    NCCL_OK(ncclCommCuDevice(comms[rank], &device));
    std::printf("init-all rank %d device %d allreduce: %s\n", rank, device,
                joined(hostCopyOf(buffers[rank], 3)).c_str());
  }
  // Simulating a group runs nothing: it only estimates (6 ring steps of 2 us for 12 bytes).
  ncclSimInfo_t simulated = NCCL_SIM_INFO_INITIALIZER;
  NCCL_OK(ncclGroupStart());
  NCCL_OK(ncclAllReduce(buffers[0], buffers[0], 3, ncclFloat32, ncclSum, comms[0], streams[0]));
  NCCL_OK(ncclGroupSimulateEnd(&simulated));
  CUDA_OK(cudaDeviceSynchronize());
  std::printf("simulated allreduce: %.1f us, buffer still %s\n", simulated.estimatedTime,
              joined(hostCopyOf(buffers[0], 3)).c_str());
  for (ncclComm_t comm : comms) {
    NCCL_OK(ncclCommDestroy(comm));
  }
}

void threadRank(int rank, int ranks, const ncclUniqueId& id) {
  CUDA_OK(cudaSetDevice(rank));
  ncclComm_t comm = nullptr;
  NCCL_OK(ncclCommInitRank(&comm, ranks, id, rank));
  cudaStream_t stream = nullptr;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  int* mine = deviceCopyOf(std::vector<int>{rank + 1});
  int* gathered = deviceCopyOf(std::vector<int>(ranks, 0));
  NCCL_OK(ncclAllGather(mine, gathered, 1, ncclInt32, comm, stream));

  ncclComm_t half = nullptr;
  NCCL_OK(ncclCommSplit(comm, rank % 2, -rank, &half, nullptr));
  int halfRank = -1;
  int halfCount = 0;
  NCCL_OK(ncclCommUserRank(half, &halfRank));
  NCCL_OK(ncclCommCount(half, &halfCount));
  int* summed = deviceCopyOf(std::vector<int>{0});
  NCCL_OK(ncclAllReduce(mine, summed, 1, ncclInt32, ncclSum, half, stream));
  CUDA_OK(cudaStreamSynchronize(stream));
  const std::vector<int> all = hostCopyOf(gathered, ranks);
  const std::vector<int> sum = hostCopyOf(summed, 1);
  {
    std::lock_guard lock(printMutex);
    std::printf("thread rank %d allgather: %s\n", rank, joined(all).c_str());
    std::printf("thread rank %d split color %d: rank %d of %d, sum %d\n", rank, rank % 2, halfRank,
                halfCount, sum[0]);
  }
  NCCL_OK(ncclCommDestroy(half));
  NCCL_OK(ncclCommDestroy(comm));
}

} // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const int ranks = argc > 2 ? std::atoi(argv[2]) : 4;
  if (mode == "init-all" || mode == "group-init") {
    initAll(ranks, mode == "group-init");
  } else if (mode == "threads") {
    ncclUniqueId id{};
    NCCL_OK(ncclGetUniqueId(&id));
    std::vector<std::thread> threads;
    for (int rank = 0; rank < ranks; ++rank) {
      threads.emplace_back(threadRank, rank, ranks, std::cref(id));
    }
    for (std::thread& thread : threads) {
      thread.join();
    }
  } else {
    std::fprintf(stderr, "usage: %s init-all|group-init|threads [ranks]\n", argv[0]);
    return 2;
  }
  return 0;
}
