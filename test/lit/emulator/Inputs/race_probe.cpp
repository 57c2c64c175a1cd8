// Provokes (or prevents) a cross-stream race on the emulator and prints the value the reader saw.
// Built against the real CUDA runtime and run on the emulator; the tests slow the writer down
// with STREAMRACE_EMU_DELAY so an unordered reader reliably overtakes it.
//
//   race_probe <scenario>
//   cross-stream-racy          writer on stream 1, reader on stream 2, nothing between them
//   cross-stream-synchronized  the same, with an event recorded after the write and waited on
//   legacy-after-blocking      reader on the legacy default stream, writer on a blocking stream
//   legacy-after-nonblocking   reader on the legacy default stream, writer on a non-blocking one
//   host-function              a host function enqueued after the write reads the result
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <string_view>

#include "../../Inputs/check_call.h"

namespace {

constexpr std::size_t bytes = 4096;
constexpr int written = 7;

void CUDART_CB printSeen(void* pinned) {
  std::printf("host function saw %d\n", static_cast<unsigned char*>(pinned)[bytes - 1]);
}

int run(std::string_view scenario) {
  unsigned char* device = nullptr;
  unsigned char* pinned = nullptr;
  CHECK(cudaMalloc(reinterpret_cast<void**>(&device), bytes));
  CHECK(cudaMallocHost(reinterpret_cast<void**>(&pinned), bytes));
  CHECK(cudaMemset(device, 0, bytes));
  CHECK(cudaDeviceSynchronize());

  // Stream 1 (the first created) writes; the tests delay it.
  bool nonBlockingWriter = scenario == "legacy-after-nonblocking";
  cudaStream_t writer, reader;
  CHECK(cudaStreamCreateWithFlags(&writer,
                                  nonBlockingWriter ? cudaStreamNonBlocking : cudaStreamDefault));
  CHECK(cudaStreamCreateWithFlags(&reader, cudaStreamNonBlocking));
  cudaEvent_t written_event;
  CHECK(cudaEventCreateWithFlags(&written_event, cudaEventDisableTiming));

  CHECK(cudaMemsetAsync(device, written, bytes, writer));
  if (scenario == "cross-stream-racy") {
    CHECK(cudaMemcpyAsync(pinned, device, bytes, cudaMemcpyDeviceToHost, reader));
  } else if (scenario == "cross-stream-synchronized") {
    CHECK(cudaEventRecord(written_event, writer));
    CHECK(cudaStreamWaitEvent(reader, written_event, 0));
    CHECK(cudaMemcpyAsync(pinned, device, bytes, cudaMemcpyDeviceToHost, reader));
  } else if (scenario == "legacy-after-blocking" || scenario == "legacy-after-nonblocking") {
    CHECK(cudaMemcpyAsync(pinned, device, bytes, cudaMemcpyDeviceToHost, 0));
  } else if (scenario == "host-function") {
    CHECK(cudaMemcpyAsync(pinned, device, bytes, cudaMemcpyDeviceToHost, writer));
    CHECK(cudaLaunchHostFunc(writer, printSeen, pinned));
  } else {
    std::printf("unknown scenario %.*s\n", static_cast<int>(scenario.size()), scenario.data());
    return 2;
  }
  CHECK(cudaStreamSynchronize(0));
  CHECK(cudaStreamSynchronize(reader));
  CHECK(cudaStreamSynchronize(writer));
  std::printf("%.*s: reader saw %d (%s)\n", static_cast<int>(scenario.size()), scenario.data(),
              pinned[bytes - 1],
              pinned[bytes - 1] == written ? "after the write" : "before the write");
  CHECK(cudaEventDestroy(written_event));
  CHECK(cudaStreamDestroy(writer));
  CHECK(cudaStreamDestroy(reader));
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFree(device));
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::printf("usage: race_probe <scenario>\n");
    return 2;
  }
  return run(argv[1]);
}
