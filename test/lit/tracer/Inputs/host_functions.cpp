// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host functions that touch pinned memory, for the tracer's `watch_host_accesses` tests. Built
// with -g against the real CUDA runtime; run on the emulator under the tracer. A copy fills (or
// reads) a pinned slot; a host function touches it with a plain load or store, as host functions
// do.
//
//   host_functions <scenario>
//   read-other          cudaLaunchHostFunc reads the slot; nothing orders it after the copy,
//                       which ran on another stream
//   read-other-event    the same, after the function stream waited on an event recorded after
//                       the copy
//   read-own            the copy and the function on one stream
//   callback-other      read-other through cudaStreamAddCallback
//   callback-event      read-other-event through cudaStreamAddCallback
//   write-then-own      a host-to-device copy reads the slot, then a host function on the
//                       same stream writes it, and a second copy on that stream reads it
//   write-then-other    the same, but the reading copy runs on a third stream with nothing
//                       ordering it after the function
//   hand-off            a memset on one stream, then a host function posting a semaphore; on
//                       another stream a host function waiting for it, then a copy reading the
//                       memset bytes: ordered through the semaphore
//   no-hand-off         the same, the second function waiting for nothing
//   waiter-first        hand-off, the waiting function and the copy enqueued before the memset
//                       and the posting function
//   waiter-first-none   the same, the second function waiting for nothing
//   host-gate           a host function waits for the host thread, which posts once the memset
//                       on another stream has finished; the copy after the function reads it
//   host-gate-early     the same, the host thread posting before it synchronized the memset
#include <cuda_runtime.h>
#include <semaphore.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "../../Inputs/check_call.h"

namespace {

constexpr int kCount = 1024;

struct Slot {
  int* pinned = nullptr;
  int seen = 0;
};

void CUDART_CB readSlot(void* data) {
  auto* slot = static_cast<Slot*>(data);
  slot->seen = slot->pinned[0]; // the host function's read
}

void CUDART_CB readSlotAsCallback(cudaStream_t, cudaError_t, void* data) {
  auto* slot = static_cast<Slot*>(data);
  slot->seen = slot->pinned[0]; // the callback's read
}

void CUDART_CB writeSlot(void* data) {
  auto* slot = static_cast<Slot*>(data);
  slot->pinned[0] = 42; // the host function's write
}

enum class Order { None, Event, SameStream };

int readAfterCopy(Order order, bool callback) {
  int* device = nullptr;
  Slot slot;
  cudaStream_t functions = nullptr;
  cudaStream_t copies = nullptr;
  CHECK(cudaMalloc(&device, kCount * sizeof(int)));
  CHECK(cudaMallocHost(&slot.pinned, kCount * sizeof(int)));
  CHECK(cudaStreamCreateWithFlags(&functions, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&copies, cudaStreamNonBlocking));
  CHECK(cudaMemset(device, 7, kCount * sizeof(int)));
  CHECK(cudaDeviceSynchronize());
  cudaStream_t copy_stream = order == Order::SameStream ? functions : copies;
  CHECK(cudaMemcpyAsync(slot.pinned, device, kCount * sizeof(int), cudaMemcpyDeviceToHost,
                        copy_stream));
  if (order == Order::Event) {
    cudaEvent_t copied = nullptr;
    CHECK(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming));
    CHECK(cudaEventRecord(copied, copies));
    CHECK(cudaStreamWaitEvent(functions, copied, 0));
  }
  if (callback)
    CHECK(cudaStreamAddCallback(functions, readSlotAsCallback, &slot, 0));
  else
    CHECK(cudaLaunchHostFunc(functions, readSlot, &slot));
  CHECK(cudaDeviceSynchronize());
  std::printf("host function read %s\n", slot.seen == 0x07070707 ? "the copy" : "early");
  CHECK(cudaFreeHost(slot.pinned));
  CHECK(cudaFree(device));
  return 0;
}

int writeThenCopy(bool same_stream) {
  int* staged = nullptr;
  int* received = nullptr;
  Slot slot;
  cudaStream_t functions = nullptr;
  cudaStream_t readers = nullptr;
  CHECK(cudaMalloc(&staged, kCount * sizeof(int)));
  CHECK(cudaMalloc(&received, kCount * sizeof(int)));
  CHECK(cudaMallocHost(&slot.pinned, kCount * sizeof(int)));
  CHECK(cudaStreamCreateWithFlags(&functions, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&readers, cudaStreamNonBlocking));
  CHECK(cudaMemcpyAsync(staged, slot.pinned, kCount * sizeof(int), cudaMemcpyHostToDevice,
                        functions));
  CHECK(cudaLaunchHostFunc(functions, writeSlot, &slot));
  CHECK(cudaMemcpyAsync(received, slot.pinned, kCount * sizeof(int), cudaMemcpyHostToDevice,
                        same_stream ? functions : readers));
  CHECK(cudaDeviceSynchronize());
  int first = 0;
  CHECK(cudaMemcpy(&first, received, sizeof first, cudaMemcpyDeviceToHost));
  if (same_stream) std::printf("device holds %d\n", first);
  CHECK(cudaFreeHost(slot.pinned));
  CHECK(cudaFree(received));
  CHECK(cudaFree(staged));
  return 0;
}

// Two streams ordered only through their host functions: one posts a semaphore after a memset
// on its stream, the other's waits for it before a copy reads the memset bytes (`wait`); or the
// waiting function waits for nothing (no hand-off) and the copy races with the memset.
sem_t handed_over;

void CUDART_CB postHandOff(void*) {
  sem_post(&handed_over);
}

void CUDART_CB waitHandOff(void*) {
  sem_wait(&handed_over);
}

void CUDART_CB waitForNothing(void*) {}

// Who posts the semaphore the consumer's host function waits for, and when.
enum class Poster {
  ProducerFunction,     // a host function after the memset, enqueued before the consumer's
  ProducerFunctionLast, // the same, enqueued after the consumer's function and copy
  HostAfterSync,        // the host thread, once the memset finished
  HostBeforeSync,       // the host thread, before it waited for the memset
};

int handOffBetweenStreams(bool wait, Poster poster) {
  int* device = nullptr;
  int* copy = nullptr;
  cudaStream_t producer = nullptr;
  cudaStream_t consumer = nullptr;
  sem_init(&handed_over, 0, 0);
  CHECK(cudaMalloc(&device, kCount * sizeof(int)));
  CHECK(cudaMalloc(&copy, kCount * sizeof(int)));
  CHECK(cudaStreamCreateWithFlags(&producer, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&consumer, cudaStreamNonBlocking));
  const auto produce = [&] {
    CHECK(cudaMemsetAsync(device, 7, kCount * sizeof(int), producer));
    if (poster == Poster::ProducerFunction || poster == Poster::ProducerFunctionLast)
      CHECK(cudaLaunchHostFunc(producer, postHandOff, nullptr));
    return 0;
  };
  if (poster != Poster::ProducerFunctionLast && produce() != 0) return 1;
  CHECK(cudaLaunchHostFunc(consumer, wait ? waitHandOff : waitForNothing, nullptr));
  CHECK(cudaMemcpyAsync(copy, device, kCount * sizeof(int), cudaMemcpyDeviceToDevice, consumer));
  if (poster == Poster::ProducerFunctionLast && produce() != 0) return 1;
  if (poster == Poster::HostBeforeSync) sem_post(&handed_over);
  CHECK(cudaStreamSynchronize(producer));
  if (poster == Poster::HostAfterSync) sem_post(&handed_over);
  CHECK(cudaDeviceSynchronize());
  std::printf("hand-off done\n");
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: host_functions <scenario>\n");
    return 2;
  }
  const std::string scenario = argv[1];
  if (scenario == "read-other") return readAfterCopy(Order::None, false);
  if (scenario == "read-other-event") return readAfterCopy(Order::Event, false);
  if (scenario == "read-own") return readAfterCopy(Order::SameStream, false);
  if (scenario == "callback-other") return readAfterCopy(Order::None, true);
  if (scenario == "callback-event") return readAfterCopy(Order::Event, true);
  if (scenario == "write-then-own") return writeThenCopy(true);
  if (scenario == "write-then-other") return writeThenCopy(false);
  if (scenario == "hand-off") return handOffBetweenStreams(true, Poster::ProducerFunction);
  if (scenario == "no-hand-off") return handOffBetweenStreams(false, Poster::ProducerFunction);
  if (scenario == "waiter-first") return handOffBetweenStreams(true, Poster::ProducerFunctionLast);
  if (scenario == "waiter-first-none")
    return handOffBetweenStreams(false, Poster::ProducerFunctionLast);
  if (scenario == "host-gate") return handOffBetweenStreams(true, Poster::HostAfterSync);
  if (scenario == "host-gate-early") return handOffBetweenStreams(true, Poster::HostBeforeSync);
  std::fprintf(stderr, "unknown scenario %s\n", scenario.c_str());
  return 2;
}
