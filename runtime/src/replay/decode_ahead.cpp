// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "decode_ahead.h"

namespace streamrace {

DecodeAhead::DecodeAhead(std::vector<trace::TraceReader>& readers, std::size_t batch_size)
    : thread_([this, &readers, batch_size] { decode(readers, batch_size); }) {}

DecodeAhead::~DecodeAhead() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void DecodeAhead::decode(std::vector<trace::TraceReader>& readers, std::size_t batch_size) {
  try {
    trace::TimeOrderedMerge merged(readers);
    bool more = true;
    while (more) {
      std::vector<Event> batch;
      batch.reserve(batch_size);
      while (batch.size() < batch_size) {
        Event* event = merged.next();
        if (!event) {
          more = false;
          break;
        }
        batch.push_back(std::move(*event));
      }
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return ready_.size() < kBatchesAhead || stopping_; });
      if (stopping_) return;
      if (!batch.empty()) ready_.push_back(std::move(batch));
      done_ = !more;
      lock.unlock();
      changed_.notify_all();
    }
  } catch (...) {
    const std::lock_guard lock(mutex_);
    error_ = std::current_exception();
    done_ = true;
  }
  changed_.notify_all();
}

bool DecodeAhead::next(std::vector<Event>& batch) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return !ready_.empty() || done_; });
  if (ready_.empty()) {
    if (error_) std::rethrow_exception(error_);
    return false;
  }
  batch = std::move(ready_.front());
  ready_.pop_front();
  lock.unlock();
  changed_.notify_all();
  return true;
}

} // namespace streamrace
