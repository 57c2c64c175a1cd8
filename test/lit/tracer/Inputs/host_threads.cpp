// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Two host threads hand a device buffer to each other, for the tracer's lit tests. A producer
// thread fills `shared` on its stream; the consumer (the main thread) then copies it out on
// another stream. How the consumer learns the buffer is ready:
//
//   host_threads condition   producer synchronizes its stream, then signals a condition
//                            variable under a mutex; the consumer waits for it
//   host_threads semaphore   producer synchronizes its stream, then posts a semaphore
//   host_threads join        producer synchronizes its stream and ends; the consumer joins it
//   host_threads early       producer signals the condition variable before synchronizing:
//                            the consumer's copy races with the producer's fill
//   host_threads flag        producer sets an atomic flag right after enqueuing the fill, with
//                            no synchronization of its stream: a race (atomics are not modelled,
//                            and here they would not order the GPU work anyway)
#include <cuda_runtime_api.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <semaphore.h>
#include <thread>

#include "../../Inputs/check_call.h"

namespace {

constexpr std::size_t kBytes = 1 << 16;

enum class HandOff { Condition, Semaphore, Join, Early, Flag };

struct Shared {
  void* source = nullptr;
  void* shared = nullptr;
  void* copy = nullptr;
  std::mutex mutex;
  std::condition_variable ready_signal;
  bool ready = false;
  sem_t semaphore;
  std::atomic<bool> flag{false};
};

int produce(Shared& state, HandOff hand_off) {
  cudaStream_t stream = nullptr;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CHECK(cudaMemcpyAsync(state.shared, state.source, kBytes, cudaMemcpyDeviceToDevice, stream));
  auto signal = [&state] {
    const std::lock_guard lock(state.mutex);
    state.ready = true;
    state.ready_signal.notify_one();
  };
  switch (hand_off) {
  case HandOff::Condition:
    CHECK(cudaStreamSynchronize(stream));
    signal();
    break;
  case HandOff::Semaphore:
    CHECK(cudaStreamSynchronize(stream));
    sem_post(&state.semaphore);
    break;
  case HandOff::Join:
    CHECK(cudaStreamSynchronize(stream));
    break;
  case HandOff::Early:
    signal();
    CHECK(cudaStreamSynchronize(stream));
    break;
  case HandOff::Flag:
    state.flag.store(true);
    CHECK(cudaStreamSynchronize(stream));
    break;
  }
  CHECK(cudaStreamDestroy(stream));
  return 0;
}

int run(HandOff hand_off) {
  Shared state;
  sem_init(&state.semaphore, 0, 0);
  CHECK(cudaMalloc(&state.source, kBytes));
  CHECK(cudaMalloc(&state.shared, kBytes));
  CHECK(cudaMalloc(&state.copy, kBytes));
  CHECK(cudaMemset(state.source, 1, kBytes));
  CHECK(cudaDeviceSynchronize());
  cudaStream_t stream = nullptr;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  int produced = 0;
  std::thread producer([&] { produced = produce(state, hand_off); });
  switch (hand_off) {
  case HandOff::Condition:
  case HandOff::Early: {
    std::unique_lock lock(state.mutex);
    state.ready_signal.wait(lock, [&state] { return state.ready; });
    break;
  }
  case HandOff::Semaphore:
    while (sem_wait(&state.semaphore) != 0) {
    }
    break;
  case HandOff::Join:
    producer.join();
    break;
  case HandOff::Flag:
    while (!state.flag.load())
      std::this_thread::yield();
    break;
  }
  CHECK(cudaMemcpyAsync(state.copy, state.shared, kBytes, cudaMemcpyDeviceToDevice, stream));
  CHECK(cudaStreamSynchronize(stream));
  if (producer.joinable()) producer.join();
  sem_destroy(&state.semaphore);
  std::printf("handed over: producer %s\n", produced == 0 ? "ok" : "FAILED");
  return produced;
}

} // namespace

int main(int argc, char** argv) {
  const char* scenario = argc == 2 ? argv[1] : "";
  const struct {
    const char* name;
    HandOff hand_off;
  } scenarios[] = {{"condition", HandOff::Condition},
                   {"semaphore", HandOff::Semaphore},
                   {"join", HandOff::Join},
                   {"early", HandOff::Early},
                   {"flag", HandOff::Flag}};
  for (const auto& known : scenarios)
    if (std::strcmp(scenario, known.name) == 0) return run(known.hand_off);
  std::fprintf(stderr, "usage: host_threads condition|semaphore|join|early|flag\n");
  return 2;
}
