// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "stream_worker.h"

#include <chrono>
#include <functional>

#include "emulation_knobs.h"

namespace streamrace::emu {

StreamWorker::StreamWorker(std::string label, DispatchOrder& dispatch)
    : label_(std::move(label)), dispatch_(dispatch), last_(makeFinishedCompletion()),
      jitter_(EmulationKnobs::fromEnvironment().jitterSeed.value_or(0) ^
              std::hash<std::string>{}(label_)),
      thread_([this](const std::stop_token& stop) { run(stop); }) {}

StreamWorker::~StreamWorker() {
  // Finish what was enqueued, as a real device would, before the thread goes away.
  lastCompletion()->wait();
  thread_.request_stop();
  queueChanged_.notify_all();
}

CompletionPtr StreamWorker::enqueue(Work work, std::vector<CompletionPtr> dependencies) {
  auto done = std::make_shared<Completion>();
  {
    std::lock_guard lock(mutex_);
    lastTicket_ = dispatch_.admit(lastTicket_, dependencies);
    queue_.push_back(Pending{std::move(work), std::move(dependencies), done, lastTicket_});
    last_ = done;
  }
  queueChanged_.notify_one();
  return done;
}

void StreamWorker::retire() {
  {
    std::lock_guard lock(mutex_);
    retiring_ = true;
  }
  queueChanged_.notify_one();
  thread_.detach();
}

CompletionPtr StreamWorker::lastCompletion() const {
  std::lock_guard lock(mutex_);
  return last_;
}

std::chrono::duration<double, std::milli> StreamWorker::delayFor(OperationKind kind) {
  const EmulationKnobs& knobs = EmulationKnobs::fromEnvironment();
  auto delay = std::chrono::duration<double, std::milli>(knobs.delayMsFor(label_, kind));
  if (knobs.jitterSeed && knobs.jitterMaxMicroseconds > 0) {
    std::uniform_int_distribution<std::uint32_t> micros(0, knobs.jitterMaxMicroseconds);
    delay += std::chrono::microseconds(micros(jitter_));
  }
  return delay;
}

namespace {

// Host functions may block on anything (NCCL's meet other ranks) and graphs may contain them, so
// they never keep the device from starting later work; a delayed operation is slow on purpose,
// so it does not either. The rest is short device work that finishes before later work starts;
// event records and waits and async allocations touch no memory and need not wait their turn.
DispatchOrder::Start howItStarts(OperationKind kind,
                                 std::chrono::duration<double, std::milli> delay) {
  if (delay.count() > 0 || kind == OperationKind::HostFunction || kind == OperationKind::Graph) {
    return DispatchOrder::Start::Long;
  }
  if (kind == OperationKind::EventRecord || kind == OperationKind::EventWait ||
      kind == OperationKind::Allocation || kind == OperationKind::Marker) {
    return DispatchOrder::Start::Marker;
  }
  return DispatchOrder::Start::Short;
}

} // namespace

void StreamWorker::run(const std::stop_token& stop) {
  for (;;) {
    Pending next;
    {
      std::unique_lock lock(mutex_);
      if (!queueChanged_.wait(lock, stop, [this] { return !queue_.empty() || retiring_; }) ||
          queue_.empty()) {
        return;
      }
      next = std::move(queue_.front());
      queue_.pop_front();
    }
    for (const CompletionPtr& dependency : next.dependencies) {
      dependency->wait();
    }
    const auto delay = delayFor(next.work.kind);
    dispatch_.begin(next.ticket, howItStarts(next.work.kind, delay));
    if (delay.count() > 0) {
      std::this_thread::sleep_for(delay);
    }
    if (next.work.body) {
      next.work.body();
    }
    next.done->markDone();
    dispatch_.finish(next.ticket);
  }
}

} // namespace streamrace::emu
