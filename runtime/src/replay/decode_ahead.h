// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A replay's input decoded on a second thread, a few batches ahead of the engine: reading the
// files, checking their records and merging them by time then overlaps the engine's work, so a
// replay on a machine with a core to spare takes the longer of the two instead of their sum.
// The batches come in the merge's order: the replay is the same as when decoded in line.
#pragma once

#include "streamrace/trace/trace_reader.h"

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace streamrace {

class DecodeAhead {
public:
  // The readers are the decoding thread's until the last batch has been taken.
  DecodeAhead(std::vector<trace::TraceReader>& readers, std::size_t batch_size);
  ~DecodeAhead();
  DecodeAhead(const DecodeAhead&) = delete;
  DecodeAhead& operator=(const DecodeAhead&) = delete;

  // Replaces `batch` with the next events in merged order; false once there are none. Rethrows
  // what the decoding thread threw.
  bool next(std::vector<Event>& batch);

private:
  // Enough to ride out a slow read without holding more than a few thousand events.
  static constexpr std::size_t kBatchesAhead = 4;

  void decode(std::vector<trace::TraceReader>& readers, std::size_t batch_size);

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::vector<Event>> ready_;
  bool done_ = false;
  bool stopping_ = false;
  std::exception_ptr error_;
  std::thread thread_; // last: starts once the state above exists
};

} // namespace streamrace
