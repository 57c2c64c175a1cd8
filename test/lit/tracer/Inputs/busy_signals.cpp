// A program that dies of a fatal signal while its other threads are busy, for the tracer's
// crash tests. A worker thread issues ordered stream work without pause (so calls are always
// queued for the tracer) and an allocating thread mallocs and frees blocks too large for
// malloc's per-thread cache (so it spends its time inside the allocator's locks); once both are
// under way, the worker pauses, the main thread makes one race (two copies into one buffer on
// two streams, nothing between them: the trace holds it only if its last records are written at
// the signal, since no later call fills the writer's buffer), and the process gets its fatal
// signal:
//
//   busy_signals <scenario>
//   segv            the main thread stores through a null pointer
//   term-in-malloc  the allocating thread is sent SIGTERM (pthread_kill): it is almost surely
//                   inside malloc or free when the handler runs on it
#include <cuda_runtime_api.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <pthread.h>
#include <string_view>
#include <thread>

#include "../../Inputs/check_call.h"

namespace {

constexpr std::size_t kBytes = 1 << 16;
std::atomic<long> worker_calls{0};
std::atomic<long> allocations{0};
std::atomic<bool> pause_worker{false};
std::atomic<bool> worker_paused{false};

int ordered_work() {
  cudaStream_t streams[2] = {nullptr, nullptr};
  cudaEvent_t done = nullptr;
  void* buffer = nullptr;
  CHECK(cudaStreamCreateWithFlags(&streams[0], cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&streams[1], cudaStreamNonBlocking));
  CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  CHECK(cudaMalloc(&buffer, 4096));
  for (long i = 0;; ++i) {
    CHECK(cudaMemsetAsync(buffer, static_cast<int>(i & 0xff), 4096, streams[i % 2]));
    CHECK(cudaEventRecord(done, streams[i % 2]));
    CHECK(cudaStreamWaitEvent(streams[(i + 1) % 2], done, 0));
    worker_calls += 3;
    if (pause_worker) {
      worker_paused = true;
      for (;;)
        std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  }
}

[[noreturn]] void allocate_forever() {
  unsigned state = 12345;
  for (;;) {
    state = state * 1103515245u + 12345u;
    // 2 to 66 KiB: past the per-thread cache, below the mmap threshold.
    void* block = std::malloc(2048 + (state >> 16));
    static_cast<volatile char*>(block)[0] = 1;
    std::free(block);
    ++allocations;
  }
}

int race() {
  cudaStream_t first = nullptr;
  cudaStream_t second = nullptr;
  void* source = nullptr;
  void* target = nullptr;
  CHECK(cudaStreamCreateWithFlags(&first, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&second, cudaStreamNonBlocking));
  CHECK(cudaMalloc(&source, kBytes));
  CHECK(cudaMalloc(&target, kBytes));
  CHECK(cudaMemcpyAsync(target, source, kBytes, cudaMemcpyDeviceToDevice, first));
  CHECK(cudaMemcpyAsync(target, source, kBytes, cudaMemcpyDeviceToDevice, second));
  CHECK(cudaDeviceSynchronize());
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  const std::string_view scenario = argc == 2 ? argv[1] : "";
  if (scenario != "segv" && scenario != "term-in-malloc") {
    std::fprintf(stderr, "usage: busy_signals segv|term-in-malloc\n");
    return 2;
  }
  std::thread worker([] { std::exit(ordered_work()); });
  std::thread allocator(allocate_forever);
  while (worker_calls < 3000 || allocations < 1000)
    std::this_thread::yield();
  pause_worker = true;
  while (!worker_paused)
    std::this_thread::yield();
  if (race() != 0) std::exit(1);
  std::printf("busy: %s\n", scenario.data());
  std::fflush(stdout);
  if (scenario == "segv") {
    volatile int* nowhere = nullptr;
    *nowhere = 1;
  }
  pthread_kill(allocator.native_handle(), SIGTERM);
  worker.join(); // never returns: the process ends with the signal
  return 0;
}
