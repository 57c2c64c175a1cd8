// Cross-stream copy patterns, racy and synchronized, for the tracer's lit tests. Built with -g
// against the real CUDA runtime; run on the emulator under the tracer.
//
//   stream_races <scenario>
//   cross-stream        a copy on stream A writes a buffer a copy on stream B reads, unordered
//   event               the same, B waits on an event recorded on A after the write
//   stream-sync         the same, the host synchronizes A before B's copy
//   legacy-nonblocking  the legacy default stream writes, a non-blocking stream reads
//   legacy-blocking     the legacy default stream writes, a blocking stream reads (ordered)
//   abort               ordered copies, then the program aborts
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace {

constexpr std::size_t kBytes = 1 << 16;

#define CHECK(call)                                                                                \
  do {                                                                                             \
    cudaError_t status = (call);                                                                   \
    if (status != cudaSuccess) {                                                                   \
      std::printf("FAILED %s: %s\n", #call, cudaGetErrorName(status));                             \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

int run(std::string_view scenario) {
  void* source = nullptr;
  void* middle = nullptr;
  void* target = nullptr;
  CHECK(cudaMalloc(&source, kBytes));
  CHECK(cudaMalloc(&middle, kBytes));
  CHECK(cudaMalloc(&target, kBytes));
  CHECK(cudaMemset(source, 1, kBytes));
  CHECK(cudaDeviceSynchronize());

  cudaStream_t writer = nullptr;
  cudaStream_t reader = nullptr;
  if (scenario.starts_with("legacy")) {
    writer = nullptr; // the legacy default stream
    CHECK(cudaStreamCreateWithFlags(
        &reader, scenario == "legacy-nonblocking" ? cudaStreamNonBlocking : cudaStreamDefault));
  } else {
    CHECK(cudaStreamCreate(&writer));
    CHECK(cudaStreamCreate(&reader));
  }
  cudaEvent_t written = nullptr;
  CHECK(cudaEventCreateWithFlags(&written, cudaEventDisableTiming));

  CHECK(cudaMemcpyAsync(middle, source, kBytes, cudaMemcpyDeviceToDevice, writer));
  if (scenario == "event") {
    CHECK(cudaEventRecord(written, writer));
    CHECK(cudaStreamWaitEvent(reader, written, 0));
  } else if (scenario == "stream-sync" || scenario == "abort") {
    CHECK(cudaStreamSynchronize(writer));
  }
  CHECK(cudaMemcpyAsync(target, middle, kBytes, cudaMemcpyDeviceToDevice, reader));
  CHECK(cudaDeviceSynchronize());
  std::printf("scenario %.*s: copies done\n", static_cast<int>(scenario.size()), scenario.data());
  if (scenario == "abort") {
    std::fflush(stdout);
    std::abort();
  }

  CHECK(cudaEventDestroy(written));
  if (writer != nullptr) CHECK(cudaStreamDestroy(writer));
  CHECK(cudaStreamDestroy(reader));
  CHECK(cudaFree(source));
  CHECK(cudaFree(middle));
  CHECK(cudaFree(target));
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: stream_races <scenario>\n");
    return 2;
  }
  return run(argv[1]);
}
