#include "stream_worker.h"

#include <chrono>
#include <functional>

#include "emulation_knobs.h"

namespace streamrace::emu {

StreamWorker::StreamWorker(std::string label)
    : label_(std::move(label)), last_(makeFinishedCompletion()),
      jitter_(EmulationKnobs::fromEnvironment().jitterSeed.value_or(0) ^
              std::hash<std::string>{}(label_)),
      thread_([this](std::stop_token stop) { run(std::move(stop)); }) {}

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
    queue_.push_back(Pending{std::move(work), std::move(dependencies), done});
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

void StreamWorker::delayBefore(OperationKind kind) {
  const EmulationKnobs& knobs = EmulationKnobs::fromEnvironment();
  double delayMs = knobs.delayMsFor(label_, kind);
  auto delay = std::chrono::duration<double, std::milli>(delayMs);
  if (knobs.jitterSeed && knobs.jitterMaxMicroseconds > 0) {
    std::uniform_int_distribution<std::uint32_t> micros(0, knobs.jitterMaxMicroseconds);
    delay += std::chrono::microseconds(micros(jitter_));
  }
  if (delay.count() > 0) {
    std::this_thread::sleep_for(delay);
  }
}

void StreamWorker::run(std::stop_token stop) {
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
    delayBefore(next.work.kind);
    if (next.work.body) {
      next.work.body();
    }
    next.done->markDone();
  }
}

} // namespace streamrace::emu
