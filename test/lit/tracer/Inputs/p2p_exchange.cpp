// Two ranks swap buffers with ncclSend/ncclRecv inside a group on the communication stream,
// while the compute stream refills the buffer being sent. `racy` refills it with no ordering
// (a write racing the send's read); `fixed` makes the compute stream wait for the exchange.
// Run one process per rank under a launcher that shares NCCL ids (RANK, WORLD_SIZE, LOCAL_RANK).
//
//   p2p_exchange racy|fixed
#include <cuda_runtime_api.h>
#include <nccl.h>

#include "../../Inputs/check_call.h"
#include "../../Inputs/check_nccl_call.h"
#include "../../Inputs/launcher_environment.h"

#include <cstdio>
#include <string_view>

namespace {

constexpr std::size_t kElements = 1 << 12;

int run(bool fixed) {
  const int rank = environment_number("RANK", 0);
  const int ranks = environment_number("WORLD_SIZE", 1);
  const int peer = (rank + 1) % ranks;
  CHECK(cudaSetDevice(environment_number("LOCAL_RANK", 0)));
  ncclUniqueId id;
  NCCL_CHECK(ncclGetUniqueId(&id));
  ncclComm_t comm = nullptr;
  NCCL_CHECK(ncclCommInitRank(&comm, ranks, id, rank));

  float* outgoing = nullptr;
  float* incoming = nullptr;
  float* fresh = nullptr;
  CHECK(cudaMalloc(reinterpret_cast<void**>(&outgoing), kElements * sizeof(float)));
  CHECK(cudaMalloc(reinterpret_cast<void**>(&incoming), kElements * sizeof(float)));
  CHECK(cudaMalloc(reinterpret_cast<void**>(&fresh), kElements * sizeof(float)));
  CHECK(cudaMemset(outgoing, 0, kElements * sizeof(float)));
  CHECK(cudaMemset(fresh, 0, kElements * sizeof(float)));
  CHECK(cudaDeviceSynchronize());

  cudaStream_t compute = nullptr;
  cudaStream_t communication = nullptr;
  CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&communication, cudaStreamNonBlocking));
  cudaEvent_t exchanged = nullptr;
  CHECK(cudaEventCreateWithFlags(&exchanged, cudaEventDisableTiming));

  NCCL_CHECK(ncclGroupStart());
  NCCL_CHECK(ncclSend(outgoing, kElements, ncclFloat, peer, comm, communication));
  NCCL_CHECK(ncclRecv(incoming, kElements, ncclFloat, peer, comm, communication));
  NCCL_CHECK(ncclGroupEnd());
  if (fixed) {
    CHECK(cudaEventRecord(exchanged, communication));
    CHECK(cudaStreamWaitEvent(compute, exchanged, 0));
  }
  CHECK(cudaMemcpyAsync(outgoing, fresh, kElements * sizeof(float), cudaMemcpyDeviceToDevice,
                        compute));
  CHECK(cudaStreamSynchronize(compute));
  CHECK(cudaStreamSynchronize(communication));
  std::printf("exchange done\n");

  CHECK(cudaEventDestroy(exchanged));
  CHECK(cudaStreamDestroy(compute));
  CHECK(cudaStreamDestroy(communication));
  CHECK(cudaFree(outgoing));
  CHECK(cudaFree(incoming));
  CHECK(cudaFree(fresh));
  NCCL_CHECK(ncclCommDestroy(comm));
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 2 || (std::string_view(argv[1]) != "racy" && std::string_view(argv[1]) != "fixed")) {
    std::fprintf(stderr, "usage: p2p_exchange racy|fixed\n");
    return 2;
  }
  return run(std::string_view(argv[1]) == "fixed");
}
