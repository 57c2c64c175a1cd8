// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the watch_host_accesses mode costs a loop that copies device data into pinned memory and
// reads it on the host, the pattern it watches: each iteration enqueues an asynchronous
// device-to-host copy, waits for its stream and sums the pinned destination. Prints the median
// ns per iteration and per host-read page; host_access_bench.sh runs it untraced, traced and
// traced with the mode on.
//
//   host-access-bench [ITERATIONS (default 2000)] [KIB (default 64)]
#include "cuda_check.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

namespace {

double now_ns() {
  timespec time{};
  clock_gettime(CLOCK_MONOTONIC, &time);
  return static_cast<double>(time.tv_sec) * 1e9 + static_cast<double>(time.tv_nsec);
}

} // namespace

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 2000;
  const int kib = argc > 2 ? std::atoi(argv[2]) : 64;
  if (argc > 3 || iterations < 1 || kib < 1 || kib > 1 << 20) {
    std::fprintf(stderr, "usage: host-access-bench [ITERATIONS >= 1] [KIB 1..1048576]\n");
    return 2;
  }
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
  std::nth_element(per_iteration.begin(), per_iteration.begin() + iterations / 2,
                   per_iteration.end());
  const double median = per_iteration[static_cast<std::size_t>(iterations / 2)];
  const double pages = static_cast<double>(bytes) / 4096.0;
  std::printf("%d iterations of a %d KiB copy + host read: median %.0f ns per iteration, %.0f ns "
              "per page (checksum %ld)\n",
              iterations, kib, median, median / pages, total);
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFree(device));
  return 0;
}
