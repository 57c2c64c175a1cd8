// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "host_threads/host_function_runs.h"

#include "calling_thread.h"
#include "graphs/graph_host_nodes.h"
#include "host_access/watched_memory.h"
#include "host_threads/host_threads.h"
#include "process/next_definition.h"
#include "recorder.h"

#include <cuda_runtime_api.h>

#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <utility>

namespace streamrace::tracer {

namespace {

// The launch in progress on this thread (set around the runtime's call, read by its callback).
thread_local std::shared_ptr<HostFunctionRun> launched_run;
// The run this thread is executing: a plain pointer, read from the fault handler.
thread_local HostFunctionRun* running_run = nullptr;

ThreadId this_thread() {
  return static_cast<ThreadId>(syscall(SYS_gettid));
}

bool watching_launches() {
  return !InsideLibraryCall::active() && Recorder::get() != nullptr;
}

// What the trampoline runs: the program's function and argument, and the run they make.
template <typename Function> struct Wrapped {
  Function function;
  void* argument;
  std::shared_ptr<HostFunctionRun> run;
};

void CUDART_CB run_host_function(void* data) {
  const std::unique_ptr<Wrapped<cudaHostFn_t>> wrapped(static_cast<Wrapped<cudaHostFn_t>*>(data));
  const HostFunctionRunMark running(wrapped->run.get());
  wrapped->function(wrapped->argument);
}

void CUDART_CB run_callback(cudaStream_t stream, cudaError_t status, void* data) {
  const std::unique_ptr<Wrapped<cudaStreamCallback_t>> wrapped(
      static_cast<Wrapped<cudaStreamCallback_t>*>(data));
  const HostFunctionRunMark running(wrapped->run.get());
  wrapped->function(stream, status, wrapped->argument);
}

// Calls `launch(trampoline, data)` with the program's function wrapped when watched, else
// `launch(function, argument)`. The trampoline owns its data once the launch succeeded.
// A launch into a capturing stream becomes a graph node, which the runtime may run any number of
// times, long after the launch: it stays the program's own function here, and each run is
// watched through the executable that runs it (graph_host_nodes.h), which needs to know the node.
template <typename Function, typename Launch>
cudaError_t launch_watched(cudaStream_t stream, bool per_thread, Function function, void* argument,
                           Function trampoline, Launch&& launch) {
  if (function == nullptr || !watching_launches()) return launch(function, argument);
  // NCCL's own host functions (the emulator's collectives are some) hand off to the library's
  // threads: unwatched, there is nothing of theirs to follow.
  const bool library = in_runtime_library(reinterpret_cast<const void*>(function));
  if (library && !WatchedMemory::enabled()) return launch(function, argument);
  if (may_be_capturing(stream, per_thread)) {
    if (!WatchedMemory::enabled()) return launch(function, argument);
    const CapturedHostLaunch naming_its_node(stream, per_thread);
    return launch(function, argument);
  }
  auto run = std::make_shared<HostFunctionRun>(WatchedMemory::enabled(), !library);
  auto wrapped = std::make_unique<Wrapped<Function>>(Wrapped<Function>{function, argument, run});
  launched_run = std::move(run);
  const cudaError_t result = launch(trampoline, wrapped.get());
  launched_run.reset();
  if (result == cudaSuccess) static_cast<void>(wrapped.release());
  return result;
}

} // namespace

void* next_runtime_function(std::atomic<void*>& slot, const char* name) {
  if (void* found = next_definition(slot, name)) return found;
  // A program that loaded its runtime privately, as Python extensions are loaded, still calls
  // it through these symbols.
  void* runtime = dlopen("libcudart.so.13", RTLD_NOW | RTLD_NOLOAD);
  if (runtime == nullptr) return nullptr;
  void* found = dlsym(runtime, name);
  dlclose(runtime);
  slot.store(found, std::memory_order_relaxed);
  return found;
}

// The legacy stream cannot be captured, and asking about it while another stream captures is
// itself an error, so it is not asked about.
bool may_be_capturing(void* stream_handle, bool per_thread) {
  const auto stream = static_cast<cudaStream_t>(stream_handle);
  const auto handle = reinterpret_cast<std::uintptr_t>(stream);
  if (stream == cudaStreamLegacy || (handle == 0 && !per_thread)) return false;
  static constinit std::atomic<void*> next_query{nullptr};
  const auto is_capturing = reinterpret_cast<decltype(&::cudaStreamIsCapturing)>(
      next_runtime_function(next_query, "cudaStreamIsCapturing"));
  if (is_capturing == nullptr) return true;
  const InsideLibraryCall untraced;
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  return is_capturing(handle == 0 ? cudaStreamPerThread : stream, &status) != cudaSuccess ||
         status != cudaStreamCaptureStatusNone;
}

HostFunctionRunMark::HostFunctionRunMark(HostFunctionRun* run)
    : run_(run != nullptr && run->begin(this_thread()) ? run : nullptr) {
  running_run = run_;
}

HostFunctionRunMark::~HostFunctionRunMark() {
  running_run = nullptr;
  if (run_ != nullptr) run_->end();
}

HostFunctionRun::HostFunctionRun(bool keeps_faults, bool keeps_hand_offs)
    : faults_(keeps_faults ? std::make_unique<std::array<HostFunctionFault, kFaults>>() : nullptr),
      keeps_hand_offs_(keeps_hand_offs) {}

void HostFunctionRun::record(Address address, std::uint64_t size, bool write,
                             const RawStack& stack) {
  if (!faults_ || count_ == kFaults) return;
  (*faults_)[count_] = HostFunctionFault{address, size, write, stack};
  ++count_;
}

void HostFunctionRun::record_hand_off(std::uint64_t object, bool release, std::uint64_t sequence) {
  if (!keeps_hand_offs_ || hand_off_count_ == kHandOffs) return;
  hand_offs_[hand_off_count_] = HostFunctionHandOff{object, release, sequence};
  ++hand_off_count_;
}

bool HostFunctionRun::begin(ThreadId thread) {
  State expected = State::Enqueued;
  if (!state_.compare_exchange_strong(expected, State::Running, std::memory_order_acq_rel))
    return false;
  thread_ = thread;
  return true;
}

void HostFunctionRun::end() {
  state_.store(State::Finished, std::memory_order_release);
}

bool HostFunctionRun::abandon() {
  State expected = State::Enqueued;
  if (state_.compare_exchange_strong(expected, State::Abandoned, std::memory_order_acq_rel))
    return false;
  return expected == State::Finished;
}

std::shared_ptr<HostFunctionRun> take_launched_run() {
  return std::exchange(launched_run, nullptr);
}

HostFunctionRun* running_host_function() {
  return running_run;
}

} // namespace streamrace::tracer

using streamrace::tracer::launch_watched;
using streamrace::tracer::run_callback;
using streamrace::tracer::run_host_function;

extern "C" {

__attribute__((visibility("default"))) cudaError_t cudaLaunchHostFunc(cudaStream_t stream,
                                                                      cudaHostFn_t fn,
                                                                      void* user_data) {
  STREAMRACE_NEXT_RUNTIME(cudaLaunchHostFunc, "cudaLaunchHostFunc");
  return launch_watched(
      stream, false, fn, user_data, run_host_function,
      [&](cudaHostFn_t function, void* argument) { return real(stream, function, argument); });
}

__attribute__((visibility("default"))) cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream,
                                                                           cudaHostFn_t fn,
                                                                           void* user_data) {
  STREAMRACE_NEXT_RUNTIME(cudaLaunchHostFunc, "cudaLaunchHostFunc_ptsz");
  return launch_watched(
      stream, true, fn, user_data, run_host_function,
      [&](cudaHostFn_t function, void* argument) { return real(stream, function, argument); });
}

__attribute__((visibility("default"))) cudaError_t cudaStreamAddCallback(
    cudaStream_t stream, cudaStreamCallback_t callback, void* user_data, unsigned int flags) {
  STREAMRACE_NEXT_RUNTIME(cudaStreamAddCallback, "cudaStreamAddCallback");
  return launch_watched(stream, false, callback, user_data, run_callback,
                        [&](cudaStreamCallback_t function, void* argument) {
                          return real(stream, function, argument, flags);
                        });
}

__attribute__((visibility("default"))) cudaError_t cudaStreamAddCallback_ptsz(
    cudaStream_t stream, cudaStreamCallback_t callback, void* user_data, unsigned int flags) {
  STREAMRACE_NEXT_RUNTIME(cudaStreamAddCallback, "cudaStreamAddCallback_ptsz");
  return launch_watched(stream, true, callback, user_data, run_callback,
                        [&](cudaStreamCallback_t function, void* argument) {
                          return real(stream, function, argument, flags);
                        });
}

} // extern "C"
