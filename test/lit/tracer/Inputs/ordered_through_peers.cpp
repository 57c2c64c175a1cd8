// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Work of one process ordered only through other ranks. Ranks 0 and 1 fill a buffer on their
// producer stream and all-gather it there on communicator A; their consumer stream all-gathers
// on communicator B and copies the buffer out. The relay rank (2) issues both all-gathers on
// one stream, A's first: B's all-gather completes only after the relay's part, which comes after
// A's, which comes after every producer's fill. So a copy after B's all-gather is ordered after
// the fill, through the relay; nothing inside the process orders it. In `racy`, rank 1 copies
// before B's all-gather (a race, at the same lines as rank 0's ordered copy); in `ordered` both
// copy after it. Run by a launcher with three ranks and shared NCCL ids. The `-scalable` forms
// make the communicators as NCCL 2.23+ programs can: A with ncclCommInitRankScalable (from two
// ids), B with ncclCommShrink of a communicator that excludes no rank.
//
//   ordered_through_peers racy|ordered|racy-scalable|ordered-scalable
#include <cuda_runtime_api.h>
#include <nccl.h>

#include "../../Inputs/check_call.h"
#include "../../Inputs/check_nccl_call.h"
#include "../../Inputs/launcher_environment.h"

#include <cstdio>
#include <string_view>

namespace {

constexpr std::size_t kElements = 1 << 10;
constexpr std::size_t kBytes = kElements * sizeof(float);
constexpr int kRelay = 2;

cudaError_t copy_out(float* sink, const float* staged, cudaStream_t stream) {
  return cudaMemcpyAsync(sink, staged, kBytes, cudaMemcpyDeviceToDevice, stream);
}

// Communicators A and B, as ncclCommInitRank makes them, or through the scalable and shrinking
// calls.
ncclResult_t make_communicators(bool scalable, int ranks, int rank, ncclComm_t& comm_a,
                                ncclComm_t& comm_b) {
  ncclUniqueId ids_a[2];
  ncclUniqueId id_b;
  for (ncclUniqueId& id : ids_a)
    if (ncclResult_t result = ncclGetUniqueId(&id); result != ncclSuccess) return result;
  if (ncclResult_t result = ncclGetUniqueId(&id_b); result != ncclSuccess) return result;
  if (!scalable) {
    if (ncclResult_t result = ncclCommInitRank(&comm_a, ranks, ids_a[0], rank);
        result != ncclSuccess)
      return result;
    return ncclCommInitRank(&comm_b, ranks, id_b, rank);
  }
  if (ncclResult_t result = ncclCommInitRankScalable(&comm_a, ranks, rank, 2, ids_a, nullptr);
      result != ncclSuccess)
    return result;
  ncclComm_t parent = nullptr;
  if (ncclResult_t result = ncclCommInitRank(&parent, ranks, id_b, rank); result != ncclSuccess)
    return result;
  const ncclResult_t shrunk =
      ncclCommShrink(parent, nullptr, 0, &comm_b, nullptr, NCCL_SHRINK_DEFAULT);
  if (shrunk != ncclSuccess) return shrunk;
  return ncclCommDestroy(parent);
}

int run(bool racy, bool scalable) {
  const int rank = environment_number("RANK", 0);
  const int ranks = environment_number("WORLD_SIZE", 1);
  if (ranks != 3) {
    std::fprintf(stderr, "ordered_through_peers: needs 3 ranks, got %d\n", ranks);
    return 2;
  }
  CHECK(cudaSetDevice(environment_number("LOCAL_RANK", 0)));
  ncclComm_t comm_a = nullptr;
  ncclComm_t comm_b = nullptr;
  NCCL_CHECK(make_communicators(scalable, ranks, rank, comm_a, comm_b));

  float* staged = nullptr;
  float* sink = nullptr;
  float* gathered_a = nullptr;
  float* gathered_b = nullptr;
  CHECK(cudaMalloc(reinterpret_cast<void**>(&staged), kBytes));
  CHECK(cudaMalloc(reinterpret_cast<void**>(&sink), kBytes));
  CHECK(cudaMalloc(reinterpret_cast<void**>(&gathered_a), ranks * kBytes));
  CHECK(cudaMalloc(reinterpret_cast<void**>(&gathered_b), ranks * kBytes));
  CHECK(cudaDeviceSynchronize());
  cudaStream_t producer = nullptr;
  cudaStream_t consumer = nullptr;
  CHECK(cudaStreamCreateWithFlags(&producer, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&consumer, cudaStreamNonBlocking));

  if (rank == kRelay) {
    NCCL_CHECK(ncclAllGather(staged, gathered_a, kElements, ncclFloat, comm_a, producer));
    NCCL_CHECK(ncclAllGather(sink, gathered_b, kElements, ncclFloat, comm_b, producer));
  } else {
    CHECK(cudaMemsetAsync(staged, rank, kBytes, producer));
    NCCL_CHECK(ncclAllGather(staged, gathered_a, kElements, ncclFloat, comm_a, producer));
    const bool copy_first = racy && rank == 1;
    for (int phase = 0; phase < 2; ++phase) {
      if ((phase == 0) == copy_first) CHECK(copy_out(sink, staged, consumer));
      if (phase == 0)
        NCCL_CHECK(ncclAllGather(sink, gathered_b, kElements, ncclFloat, comm_b, consumer));
    }
  }
  CHECK(cudaDeviceSynchronize());
  std::printf("rank %d done\n", rank);

  CHECK(cudaStreamDestroy(producer));
  CHECK(cudaStreamDestroy(consumer));
  for (float* buffer : {staged, sink, gathered_a, gathered_b})
    CHECK(cudaFree(buffer));
  NCCL_CHECK(ncclCommDestroy(comm_a));
  NCCL_CHECK(ncclCommDestroy(comm_b));
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  const std::string_view mode = argc == 2 ? argv[1] : "";
  if (mode != "racy" && mode != "ordered" && mode != "racy-scalable" &&
      mode != "ordered-scalable") {
    std::fprintf(stderr,
                 "usage: ordered_through_peers racy|ordered|racy-scalable|ordered-scalable\n");
    return 2;
  }
  return run(mode.starts_with("racy"), mode.ends_with("-scalable"));
}
