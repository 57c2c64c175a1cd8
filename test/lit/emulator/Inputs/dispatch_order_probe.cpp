// Shows the emulator's dispatch order (emulator/README.md, "Scheduling"): operations start in the
// order they were submitted across a device's streams, and a short copy finishes before work
// submitted after it starts, as on a GPU — unless a delay knob slows the copy down.
// Built against the real CUDA runtime and run on the emulator.
//
//   dispatch_order_probe copy-then-kernel <rounds>
//     Per round, stream 1 copies a fresh value device-to-device into a buffer and a kernel on
//     stream 2 reads that buffer. Nothing orders the two, and every round is submitted before
//     any runs. Prints what each kernel read.
//   dispatch_order_probe host-function-waits-for-later-kernel
//     A host function on stream 1 waits until a kernel submitted after it on stream 2 has run:
//     a begun host function holds nothing back, so this finishes instead of deadlocking.
#include <cuda_runtime_api.h>
#include <streamrace_emulator/kernel_registry.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <thread>
#include <vector>

#include "../../Inputs/check_call.h"

namespace {

// Stands in for an nvcc host stub: only its address matters to the runtime.
void readKernel(const int* from, int* into) {
  static_cast<void>(from);
  static_cast<void>(into);
}

void readOnCpu(const StreamraceEmuLaunch& /*launch*/, const int* from, int* into) {
  *into = *from;
}

std::atomic<bool> kernelRan{false};

void markKernel(int ordinal) {
  static_cast<void>(ordinal);
}

void markOnCpu(const StreamraceEmuLaunch& /*launch*/, int /*ordinal*/) {
  kernelRan.store(true);
}

void CUDART_CB waitForKernel(void* /*unused*/) {
  const auto giveUp = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!kernelRan.load() && std::chrono::steady_clock::now() < giveUp) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::printf("host function: the later kernel %s\n",
              kernelRan.load() ? "ran while it waited" : "never ran (held back)");
}

int copyThenKernel(int rounds) {
  if (!streamrace_emulator::registerKernel<&readOnCpu>(readKernel)) {
    std::printf("not running on the emulator\n");
    return 1;
  }
  const auto count = static_cast<std::size_t>(rounds);
  std::vector<int> fresh(count);
  for (std::size_t round = 0; round < count; ++round) {
    fresh[round] = static_cast<int>(round) + 1;
  }
  int* source = nullptr;
  int* shard = nullptr;
  int* seen = nullptr;
  CHECK(cudaMalloc(reinterpret_cast<void**>(&source), count * sizeof(int)));
  CHECK(cudaMalloc(reinterpret_cast<void**>(&shard), count * sizeof(int)));
  CHECK(cudaMalloc(reinterpret_cast<void**>(&seen), count * sizeof(int)));
  CHECK(cudaMemcpy(source, fresh.data(), count * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(shard, 0, count * sizeof(int)));
  CHECK(cudaDeviceSynchronize());

  // Stream 1 (the first created, so STREAMRACE_EMU_DELAY=stream=1:<ms> slows it) copies; stream
  // 2 reads. Both are non-blocking, so the legacy stream orders nothing between them.
  cudaStream_t copier;
  cudaStream_t reader;
  CHECK(cudaStreamCreateWithFlags(&copier, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&reader, cudaStreamNonBlocking));
  for (std::size_t round = 0; round < count; ++round) {
    CHECK(cudaMemcpyAsync(shard + round, source + round, sizeof(int), cudaMemcpyDeviceToDevice,
                          copier));
    const int* from = shard + round;
    int* into = seen + round;
    void* args[] = {&from, &into};
    CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(&readKernel), dim3(1), dim3(1), args, 0,
                           reader));
  }
  CHECK(cudaDeviceSynchronize());

  std::vector<int> read(count);
  CHECK(cudaMemcpy(read.data(), seen, count * sizeof(int), cudaMemcpyDeviceToHost));
  int copied = 0;
  for (std::size_t round = 0; round < count; ++round) {
    const bool afterCopy = read[round] == fresh[round];
    copied += afterCopy ? 1 : 0;
    std::printf("round %zu: the kernel read %d (%s)\n", round, read[round],
                afterCopy ? "the copied value" : "the value before the copy");
  }
  std::printf("%d of %d rounds read the copied value\n", copied, rounds);
  CHECK(cudaStreamDestroy(copier));
  CHECK(cudaStreamDestroy(reader));
  CHECK(cudaFree(source));
  CHECK(cudaFree(shard));
  CHECK(cudaFree(seen));
  return 0;
}

int hostFunctionWaitsForLaterKernel() {
  if (!streamrace_emulator::registerKernel<&markOnCpu>(markKernel)) {
    std::printf("not running on the emulator\n");
    return 1;
  }
  cudaStream_t first;
  cudaStream_t second;
  CHECK(cudaStreamCreateWithFlags(&first, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&second, cudaStreamNonBlocking));
  CHECK(cudaLaunchHostFunc(first, waitForKernel, nullptr));
  int ordinal = 1;
  void* args[] = {&ordinal};
  CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(&markKernel), dim3(1), dim3(1), args, 0,
                         second));
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaStreamDestroy(first));
  CHECK(cudaStreamDestroy(second));
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  const std::string_view scenario = argc > 1 ? argv[1] : "";
  if (scenario == "copy-then-kernel" && argc == 3 && std::atoi(argv[2]) > 0) {
    return copyThenKernel(std::atoi(argv[2]));
  }
  if (scenario == "host-function-waits-for-later-kernel" && argc == 2) {
    return hostFunctionWaitsForLaterKernel();
  }
  std::printf("usage: dispatch_order_probe copy-then-kernel <rounds> | "
              "host-function-waits-for-later-kernel\n");
  return 2;
}
