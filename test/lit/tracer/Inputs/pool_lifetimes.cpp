// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Stream-ordered memory used outside its lifetime, for the tracer's lit tests: `buffer` comes
// from cudaMallocAsync on the `owner` stream.
//
//   pool_lifetimes after-free       the owner stream frees it, then reads it (same stream)
//   pool_lifetimes before-free      the owner stream reads it, then frees it
//   pool_lifetimes before-alloc     another stream writes it without waiting for the allocation
//   pool_lifetimes after-alloc      the same, waiting on an event recorded after the allocation
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>

#include "../../Inputs/check_call.h"

namespace {

constexpr std::size_t kBytes = 1 << 12;

int run(const char* scenario) {
  const bool after_free = std::strcmp(scenario, "after-free") == 0;
  const bool before_free = std::strcmp(scenario, "before-free") == 0;
  const bool before_alloc = std::strcmp(scenario, "before-alloc") == 0;
  const bool after_alloc = std::strcmp(scenario, "after-alloc") == 0;
  if (!after_free && !before_free && !before_alloc && !after_alloc) {
    std::fprintf(stderr, "usage: pool_lifetimes after-free|before-free|before-alloc|after-alloc\n");
    return 2;
  }
  void* target = nullptr;
  CHECK(cudaMalloc(&target, kBytes));
  cudaStream_t owner = nullptr;
  cudaStream_t other = nullptr;
  CHECK(cudaStreamCreateWithFlags(&owner, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
  cudaEvent_t allocated = nullptr;
  CHECK(cudaEventCreateWithFlags(&allocated, cudaEventDisableTiming));

  void* buffer = nullptr;
  CHECK(cudaMallocAsync(&buffer, kBytes, owner));
  if (after_free || before_free) {
    CHECK(cudaMemsetAsync(buffer, 0, kBytes, owner));
    // The freed range stays mapped in the pool, so the late read runs (and reads stale bytes).
    if (after_free) CHECK(cudaFreeAsync(buffer, owner));
    CHECK(cudaMemcpyAsync(target, buffer, kBytes, cudaMemcpyDefault, owner));
    if (before_free) CHECK(cudaFreeAsync(buffer, owner));
  } else {
    if (after_alloc) {
      CHECK(cudaEventRecord(allocated, owner));
      CHECK(cudaStreamWaitEvent(other, allocated, 0));
    }
    CHECK(cudaMemsetAsync(buffer, 0, kBytes, other));
    CHECK(cudaStreamSynchronize(other));
    CHECK(cudaFreeAsync(buffer, owner));
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaEventDestroy(allocated));
  CHECK(cudaStreamDestroy(owner));
  CHECK(cudaStreamDestroy(other));
  CHECK(cudaFree(target));
  std::printf("scenario %s done\n", scenario);
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  return run(argc == 2 ? argv[1] : "");
}
