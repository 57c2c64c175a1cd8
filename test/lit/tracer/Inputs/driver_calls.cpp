// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A program that uses only the driver API (no libcudart), as JIT stacks and driver-API programs
// do, for the tracer's lit tests: a 32-bit set on one stream writes `device`, a copy on another
// stream reads it back, ordered or not.
//
//   driver_calls <scenario>
//   race          set on `writer`, device-to-host copy on `reader`: nothing orders them
//   event         the reader waits for an event recorded after the set (cuStreamWaitEvent)
//   event-sync    the host waits for that event (cuEventSynchronize) before enqueuing the copy
//   stream-sync   the host waits for `writer` (cuStreamSynchronize)
//   ctx-sync      the host waits for the whole context (cuCtxSynchronize)
//   other-ctx-sync the host makes device 1's context current (cuCtxSetCurrent) and waits for it:
//                 the set, on device 0, is not waited for
//   pushed-ctx-sync device 1's context pushed (cuCtxPushCurrent) and popped again
//                 (cuCtxPopCurrent) before the host waits for the current context: device 0's
//   created-ctx-sync a context created on device 1 (cuCtxCreate, current from then on) is
//                 waited for: the set, on device 0, is not waited for
//   destroyed-ctx-sync the same context destroyed (which pops it) before the host waits for the
//                 current context: device 0's again
//   upload-race   a host-to-device copy on `writer` and an 8-bit set on `reader`, both writing
//   upload-event  the same, `reader` waiting for an event recorded after the copy
//   peer-race     the set, then a device-to-device copy (cuMemcpyDtoDAsync) reading it on `reader`
//   peer-event    the same, `reader` waiting for an event recorded after the set
#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>

#define CHECK(call)                                                                                \
  do {                                                                                             \
    if (CUresult result_ = (call); result_ != CUDA_SUCCESS) {                                      \
      const char* name_ = nullptr;                                                                 \
      cuGetErrorName(result_, &name_);                                                             \
      std::fprintf(stderr, "%s failed: %s\n", #call, name_ != nullptr ? name_ : "?");              \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

namespace {

constexpr size_t kWords = 1024;
constexpr size_t kBytes = kWords * sizeof(unsigned);

} // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: driver_calls <scenario>\n");
    return 2;
  }
  const std::string_view scenario = argv[1];
  CHECK(cuInit(0));
  CUdevice device_ordinal = 0;
  CHECK(cuDeviceGet(&device_ordinal, 0));
  CUcontext context = nullptr;
  CHECK(cuDevicePrimaryCtxRetain(&context, device_ordinal));
  CHECK(cuCtxSetCurrent(context));

  CUdeviceptr device = 0;
  CUdeviceptr copy = 0;
  CHECK(cuMemAlloc(&device, kBytes));
  CHECK(cuMemAlloc(&copy, kBytes));
  void* host = nullptr;
  CHECK(cuMemAllocHost(&host, kBytes));
  auto* words = static_cast<unsigned*>(host);
  CUstream writer = nullptr;
  CUstream reader = nullptr;
  CHECK(cuStreamCreate(&writer, CU_STREAM_NON_BLOCKING));
  CHECK(cuStreamCreate(&reader, CU_STREAM_NON_BLOCKING));
  CUevent written = nullptr;
  CHECK(cuEventCreate(&written, CU_EVENT_DISABLE_TIMING));

  if (scenario == "upload-race" || scenario == "upload-event") {
    for (size_t i = 0; i < kWords; ++i)
      words[i] = 3;
    CHECK(cuMemcpyHtoDAsync(device, host, kBytes, writer));
    if (scenario == "upload-event") {
      CHECK(cuEventRecord(written, writer));
      CHECK(cuStreamWaitEvent(reader, written, 0));
    }
    CHECK(cuMemsetD8Async(device, 0, kBytes, reader));
  } else {
    CHECK(cuMemsetD32Async(device, 7, kWords, writer));
    CHECK(cuEventRecord(written, writer));
    if (scenario == "event" || scenario == "peer-event") {
      CHECK(cuStreamWaitEvent(reader, written, 0));
    } else if (scenario == "event-sync") {
      CHECK(cuEventSynchronize(written));
    } else if (scenario == "stream-sync") {
      CHECK(cuStreamSynchronize(writer));
    } else if (scenario == "ctx-sync") {
      CHECK(cuCtxSynchronize());
    } else if (scenario == "other-ctx-sync" || scenario == "pushed-ctx-sync") {
      CUdevice second_ordinal = 0;
      CHECK(cuDeviceGet(&second_ordinal, 1));
      CUcontext second = nullptr;
      CHECK(cuDevicePrimaryCtxRetain(&second, second_ordinal));
      if (scenario == "other-ctx-sync") {
        CHECK(cuCtxSetCurrent(second));
      } else {
        CHECK(cuCtxPushCurrent(second));
        CUcontext popped = nullptr;
        CHECK(cuCtxPopCurrent(&popped));
      }
      CHECK(cuCtxSynchronize());
    } else if (scenario == "created-ctx-sync" || scenario == "destroyed-ctx-sync") {
      CUdevice second_ordinal = 0;
      CHECK(cuDeviceGet(&second_ordinal, 1));
      CUcontext created = nullptr;
      CHECK(cuCtxCreate(&created, nullptr, 0, second_ordinal));
      if (scenario == "destroyed-ctx-sync") CHECK(cuCtxDestroy(created));
      CHECK(cuCtxSynchronize());
      if (scenario == "created-ctx-sync") {
        CHECK(cuCtxDestroy(created));
        CUcontext current = nullptr;
        CHECK(cuCtxGetCurrent(&current));
        std::printf("after destroying the created context, one is current: %s\n",
                    current == context ? "the primary" : "ANOTHER");
      }
    } else if (scenario != "race" && scenario != "peer-race") {
      std::fprintf(stderr, "driver_calls: unknown scenario '%s'\n", argv[1]);
      return 2;
    }
    if (scenario == "peer-race" || scenario == "peer-event") {
      CHECK(cuMemcpyDtoDAsync(copy, device, kBytes, reader));
    } else {
      CHECK(cuMemcpyDtoHAsync(host, device, kBytes, reader));
    }
  }
  CHECK(cuStreamSynchronize(reader));
  CHECK(cuStreamSynchronize(writer));
  std::printf("driver calls done, host[0] = %u\n", words[0]);

  CHECK(cuEventDestroy(written));
  CHECK(cuStreamDestroy(reader));
  CHECK(cuStreamDestroy(writer));
  CHECK(cuMemFreeHost(host));
  CHECK(cuMemFree(copy));
  CHECK(cuMemFree(device));
  CHECK(cuDevicePrimaryCtxRelease(device_ordinal));
  return 0;
}
