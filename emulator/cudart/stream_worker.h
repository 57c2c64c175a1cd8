// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The thread that plays one stream: it runs the stream's operations one after another, each
// only once the completions it depends on (other streams' work, recorded events) are done and
// its device lets it begin (dispatch_order.h). Different streams' workers run at the same time,
// so unordered work really overlaps.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "completion.h"
#include "dispatch_order.h"
#include "operation.h"

namespace streamrace::emu {

class StreamWorker {
public:
  // `dispatch` is the device's; it must outlive the worker.
  StreamWorker(std::string label, DispatchOrder& dispatch);
  ~StreamWorker();
  StreamWorker(const StreamWorker&) = delete;
  StreamWorker& operator=(const StreamWorker&) = delete;

  // Runs `work` after everything enqueued before it on this worker and after every completion
  // in `dependencies`. Returns the completion of `work`.
  CompletionPtr enqueue(Work work, std::vector<CompletionPtr> dependencies);

  // For a destroyed stream: the thread finishes what was enqueued, then ends on its own. The
  // worker object must stay alive until then (the runtime keeps destroyed streams).
  void retire();

  // The completion of the most recently enqueued operation (finished when the worker is idle).
  CompletionPtr lastCompletion() const;

  const std::string& label() const { return label_; }

private:
  struct Pending {
    Work work;
    std::vector<CompletionPtr> dependencies;
    CompletionPtr done;
    DispatchOrder::TicketPtr ticket;
  };

  void run(const std::stop_token& stop);
  std::chrono::duration<double, std::milli> delayFor(OperationKind kind);

  std::string label_;
  DispatchOrder& dispatch_;
  mutable std::mutex mutex_;
  std::condition_variable_any queueChanged_;
  std::deque<Pending> queue_;
  bool retiring_ = false;
  CompletionPtr last_;
  DispatchOrder::TicketPtr lastTicket_;
  std::mt19937_64 jitter_;
  std::jthread thread_;
};

} // namespace streamrace::emu
