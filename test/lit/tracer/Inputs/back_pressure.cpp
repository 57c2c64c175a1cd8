// Bursts of calls faster than a slowed tracer takes them, for the back-pressure tests (run with
// a tiny ring and tracer_delay_us). `first` and `second` are two streams; `shared` a buffer
// both write.
//
//   back_pressure <scenario>
//   ordered     a set of `shared` on first; a burst of unrelated sets (filling the ring) with,
//               inside it, an event recorded on first and waited on by second; more burst; a
//               pause long enough for the tracer to catch up; a set of `shared` on second:
//               ordered by the event, whose record and wait came during the burst
//   unordered   the same without the event: a race whose second set comes after the burst
//   in-burst    the same as unordered, but both sets of `shared` inside the burst: a race
//               only a tracer that kept checking (block_on_full=1) sees
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <string_view>
#include <thread>

#include "../../Inputs/check_call.h"

namespace {

constexpr std::size_t kBytes = 4096;
constexpr int kBurst = 40;

int burst(void* scratch, cudaStream_t stream) {
  for (int i = 0; i < kBurst; ++i)
    CHECK(cudaMemsetAsync(scratch, i, kBytes, stream));
  return 0;
}

int run(std::string_view scenario) {
  cudaStream_t first = nullptr;
  cudaStream_t second = nullptr;
  cudaStream_t other = nullptr;
  cudaEvent_t written = nullptr;
  void* shared = nullptr;
  void* scratch = nullptr;
  CHECK(cudaStreamCreateWithFlags(&first, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&second, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
  CHECK(cudaEventCreateWithFlags(&written, cudaEventDisableTiming));
  CHECK(cudaMalloc(&shared, kBytes));
  CHECK(cudaMalloc(&scratch, kBytes));
  // Let the tracer take the set-up first: the pause below then comes from the burst alone.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));

  const bool in_burst = scenario == "in-burst";
  if (!in_burst) CHECK(cudaMemsetAsync(shared, 1, kBytes, first));
  if (burst(scratch, other) != 0) return 1;
  if (in_burst) CHECK(cudaMemsetAsync(shared, 1, kBytes, first));
  if (scenario == "ordered") {
    CHECK(cudaEventRecord(written, first));
    CHECK(cudaStreamWaitEvent(second, written, 0));
  }
  if (in_burst) CHECK(cudaMemsetAsync(shared, 2, kBytes, second));
  if (burst(scratch, other) != 0) return 1;
  std::printf("burst done\n");
  std::fflush(stdout);
  // Time for the tracer to take the burst: it resumes checking when it finds nothing queued.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  if (!in_burst) CHECK(cudaMemsetAsync(shared, 2, kBytes, second));
  CHECK(cudaDeviceSynchronize());
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  const std::string_view scenario = argc == 2 ? argv[1] : "";
  if (scenario != "ordered" && scenario != "unordered" && scenario != "in-burst") {
    std::fprintf(stderr, "usage: back_pressure ordered|unordered|in-burst\n");
    return 2;
  }
  return run(scenario);
}
