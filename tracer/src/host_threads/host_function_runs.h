// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What host functions touch and hand off. A function the runtime runs for cudaLaunchHostFunc or
// cudaStreamAddCallback is an op of its stream: its loads, stores and hand-offs come after the
// stream's earlier work and before its later work. It runs on a thread of the runtime's, at a
// time only the runtime knows, so the preloaded tracer defines those entry points (and their _ptsz
// forms): the runtime is handed a trampoline that runs the program's function with its run marked
// on the running thread. The mutexes, condition variables and semaphores it releases and acquires
// (host_threads.cpp) are kept in the run; with `watch_host_accesses`, so is a fault there
// (host_fault_handler.cpp), instead of being queued. Watching, the tracer thread waits right after
// the launch's event for the run to end and checks what it touched as ops of the stream at that
// very point (tracer.cpp), before any later event: nothing processed later can be ordered before
// the function, and what is ordered after it is then checked against its accesses. Not watching,
// it does not wait: a run that has not ended yet is named in the launch's event, and its hand-offs
// follow when it ends, placed by the engine where the function was launched.
#pragma once

#include "stacks/call_sites.h"

#include "streamrace/engine/event.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>

namespace streamrace::tracer {

// A load or store the function made (one byte: a fault tells no width), or the bytes a system
// call it made was given.
struct HostFunctionFault {
  Address address = 0;
  std::uint64_t size = 1;
  bool write = false;
  RawStack stack;
};

// A synchronization object the function released or acquired (docs/semantics.md rule 16).
struct HostFunctionHandOff {
  std::uint64_t object = 0;
  bool release = false;
  std::uint64_t sequence = 0; // HostRelease::sequence, HostAcquire::sequence
};

// One launch of a host function, shared by the trampoline that runs it and the launch's event.
class HostFunctionRun {
public:
  // `keeps_faults`: room for faults, needed only while watching host accesses.
  // `keeps_hand_offs`: false for a function of the CUDA or NCCL libraries or a framework's
  // runtime, whose hand-offs are theirs (docs/semantics.md rule 16).
  HostFunctionRun(bool keeps_faults, bool keeps_hand_offs);

  // On the thread running the function, from the fault handler: no lock, no allocation. Faults
  // past the capacity go unrecorded (one fault per page and direction is all a run can take).
  void record(Address address, std::uint64_t size, bool write, const RawStack& stack);
  // On the thread running the function, from the interposed synchronization calls (host_threads):
  // hand-offs past the capacity go unrecorded.
  void record_hand_off(std::uint64_t object, bool release, std::uint64_t sequence);

  // The trampoline's side: whether this run may be recorded (the tracer has not given up on it).
  bool begin(ThreadId thread);
  void end();

  // The tracer thread's side.
  bool finished() const { return state_.load(std::memory_order_acquire) == State::Finished; }
  // Gives up on a run that did not end in time; returns whether it ended after all.
  bool abandon();
  std::span<const HostFunctionFault> faults() const {
    return faults_ ? std::span<const HostFunctionFault>(faults_->data(), count_)
                   : std::span<const HostFunctionFault>();
  }
  std::span<const HostFunctionHandOff> hand_offs() const {
    return {hand_offs_.data(), hand_off_count_};
  }
  ThreadId thread() const { return thread_; }

private:
  enum class State : std::uint8_t { Enqueued, Running, Finished, Abandoned };
  static constexpr std::size_t kFaults = 16;
  static constexpr std::size_t kHandOffs = 16;

  std::atomic<State> state_{State::Enqueued};
  ThreadId thread_ = 0;
  std::size_t count_ = 0;
  std::unique_ptr<std::array<HostFunctionFault, kFaults>> faults_;
  bool keeps_hand_offs_ = true;
  std::size_t hand_off_count_ = 0;
  std::array<HostFunctionHandOff, kHandOffs> hand_offs_{};
};

// Marks the calling thread as running `run` (null: an unwatched run) for the mark's lifetime.
class HostFunctionRunMark {
public:
  explicit HostFunctionRunMark(HostFunctionRun* run);
  ~HostFunctionRunMark();
  HostFunctionRunMark(const HostFunctionRunMark&) = delete;
  HostFunctionRunMark& operator=(const HostFunctionRunMark&) = delete;

private:
  HostFunctionRun* run_;
};

// The run the calling thread's host-function launch handed the runtime, while that launch is in
// progress (its CUPTI callback records the event); taken once.
std::shared_ptr<HostFunctionRun> take_launched_run();

// The run of the host function the calling thread is running; null outside one. Safe in a signal
// handler.
HostFunctionRun* running_host_function();

// Whether work enqueued on `stream` (a cudaStream_t; `per_thread`: through a _ptsz entry point)
// may become a graph node instead of running: the stream may be capturing.
bool may_be_capturing(void* stream, bool per_thread);

// The program's CUDA runtime's `name`: next in the lookup order, else the loaded libcudart's.
void* next_runtime_function(std::atomic<void*>& slot, const char* name);

} // namespace streamrace::tracer

// `real`: the runtime's `symbol`, declared as `declared` (a _ptsz form has its plain form's type).
#define STREAMRACE_NEXT_RUNTIME(declared, symbol)                                                  \
  static constinit std::atomic<void*> next_function{nullptr};                                      \
  const auto real = reinterpret_cast<decltype(&::declared)>(                                       \
      streamrace::tracer::next_runtime_function(next_function, symbol));                           \
  if (real == nullptr) return cudaErrorSharedObjectSymbolNotFound
