// Collectives obey stream order and events (run under streamrace-emu-launch). Each rank's send
// buffer is filled late on a "compute" stream: a host function sleeps, then a copy writes
// 7 + rank.
//   event:    the collective's stream waits on an event recorded after the fill: it sees 7 + rank.
//   no-event: nothing orders them: the collective runs first and reads the stale 0.
//   group:    the fill is on stream C, an AllGather on stream B and an AllReduce on C share one
//             group, and C copies the AllGather's result out afterwards: the group acts as one
//             operation on both streams, so both directions are ordered.
//   graph:    an AllGather captured into a CUDA graph runs at every launch of the graph, with
//             the data present at that launch.
//   send-held: rank 0 sends one int to rank 1, which posts its receive a second later; the send's
//             stream stays busy until then, as NCCL documents a send as blocking for the GPU
//             until its receive is matched, however small the message.
#include "nccl_test_support.h"

#include <chrono>
#include <thread>

namespace {

// How long the fill is held back. The ordered modes pass at any length; the racing one needs the
// collective to finish first, so it gets a margin that survives a loaded machine.
void CUDART_CB sleepAWhile(void* milliseconds) {
  std::this_thread::sleep_for(std::chrono::milliseconds(*static_cast<int*>(milliseconds)));
}

} // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const int rank = environmentInt("RANK", 0);
  const int world = environmentInt("WORLD_SIZE", 1);
  CUDA_OK(cudaSetDevice(environmentInt("LOCAL_RANK", 0)));
  const ncclUniqueId id = exchangeUniqueId(rank);
  ncclComm_t comm = nullptr;
  NCCL_OK(ncclCommInitRank(&comm, world, id, rank));
  cudaStream_t compute = nullptr;
  cudaStream_t communication = nullptr;
  CUDA_OK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
  CUDA_OK(cudaStreamCreateWithFlags(&communication, cudaStreamNonBlocking));
  int* pinned = nullptr;
  CUDA_OK(cudaMallocHost(&pinned, (world + 1) * sizeof(int)));
  pinned[0] = 7 + rank;
  int* send = deviceCopyOf(std::vector<int>{0});
  int* gathered = deviceCopyOf(std::vector<int>(world, -1));
  int* summed = deviceCopyOf(std::vector<int>{-1});

  if (mode == "graph") {
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t executable = nullptr;
    CUDA_OK(cudaStreamBeginCapture(communication, cudaStreamCaptureModeThreadLocal));
    NCCL_OK(ncclAllGather(send, gathered, 1, ncclInt32, comm, communication));
    CUDA_OK(cudaStreamEndCapture(communication, &graph));
    CUDA_OK(cudaGraphInstantiate(&executable, graph, 0));
    for (int launch = 1; launch <= 2; ++launch) {
      pinned[0] = 10 * launch + rank;
      CUDA_OK(cudaMemcpy(send, pinned, sizeof(int), cudaMemcpyHostToDevice));
      CUDA_OK(cudaGraphLaunch(executable, communication));
      CUDA_OK(cudaStreamSynchronize(communication));
      std::printf("rank %d graph launch %d: allgather %s\n", rank, launch,
                  joined(hostCopyOf(gathered, world)).c_str());
    }
    CUDA_OK(cudaGraphExecDestroy(executable));
    CUDA_OK(cudaGraphDestroy(graph));
    NCCL_OK(ncclCommDestroy(comm));
    return 0;
  }
  if (mode == "send-held") {
    constexpr int kReceiveLateMs = 1000;
    constexpr int kQueryAfterMs = 200;
    if (rank == 0) {
      NCCL_OK(ncclSend(send, 1, ncclInt32, 1, comm, communication));
      std::this_thread::sleep_for(std::chrono::milliseconds(kQueryAfterMs));
      const cudaError_t early = cudaStreamQuery(communication);
      CUDA_OK(cudaStreamSynchronize(communication));
      std::printf("rank 0 send-held: before the receive %s, after it %s\n",
                  early == cudaErrorNotReady ? "busy" : "idle",
                  cudaStreamQuery(communication) == cudaSuccess ? "idle" : "busy");
    } else if (rank == 1) {
      std::this_thread::sleep_for(std::chrono::milliseconds(kReceiveLateMs));
      NCCL_OK(ncclRecv(summed, 1, ncclInt32, 0, comm, communication));
      CUDA_OK(cudaStreamSynchronize(communication));
      std::printf("rank 1 send-held: received %d\n", hostCopyOf(summed, 1)[0]);
    }
    NCCL_OK(ncclCommDestroy(comm));
    return 0;
  }
  const cudaStream_t fillStream = mode == "group" ? communication : compute;
  static int holdBack = mode == "no-event" ? 2000 : 300;
  CUDA_OK(cudaLaunchHostFunc(fillStream, sleepAWhile, &holdBack));
  CUDA_OK(cudaMemcpyAsync(send, pinned, sizeof(int), cudaMemcpyHostToDevice, fillStream));
  if (mode == "group") {
    NCCL_OK(ncclGroupStart());
    NCCL_OK(ncclAllGather(send, gathered, 1, ncclInt32, comm, compute));
    NCCL_OK(ncclAllReduce(send, summed, 1, ncclInt32, ncclSum, comm, communication));
    NCCL_OK(ncclGroupEnd());
    CUDA_OK(cudaMemcpyAsync(pinned + 1, gathered, world * sizeof(int), cudaMemcpyDeviceToHost,
                            communication));
    CUDA_OK(cudaStreamSynchronize(communication));
    const std::vector<int> sum = hostCopyOf(summed, 1);
    std::printf("rank %d group: allgather %s sum %d\n", rank,
                joined(std::vector<int>(pinned + 1, pinned + 1 + world)).c_str(), sum[0]);
  } else {
    if (mode == "event") {
      cudaEvent_t filled = nullptr;
      CUDA_OK(cudaEventCreateWithFlags(&filled, cudaEventDisableTiming));
      CUDA_OK(cudaEventRecord(filled, compute));
      CUDA_OK(cudaStreamWaitEvent(communication, filled, 0));
    }
    NCCL_OK(ncclAllGather(send, gathered, 1, ncclInt32, comm, communication));
    CUDA_OK(cudaStreamSynchronize(communication));
    std::printf("rank %d %s: allgather %s\n", rank, mode.c_str(),
                joined(hostCopyOf(gathered, world)).c_str());
  }
  CUDA_OK(cudaDeviceSynchronize());
  NCCL_OK(ncclCommDestroy(comm));
  return 0;
}
