// What goes wrong, and how it is reported.
//   mismatch  (2 ranks under the launcher): rank 0 calls AllReduce where rank 1 calls AllGather.
//   missing   (2 ranks): rank 1 skips the collective rank 0 waits in.
//   async     (2 ranks, STREAMRACE_EMU_NCCL_ON_ERROR=continue): the mismatch surfaces through
//             ncclCommGetAsyncError and ncclGetLastError instead of ending the process.
//   arguments (1 process): bad arguments return the documented codes.
#include "nccl_test_support.h"

#include <cstring>

namespace {

void collectiveFaults(const std::string& mode) {
  const int rank = environmentInt("RANK", 0);
  const int world = environmentInt("WORLD_SIZE", 1);
  CUDA_OK(cudaSetDevice(environmentInt("LOCAL_RANK", 0)));
  const ncclUniqueId id = exchangeUniqueId(rank);
  ncclComm_t comm = nullptr;
  NCCL_OK(ncclCommInitRank(&comm, world, id, rank));
  cudaStream_t stream = nullptr;
  CUDA_OK(cudaStreamCreate(&stream));
  float* buffer = deviceCopyOf(std::vector<float>(8, 1.0f));
  NCCL_OK(ncclAllReduce(buffer, buffer, 4, ncclFloat32, ncclSum, comm, stream)); // agreed: #0
  if (mode == "missing") {
    if (rank == 0) {
      NCCL_OK(ncclAllReduce(buffer, buffer, 4, ncclFloat32, ncclSum, comm, stream));
    }
  } else if (rank == 0) {
    NCCL_OK(ncclAllReduce(buffer, buffer, 4, ncclFloat32, ncclSum, comm, stream));
  } else {
    NCCL_OK(ncclAllGather(buffer, buffer + 4, 2, ncclFloat32, comm, stream));
  }
  CUDA_OK(cudaStreamSynchronize(stream));
  if (mode != "async") {
    // Only a rank that was not stopped gets here: rank 1 of "missing", leaving rank 0 waiting.
    std::printf("rank %d finished\n", rank);
    NCCL_OK(ncclCommDestroy(comm));
    return;
  }
  ncclResult_t asyncError = ncclSuccess;
  NCCL_OK(ncclCommGetAsyncError(comm, &asyncError));
  std::printf("rank %d async error: %s\n", rank, ncclGetErrorString(asyncError));
  std::printf("rank %d last error: %s\n", rank, ncclGetLastError(comm));
  const ncclResult_t next = ncclAllReduce(buffer, buffer, 4, ncclFloat32, ncclSum, comm, stream);
  std::printf("rank %d next call: %s\n", rank, ncclGetErrorString(next));
  ncclCommAbort(comm);
}

void argumentFaults() {
  ncclComm_t comm = nullptr;
  int device = 0;
  NCCL_OK(ncclCommInitAll(&comm, 1, &device));
  float* buffer = deviceCopyOf(std::vector<float>(4, 1.0f));
  auto report = [](const char* what, ncclResult_t result) {
    std::printf("%s: %s | %s\n", what, ncclGetErrorString(result), ncclGetLastError(nullptr));
  };
  report("null comm", ncclAllReduce(buffer, buffer, 4, ncclFloat32, ncclSum, nullptr, nullptr));
  report("bad datatype",
         ncclAllReduce(buffer, buffer, 4, static_cast<ncclDataType_t>(99), ncclSum, comm, nullptr));
  report("bad op", ncclAllReduce(buffer, buffer, 4, ncclFloat32, static_cast<ncclRedOp_t>(42), comm,
                                 nullptr));
  report("bad root", ncclBroadcast(buffer, buffer, 4, ncclFloat32, 3, comm, nullptr));
  report("bad peer", ncclSend(buffer, 4, ncclFloat32, 1, comm, nullptr));
  report("bad stream", ncclAllReduce(buffer, buffer, 4, ncclFloat32, ncclSum, comm,
                                     reinterpret_cast<cudaStream_t>(0x1234)));
  report("null buffer", ncclAllGather(nullptr, buffer, 4, ncclFloat32, comm, nullptr));
  report("group end without start", ncclGroupEnd());
  ncclUniqueId garbage{};
  std::memset(garbage.internal, 'x', sizeof(garbage.internal));
  ncclComm_t unused = nullptr;
  report("foreign id", ncclCommInitRank(&unused, 2, garbage, 0));
  int version = 0;
  NCCL_OK(ncclGetVersion(&version));
  std::printf("version %d\n", version);
  NCCL_OK(ncclCommDestroy(comm));
}

} // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "arguments") {
    argumentFaults();
  } else if (mode == "mismatch" || mode == "missing" || mode == "async") {
    collectiveFaults(mode);
  } else {
    std::fprintf(stderr, "usage: %s mismatch|missing|async|arguments\n", argv[0]);
    return 2;
  }
  return 0;
}
