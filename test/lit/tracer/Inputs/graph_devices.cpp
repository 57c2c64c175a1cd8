// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One thread drives several devices and runs its collectives as CUDA graphs, the way
// nccl-tests' graph modes do (-G 1, -G 2, -g N): each device's stream is captured around a group
// of all-reduces, every graph is instantiated while device 0 is current, then each graph is
// launched on its device's stream `launches` times. For the tracer's lit tests.
//
//   graph_devices graphs DEVICES LAUNCHES   the collectives alone: nothing races
//   graph_devices graph-racy                a copy on another stream of device 1 fills the
//                                           buffer the graph's all-reduce reads, unordered
//   graph_devices graph-ordered             the same copy, waited for through an event
//   graph_devices event-across-devices      a copy on device 0 then a read on device 1 that
//                                           waits for device 0's event
//   graph_devices no-event-across-devices   the same without the wait
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../../Inputs/check_call.h"
#include "../../Inputs/check_nccl_call.h"

namespace {

constexpr int kMaxDevices = 4;
constexpr std::size_t kCount = 1 << 10;
constexpr std::size_t kBytes = kCount * sizeof(float);
constexpr int kCollectivesPerGraph = 3;

struct Device {
  float* send = nullptr;
  float* receive = nullptr;
  float* staging = nullptr;
  cudaStream_t stream = nullptr;
  cudaStream_t side = nullptr;
  cudaEvent_t filled = nullptr;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
};

enum class SideCopy { None, Unordered, Ordered };

int run_graphs(int count, int launches, SideCopy side_copy) {
  std::vector<Device> devices(count);
  std::vector<int> ordinals(count);
  for (int d = 0; d < count; ++d) {
    Device& device = devices[d];
    ordinals[d] = d;
    CHECK(cudaSetDevice(d));
    CHECK(cudaMalloc(&device.send, kBytes));
    CHECK(cudaMalloc(&device.receive, kBytes));
    CHECK(cudaMalloc(&device.staging, kBytes));
    CHECK(cudaMemset(device.staging, 0, kBytes));
    CHECK(cudaDeviceSynchronize()); // a set of device memory returns before it is done
    CHECK(cudaStreamCreateWithFlags(&device.stream, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&device.side, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&device.filled, cudaEventDisableTiming));
  }
  std::vector<ncclComm_t> comms(count);
  NCCL_CHECK(ncclCommInitAll(comms.data(), count, ordinals.data()));
  for (int d = 0; d < count; ++d) {
    CHECK(cudaSetDevice(d));
    CHECK(cudaMemcpyAsync(devices[d].send, devices[d].staging, kBytes, cudaMemcpyDeviceToDevice,
                          devices[d].stream));
    CHECK(cudaStreamSynchronize(devices[d].stream));
  }

  for (int d = 0; d < count; ++d)
    CHECK(cudaStreamBeginCapture(devices[d].stream, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < kCollectivesPerGraph; ++i) {
    NCCL_CHECK(ncclGroupStart());
    for (int d = 0; d < count; ++d)
      NCCL_CHECK(ncclAllReduce(devices[d].send, devices[d].receive, kCount, ncclFloat, ncclSum,
                               comms[d], devices[d].stream));
    NCCL_CHECK(ncclGroupEnd());
  }
  for (int d = 0; d < count; ++d)
    CHECK(cudaStreamEndCapture(devices[d].stream, &devices[d].graph));
  // Every graph is instantiated while device 0 is current, as nccl-tests does.
  CHECK(cudaSetDevice(0));
  for (int d = 0; d < count; ++d)
    CHECK(cudaGraphInstantiate(&devices[d].exec, devices[d].graph, 0));

  if (side_copy != SideCopy::None) {
    Device& device = devices[1];
    CHECK(cudaSetDevice(1));
    CHECK(cudaMemcpyAsync(device.send, device.staging, kBytes, cudaMemcpyDeviceToDevice,
                          device.side));
    if (side_copy == SideCopy::Ordered) {
      CHECK(cudaEventRecord(device.filled, device.side));
      CHECK(cudaStreamWaitEvent(device.stream, device.filled, 0));
    }
  }
  for (int launch = 0; launch < launches; ++launch)
    for (int d = 0; d < count; ++d)
      CHECK(cudaGraphLaunch(devices[d].exec, devices[d].stream));
  for (int d = 0; d < count; ++d) {
    CHECK(cudaSetDevice(d));
    CHECK(cudaStreamSynchronize(devices[d].stream));
    CHECK(cudaGraphExecDestroy(devices[d].exec));
    CHECK(cudaGraphDestroy(devices[d].graph));
  }
  for (ncclComm_t comm : comms)
    NCCL_CHECK(ncclCommDestroy(comm));
  std::printf("%d graphs of %d all-reduces launched %d times\n", count, kCollectivesPerGraph,
              launches);
  return 0;
}

int run_event_across_devices(bool wait) {
  Device devices[2];
  for (int d = 0; d < 2; ++d) {
    CHECK(cudaSetDevice(d));
    CHECK(cudaMalloc(&devices[d].send, kBytes));
    CHECK(cudaMalloc(&devices[d].staging, kBytes));
    CHECK(cudaMemset(devices[d].staging, 0, kBytes));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaStreamCreateWithFlags(&devices[d].stream, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&devices[d].filled, cudaEventDisableTiming));
  }
  CHECK(cudaSetDevice(0));
  CHECK(cudaMemcpyPeerAsync(devices[1].send, 1, devices[0].staging, 0, kBytes, devices[0].stream));
  CHECK(cudaEventRecord(devices[0].filled, devices[0].stream));
  CHECK(cudaSetDevice(1));
  if (wait) CHECK(cudaStreamWaitEvent(devices[1].stream, devices[0].filled, 0));
  CHECK(cudaMemcpyAsync(devices[1].staging, devices[1].send, kBytes, cudaMemcpyDeviceToDevice,
                        devices[1].stream));
  CHECK(cudaStreamSynchronize(devices[1].stream));
  CHECK(cudaSetDevice(0));
  CHECK(cudaStreamSynchronize(devices[0].stream));
  std::printf("event across devices done\n");
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  const char* scenario = argc >= 2 ? argv[1] : "";
  if (std::strcmp(scenario, "graphs") == 0 && argc == 4) {
    const int count = std::atoi(argv[2]);
    const int launches = std::atoi(argv[3]);
    if (count >= 1 && count <= kMaxDevices && launches >= 1)
      return run_graphs(count, launches, SideCopy::None);
  }
  if (std::strcmp(scenario, "graph-racy") == 0) return run_graphs(2, 1, SideCopy::Unordered);
  if (std::strcmp(scenario, "graph-ordered") == 0) return run_graphs(2, 1, SideCopy::Ordered);
  if (std::strcmp(scenario, "event-across-devices") == 0) return run_event_across_devices(true);
  if (std::strcmp(scenario, "no-event-across-devices") == 0) return run_event_across_devices(false);
  std::fprintf(stderr,
               "usage: graph_devices graphs DEVICES(1-%d) LAUNCHES | graph-racy | "
               "graph-ordered | event-across-devices | no-event-across-devices\n",
               kMaxDevices);
  return 2;
}
