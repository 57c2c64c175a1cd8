// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Waiting for another rank (a thread or a process) to change shared memory. Ranks in different
// processes share no mutex or condition variable, so waits poll: a few yields for the fast case,
// then sleeps that grow to a millisecond so idle ranks leave the CPU to the ones doing work.
#pragma once

#include <algorithm>
#include <chrono>
#include <thread>

namespace streamrace::emu::nccl {

enum class PollOutcome { Ready, TimedOut, Stopped };

class Backoff {
public:
  void pause() {
    if (rounds_ < 32) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(sleep_);
      sleep_ = std::min(sleep_ * 2, std::chrono::microseconds(1000));
    }
    ++rounds_;
  }

private:
  int rounds_ = 0;
  std::chrono::microseconds sleep_{10};
};

// Polls until ready() holds, stop() holds (the caller's reason to give up early, e.g. an abort),
// or timeout passes.
template <typename Ready, typename Stop>
PollOutcome pollUntil(Ready ready, Stop stop, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  Backoff backoff;
  while (!ready()) {
    if (stop()) {
      return PollOutcome::Stopped;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      return ready() ? PollOutcome::Ready : PollOutcome::TimedOut;
    }
    backoff.pause();
  }
  return PollOutcome::Ready;
}

} // namespace streamrace::emu::nccl
