// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Helpers for driving the emulated runtime from tests: host functions that block, sleep or record
// what they saw, so ordering can be observed without kernels.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#define ASSERT_CUDA_OK(call) ASSERT_EQ((call), cudaSuccess)

namespace streamrace::emu::test {

using namespace std::chrono_literals;

// Long enough that work left unordered visibly overtakes it, short enough for a unit test.
constexpr auto slowOperation = 150ms;
// How long a host function waits for a partner that must be running at the same time.
constexpr auto meetingTimeout = 5s;

struct Flag {
  std::atomic<bool> set{false};
};

// Sleeps, then sets the flag: stands for slow device work.
// A memset node's parameters: `bytes` bytes of `value` from `destination`.
inline cudaMemsetParams byteSetParams(void* destination, unsigned value, std::size_t bytes) {
  cudaMemsetParams params{};
  params.dst = destination;
  params.value = value;
  params.elementSize = 1;
  params.width = bytes;
  params.height = 1;
  return params;
}

inline void CUDART_CB sleepThenSet(void* flag) {
  std::this_thread::sleep_for(slowOperation);
  static_cast<Flag*>(flag)->set = true;
}

inline void CUDART_CB setFlag(void* flag) {
  static_cast<Flag*>(flag)->set = true;
}

// Records whether `watched` was already set when this operation ran.
struct Observation {
  const Flag* watched = nullptr;
  std::atomic<bool> ran{false};
  std::atomic<bool> sawSet{false};
};

inline void CUDART_CB observe(void* observation) {
  auto* seen = static_cast<Observation*>(observation);
  seen->sawSet = seen->watched->set.load();
  seen->ran = true;
}

// Two host functions that each set their own flag and wait for the other's: both finish only
// if they run at the same time.
struct Meeting {
  Flag first;
  Flag second;
  std::atomic<int> met{0};
};

inline bool waitFor(const Flag& flag) {
  auto deadline = std::chrono::steady_clock::now() + meetingTimeout;
  while (!flag.set && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(1ms);
  }
  return flag.set;
}

inline void CUDART_CB meetFirst(void* meetingPlace) {
  auto* meeting = static_cast<Meeting*>(meetingPlace);
  meeting->first.set = true;
  if (waitFor(meeting->second)) {
    ++meeting->met;
  }
}

inline void CUDART_CB meetSecond(void* meetingPlace) {
  auto* meeting = static_cast<Meeting*>(meetingPlace);
  meeting->second.set = true;
  if (waitFor(meeting->first)) {
    ++meeting->met;
  }
}

} // namespace streamrace::emu::test
