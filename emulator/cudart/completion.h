// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A one-shot "this work has finished" flag that host threads and stream workers wait on. Every
// enqueued operation owns one; events and stream dependencies hold them by shared pointer.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

namespace streamrace::emu {

class Completion {
public:
  using Clock = std::chrono::steady_clock;

  void markDone() {
    {
      std::lock_guard lock(mutex_);
      finishedAt_ = Clock::now();
      done_ = true;
    }
    doneChanged_.notify_all();
  }

  void wait() const {
    std::unique_lock lock(mutex_);
    doneChanged_.wait(lock, [this] { return done_; });
  }

  bool isDone() const {
    std::lock_guard lock(mutex_);
    return done_;
  }

  // Only meaningful once isDone().
  Clock::time_point finishedAt() const {
    std::lock_guard lock(mutex_);
    return finishedAt_;
  }

private:
  mutable std::mutex mutex_;
  mutable std::condition_variable doneChanged_;
  bool done_ = false;
  Clock::time_point finishedAt_{};
};

using CompletionPtr = std::shared_ptr<Completion>;

inline CompletionPtr makeFinishedCompletion() {
  auto completion = std::make_shared<Completion>();
  completion->markDone();
  return completion;
}

} // namespace streamrace::emu
