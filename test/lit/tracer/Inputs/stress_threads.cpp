// Many host threads issuing stream work at once, for the tracer's stress test: each of
// `threads` threads owns two streams and a buffer and issues `operations` ordered operations
// (sets on alternating streams, each pair joined by an event). Prints how many CUDA calls
// succeeded, so the test can check that the trace holds exactly one event per call.
//
//   stress_threads <threads> <operations per thread>
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

std::atomic<long> calls{0};
std::atomic<bool> failed{false};

#define CALL(call)                                                                                 \
  do {                                                                                             \
    if (cudaError_t status = (call); status != cudaSuccess) {                                      \
      std::fprintf(stderr, "FAILED %s: %s\n", #call, cudaGetErrorName(status));                    \
      failed = true;                                                                               \
      return;                                                                                      \
    }                                                                                              \
    ++calls;                                                                                       \
  } while (0)

constexpr std::size_t kBytes = 4096;

void work(int operations) {
  cudaStream_t streams[2] = {nullptr, nullptr};
  cudaEvent_t done = nullptr;
  void* buffer = nullptr;
  CALL(cudaStreamCreateWithFlags(&streams[0], cudaStreamNonBlocking));
  CALL(cudaStreamCreateWithFlags(&streams[1], cudaStreamNonBlocking));
  CALL(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  CALL(cudaMalloc(&buffer, kBytes));
  // Each set is ordered after the previous one: record on its stream, wait on the other.
  for (int i = 0; i < operations; i += 3) {
    cudaStream_t current = streams[(i / 3) % 2];
    cudaStream_t next = streams[(i / 3 + 1) % 2];
    CALL(cudaMemsetAsync(buffer, i & 0xff, kBytes, current));
    CALL(cudaEventRecord(done, current));
    CALL(cudaStreamWaitEvent(next, done, 0));
  }
  CALL(cudaStreamSynchronize(streams[0]));
  CALL(cudaStreamSynchronize(streams[1]));
  CALL(cudaFree(buffer));
  CALL(cudaEventDestroy(done));
  CALL(cudaStreamDestroy(streams[0]));
  CALL(cudaStreamDestroy(streams[1]));
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: stress_threads <threads> <operations per thread>\n");
    return 2;
  }
  const int thread_count = std::atoi(argv[1]);
  const int operations = std::atoi(argv[2]);
  std::vector<std::thread> threads;
  for (int t = 0; t < thread_count; ++t)
    threads.emplace_back(work, operations);
  for (std::thread& thread : threads)
    thread.join();
  if (failed) return 1;
  std::printf("cuda calls: %ld\n", calls.load());
  return 0;
}
