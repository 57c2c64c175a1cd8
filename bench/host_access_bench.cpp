// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the watch_host_accesses mode costs the patterns it watches; host_access_bench.sh runs it
// untraced, traced, and traced with the mode on (the mode's cost is the difference of the last
// two). Each figure is a median over batches:
//   - a loop that enqueues an asynchronous device-to-host copy into pinned memory, waits for its
//     stream and sums the destination: ns per iteration and per host-read page;
//   - cudaLaunchHostFunc of a function that does nothing, batches of launches then a wait for
//     the stream: ns per host function, launched and run;
//   - read() from /dev/zero and write() to /dev/null of 4 KiB, into and from ordinary memory
//     (the common case: the tracer's wrapper looks the buffer up and finds nothing watched) and
//     pinned memory (a watched buffer, its pages open: the call is recorded as a host access).
//
//   host-access-bench [ITERATIONS (default 2000)] [KIB (default 64)]
#include "cuda_check.h"
#include "whole_number.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fcntl.h>
#include <functional>
#include <unistd.h>
#include <vector>

namespace {

constexpr int kBatches = 50;
constexpr int kCallsPerBatch = 1000;
constexpr std::size_t kSystemCallBytes = 4096;

double now_ns() {
  timespec time{};
  clock_gettime(CLOCK_MONOTONIC, &time);
  return static_cast<double>(time.tv_sec) * 1e9 + static_cast<double>(time.tv_nsec);
}

double median(std::vector<double> values) {
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

// Median ns per call of `batch`, which makes kCallsPerBatch calls.
double per_call(const std::function<void()>& batch) {
  std::vector<double> batches;
  for (int b = 0; b < kBatches; ++b) {
    const double start = now_ns();
    batch();
    batches.push_back((now_ns() - start) / kCallsPerBatch);
  }
  return median(batches);
}

void copy_and_read(int iterations, int kib) {
  const std::size_t bytes = static_cast<std::size_t>(kib) * 1024;
  const std::size_t words = bytes / sizeof(long);
  void* device = nullptr;
  long* pinned = nullptr;
  cudaStream_t stream = nullptr;
  CHECK(cudaMalloc(&device, bytes));
  CHECK(cudaMallocHost(reinterpret_cast<void**>(&pinned), bytes));
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CHECK(cudaMemset(device, 1, bytes));
  CHECK(cudaDeviceSynchronize());
  std::vector<double> per_iteration;
  long total = 0;
  for (int i = 0; i < iterations; ++i) {
    const double start = now_ns();
    CHECK(cudaMemcpyAsync(pinned, device, bytes, cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));
    for (std::size_t w = 0; w < words; ++w)
      total += pinned[w];
    per_iteration.push_back(now_ns() - start);
  }
  const double iteration = median(per_iteration);
  const double pages = static_cast<double>(bytes) / 4096.0;
  std::printf("  %d iterations of a %d KiB copy + host read: median %.0f ns per iteration, %.0f "
              "ns per page (checksum %ld)\n",
              iterations, kib, iteration, iteration / pages, total);
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFree(device));
}

void CUDART_CB do_nothing(void*) {}

void host_functions() {
  cudaStream_t stream = nullptr;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const double ns = per_call([&] {
    for (int i = 0; i < kCallsPerBatch; ++i)
      CHECK(cudaLaunchHostFunc(stream, do_nothing, nullptr));
    CHECK(cudaStreamSynchronize(stream));
  });
  std::printf("  cudaLaunchHostFunc of an empty function, launched and run: median %.0f ns each\n",
              ns);
  CHECK(cudaStreamDestroy(stream));
}

void system_calls() {
  const int zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
  const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (zero < 0 || null < 0) {
    std::perror("host-access-bench: /dev/zero or /dev/null");
    std::exit(1);
  }
  std::vector<char> ordinary(kSystemCallBytes);
  char* pinned = nullptr;
  CHECK(cudaMallocHost(reinterpret_cast<void**>(&pinned), kSystemCallBytes));
  auto measure = [&](const char* what, char* buffer, bool reading) {
    const double ns = per_call([&] {
      for (int i = 0; i < kCallsPerBatch; ++i) {
        const ssize_t moved =
            reading ? read(zero, buffer, kSystemCallBytes) : write(null, buffer, kSystemCallBytes);
        if (moved != static_cast<ssize_t>(kSystemCallBytes)) {
          std::perror("host-access-bench: read/write");
          std::exit(1);
        }
      }
    });
    std::printf("  %s of 4 KiB, %s memory: median %.0f ns per call\n",
                reading ? "read()" : "write()", what, ns);
  };
  measure("ordinary", ordinary.data(), true);
  measure("pinned", pinned, true);
  measure("ordinary", ordinary.data(), false);
  measure("pinned", pinned, false);
  CHECK(cudaFreeHost(pinned));
  close(zero);
  close(null);
}

} // namespace

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? whole_number<int>(argv[1]).value_or(0) : 2000;
  const int kib = argc > 2 ? whole_number<int>(argv[2]).value_or(0) : 64;
  if (argc > 3 || iterations < 1 || kib < 1 || kib > 1 << 20) {
    std::fprintf(stderr, "usage: host-access-bench [ITERATIONS >= 1] [KIB 1..1048576]\n");
    return 2;
  }
  copy_and_read(iterations, kib);
  host_functions();
  system_calls();
  return 0;
}
