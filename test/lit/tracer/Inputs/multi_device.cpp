// One process drives two devices, one NCCL communicator rank each (ncclCommInitAll), for the
// tracer's lit tests. On each device a copy on the compute stream fills `shard` and an
// all-reduce on the communication stream reads it. Device 0's all-reduce always waits for its
// copy through an event; device 1's waits only in the `fixed` scenarios. The `-reversed` ones
// set device 1 up before device 0, so the order of first use is not the devices' order.
//
// The peer scenarios cross devices on one thread: device 0's stream copies into device 1's
// `shard`, and device 1's stream then reads it. `peer-synced` synchronizes device 0's stream
// in between; `peer-racy` does not; `peer-stale` synchronizes it only before the copy, after
// an earlier copy on the same stream.
//
//   multi_device racy|fixed|racy-reversed|fixed-reversed|peer-racy|peer-synced|peer-stale
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdio>
#include <string_view>

#include "../../Inputs/check_call.h"
#include "../../Inputs/check_nccl_call.h"

namespace {

constexpr int kDevices = 2;
constexpr std::size_t kCount = 1 << 12;
constexpr std::size_t kBytes = kCount * sizeof(float);

struct Device {
  float* source = nullptr;
  float* shard = nullptr;
  float* reduced = nullptr;
  cudaStream_t compute = nullptr;
  cudaStream_t communication = nullptr;
  cudaEvent_t filled = nullptr;
};

int run(bool fixed, bool reversed) {
  Device devices[kDevices];
  for (int i = 0; i < kDevices; ++i) {
    const int d = reversed ? kDevices - 1 - i : i;
    Device& device = devices[d];
    CHECK(cudaSetDevice(d));
    CHECK(cudaMalloc(&device.source, kBytes));
    CHECK(cudaMalloc(&device.shard, kBytes));
    CHECK(cudaMalloc(&device.reduced, kBytes));
    CHECK(cudaMemset(device.source, 0, kBytes));
    CHECK(cudaStreamCreate(&device.compute));
    CHECK(cudaStreamCreate(&device.communication));
    CHECK(cudaEventCreateWithFlags(&device.filled, cudaEventDisableTiming));
  }
  ncclComm_t comms[kDevices];
  const int ordinals[kDevices] = {0, 1};
  NCCL_CHECK(ncclCommInitAll(comms, kDevices, ordinals));
  for (int d = 0; d < kDevices; ++d) {
    Device& device = devices[d];
    CHECK(cudaSetDevice(d));
    CHECK(cudaMemcpyAsync(device.shard, device.source, kBytes, cudaMemcpyDeviceToDevice,
                          device.compute));
    if (d == 0 || fixed) {
      CHECK(cudaEventRecord(device.filled, device.compute));
      CHECK(cudaStreamWaitEvent(device.communication, device.filled, 0));
    }
  }
  NCCL_CHECK(ncclGroupStart());
  for (int d = 0; d < kDevices; ++d)
    NCCL_CHECK(ncclAllReduce(devices[d].shard, devices[d].reduced, kCount, ncclFloat, ncclSum,
                             comms[d], devices[d].communication));
  NCCL_CHECK(ncclGroupEnd());
  for (int d = 0; d < kDevices; ++d) {
    CHECK(cudaSetDevice(d));
    CHECK(cudaDeviceSynchronize());
  }
  std::printf("all-reduce on %d devices done\n", kDevices);
  for (ncclComm_t comm : comms)
    NCCL_CHECK(ncclCommDestroy(comm));
  return 0;
}

enum class PeerSync { None, After, Before };

int run_peer(PeerSync sync) {
  Device devices[kDevices];
  for (int d = 0; d < kDevices; ++d) {
    CHECK(cudaSetDevice(d));
    CHECK(cudaMalloc(&devices[d].source, kBytes));
    CHECK(cudaMalloc(&devices[d].shard, kBytes));
    CHECK(cudaMemset(devices[d].source, 0, kBytes));
    CHECK(cudaStreamCreate(&devices[d].compute));
  }
  CHECK(cudaSetDevice(0));
  if (sync == PeerSync::Before) {
    CHECK(cudaMemcpyAsync(devices[0].shard, devices[0].source, kBytes, cudaMemcpyDeviceToDevice,
                          devices[0].compute));
    CHECK(cudaStreamSynchronize(devices[0].compute));
  }
  CHECK(cudaMemcpyPeerAsync(devices[1].shard, 1, devices[0].source, 0, kBytes, devices[0].compute));
  if (sync == PeerSync::After) CHECK(cudaStreamSynchronize(devices[0].compute));
  CHECK(cudaSetDevice(1));
  CHECK(cudaMemcpyAsync(devices[1].source, devices[1].shard, kBytes, cudaMemcpyDeviceToDevice,
                        devices[1].compute));
  CHECK(cudaStreamSynchronize(devices[1].compute));
  std::printf("peer copy across %d devices done\n", kDevices);
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  const std::string_view scenario = argc == 2 ? argv[1] : "";
  if (scenario == "racy" || scenario == "fixed") return run(scenario == "fixed", false);
  if (scenario == "racy-reversed" || scenario == "fixed-reversed")
    return run(scenario == "fixed-reversed", true);
  if (scenario == "peer-racy") return run_peer(PeerSync::None);
  if (scenario == "peer-synced") return run_peer(PeerSync::After);
  if (scenario == "peer-stale") return run_peer(PeerSync::Before);
  std::fprintf(stderr, "usage: multi_device racy|fixed|racy-reversed|fixed-reversed|peer-racy|"
                       "peer-synced|peer-stale\n");
  return 2;
}
