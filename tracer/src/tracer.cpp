// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The tracer's mechanics: its set-up from the options, the hand-off from the calling threads to
// the tracer thread, and each call's way through the engine into the trace. Its place in the
// process (creation, exit, signal and fork hooks) is process_hooks.cpp; its report,
// online_report.cpp.
#include "tracer.h"

#include "graphs/graph_host_nodes.h"
#include "host_access/watched_memory.h"
#include "host_threads/host_function_runs.h"
#include "host_threads/host_threads.h"
#include "kernels/kernel_launches.h"
#include "ops/op_scopes.h"
#include "python/torch_presence.h"
#include "queue/stall_watch.h"
#include "stacks/python_stacks.h"

#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <sys/syscall.h>
#include <unistd.h>
#include <utility>

namespace streamrace::tracer {

namespace {

ThreadId current_thread() {
  thread_local const ThreadId id = static_cast<ThreadId>(syscall(SYS_gettid));
  return id;
}

// How long the idle tracer thread sleeps between looks at the queue: short while calls keep
// coming, longer once the program has been quiet for a while.
constexpr auto kShortestPause = std::chrono::microseconds(50);
constexpr auto kLongestPause = std::chrono::microseconds(2000);
// The tracer thread releases its lock between batches of this many calls, so a crash handler,
// fork() or a full ring waits for one batch at most.
constexpr std::size_t kBatch = 1024;
// How long the tracer waits for a host function to run before it takes the next call: work
// ordered after the function must not be checked before it, and the program's calls queue up
// meanwhile. A function that waits for something the program does later (a lock the enqueuing
// thread holds) would otherwise stall both.
constexpr std::chrono::milliseconds kHostFunctionWait(1000);
// A crashing or immediately exiting thread waits up to 4000 x 50 us = 200 ms for the tracer
// thread's batch.
constexpr int kBriefLockAttempts = 4000;

// A load or store a host function made, as a call of the thread that ran it (its payload to be
// set), at `time_ns`.
CapturedCall host_function_access(const HostFunctionRun& run, const HostFunctionFault& fault,
                                  std::uint64_t time_ns) {
  CapturedCall access;
  access.api = fault.write ? "host write" : "host read";
  access.stack = fault.stack;
  access.thread = run.thread();
  access.time_ns = time_ns;
  return access;
}

Access accessed(const HostFunctionFault& fault) {
  return Access{fault.address, fault.size, fault.write ? AccessMode::Write : AccessMode::Read,
                Extent::Exact};
}

// A file or folder a setting names that the tracer cannot use: the user's to fix, so said as a
// settings error naming the option, not as an internal one.
class SettingUnusable : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

template <typename Step> auto from_setting(std::string_view option, Step step) {
  try {
    return step();
  } catch (const std::exception& error) {
    throw SettingUnusable(std::string(option) + ": " + error.what());
  }
}

} // namespace

Tracer::Tracer(TracerSetup setup)
    : settings_(std::move(setup.settings)), clock_(std::move(setup.clock)),
      open_trace_(std::move(setup.open_trace)), first_rank_(setup.first_rank),
      rank_stride_(setup.rank_stride), halt_(std::move(setup.halt)) {}

Tracer::~Tracer() {
  stopping_.store(true);
  wake_.notify_all();
  if (tracer_thread_.joinable()) tracer_thread_.join();
}

void Tracer::start() {
  try {
    if (!clock_) throw std::invalid_argument("the tracer was set up without a clock");
    pid_ = getpid();
    queue_ = std::make_unique<CallQueue>(settings_.tracer.ring_capacity,
                                         settings_.tracer.overflow_capacity, clock_);
    // A file that cannot be read throws: tracing stops rather than halting or reporting on
    // findings the user asked to hide.
    if (!settings_.report.suppressions.empty())
      suppressions_ = from_setting(
          "suppressions", [&] { return Suppressions::load(settings_.report.suppressions); });
    if (!settings_.tracer.kernel_summaries.empty()) {
      KernelSummaries summaries;
      if (std::string error = summaries.load(settings_.tracer.kernel_summaries); !error.empty())
        std::fprintf(stderr, "streamrace: warning: %s; kernel accesses stay approximate\n",
                     error.c_str());
      else
        KernelLaunchReader::instance().use_summaries(std::move(summaries));
    }
    if (!detecting() && !open_trace_)
      throw SettingUnusable("online_detection=0 needs output_dir: without a trace, nothing "
                            "would be checked");
    ranks_ = std::make_unique<RankAssignment>(first_rank_, rank_stride_);
    engine_ = std::make_unique<Engine>(settings_.engine, [](std::string_view warning) {
      std::fprintf(stderr, "streamrace: warning: %.*s\n", static_cast<int>(warning.size()),
                   warning.data());
    });
    if (open_trace_)
      writer_ = std::make_unique<trace::TraceWriter>(
          from_setting("output_dir", [&] { return open_trace_(); }),
          static_cast<std::uint64_t>(getpid()), clock_());
    RawStack warm_up; // the first capture loads the unwinder: better not inside a callback
    capture_stack(warm_up);
    if (const char* reason = nullptr;
        settings_.tracer.watch_host_accesses && !WatchedMemory::enable(reason))
      std::fprintf(stderr, "streamrace: warning: %s; host accesses stay unseen\n", reason);
    tracer_thread_ = std::thread([this] { run_tracer_thread(); });
    tracer_thread_id_ = tracer_thread_.get_id();
  } catch (const SettingUnusable& error) {
    refuse(error.what());
  } catch (const std::exception& error) {
    disable(error.what());
  }
}

bool Tracer::stop_tracing() {
  enabled_.store(false);
  return !disabled_reported_.exchange(true);
}

void Tracer::disable(std::string_view reason) {
  if (stop_tracing())
    std::fprintf(stderr, "streamrace: internal error: %.*s; tracing disabled\n",
                 static_cast<int>(reason.size()), reason.data());
}

void Tracer::refuse(std::string_view problem) {
  if (stop_tracing())
    std::fprintf(stderr, "streamrace: error: %.*s; tracing disabled\n",
                 static_cast<int>(problem.size()), problem.data());
}

void Tracer::give_up_on_stalled_detector() {
  if (stop_tracing())
    std::fprintf(stderr,
                 "streamrace: the race detector made no progress for %llu s "
                 "(watchdog_seconds); detection disabled, the program goes on untraced\n",
                 static_cast<unsigned long long>(settings_.tracer.watchdog_seconds));
}

NameId Tracer::intern_name(std::string_view text) {
  std::lock_guard lock(names_mutex_);
  const std::size_t before = names_.name_count();
  const NameId id = names_.intern(text);
  if (names_.name_count() != before) names_version_.fetch_add(1, std::memory_order_release);
  return id;
}

void Tracer::record(std::string_view api, Payload payload,
                    std::vector<KernelPointer> kernel_pointers) {
  CapturedCall call;
  call.payload = std::move(payload);
  record_here(api, std::move(call), std::move(kernel_pointers));
}

void Tracer::record_from_framework(std::string_view api, Payload payload) {
  CapturedCall call;
  call.payload = std::move(payload);
  call.native_frames = false;
  record_here(api, std::move(call), {});
}

void Tracer::record_graph_build(std::string_view api, GraphBuildCall build,
                                std::vector<KernelPointer> kernel_pointers) {
  CapturedCall call;
  call.graph_build = std::move(build);
  record_here(api, std::move(call), std::move(kernel_pointers));
}

void Tracer::record_here(std::string_view api, CapturedCall call,
                         std::vector<KernelPointer> kernel_pointers) {
  if (stopping_.load(std::memory_order_relaxed)) return;
  const InsideTracer inside;
  note_gpu_thread(*this);
  call.api = api;
  call.thread = current_thread();
  call.time_ns = clock_();
  call.kernel_pointers = std::move(kernel_pointers);
  if (call.native_frames) {
    capture_stack(call.stack);
    // A call a Python thread makes outside any operator (a C++ extension's kernel, torch.cuda's
    // stream and event calls) starts at the Python lines that made it. They are read only while
    // the thread holds the GIL: taking it inside a CUDA call could wait for a thread that waits
    // for the runtime.
    if (!OpScopes::inside_op()) call.python_stack = PythonStacks::instance().capture(0);
  }
  if (std::holds_alternative<HostFunction>(call.payload))
    call.host_function_run = take_launched_run();
  if (WatchedMemory::enabled()) {
    WatchedMemory::instance().observe(call.payload, call.kernel_pointers);
    if (std::holds_alternative<HostFunction>(call.payload)) {
      if (CapturedHostLaunch::hold(call)) return;
    } else if (std::holds_alternative<GraphLaunch>(call.payload)) {
      call.graph_host_runs = take_launched_graph_runs();
    }
  }
  queue(std::move(call));
}

void Tracer::queue(CapturedCall call) {
  // Building a graph does no work an op could state ranges for: never held in one.
  if (!call.graph_build && OpScopes::hold(call)) return;
  push(std::move(call));
}

void Tracer::record_host_access(Address address, std::uint64_t size, bool write,
                                const RawStack& stack) {
  if (stopping_.load(std::memory_order_relaxed)) return;
  const InsideTracer inside;
  note_gpu_thread(*this);
  CapturedCall call;
  call.api = write ? "host write" : "host read";
  call.payload = HostAccess{};
  call.host_access =
      Access{address, size, write ? AccessMode::Write : AccessMode::Read, Extent::Exact};
  call.thread = current_thread();
  call.time_ns = clock_();
  call.stack = stack;
  if (OpScopes::hold(call)) return;
  push(std::move(call));
}

void Tracer::record_hand_off(std::string_view api, Payload payload) {
  if (stopping_.load(std::memory_order_relaxed)) return;
  const InsideTracer inside;
  CapturedCall call;
  call.api = api;
  call.payload = std::move(payload);
  call.thread = current_thread();
  call.time_ns = clock_();
  push(std::move(call));
}

void Tracer::push(CapturedCall call) {
  if (queue_->paused() || !queue_->try_push(call)) {
    if (!settings_.tracer.block_on_full)
      push_within_bound(call);
    else if (!wait_for_room(call))
      return;
  }
  if (settings_.tracer.halt_on_error) {
    // The program must not run past its first finding: this thread processes the queue itself,
    // its own call included, before the call returns.
    std::lock_guard lock(engine_mutex_);
    drain();
  }
}

void Tracer::run_tracer_thread() {
  tracer_thread_tid_.store(static_cast<pid_t>(syscall(SYS_gettid)));
  struct MarkDone {
    std::atomic<bool>& done;
    ~MarkDone() { done.store(true); }
  } mark_done{tracer_thread_done_};
  try {
    auto pause = kShortestPause;
    while (enabled()) {
      flush_for_signal_handler();
      std::size_t processed = 0;
      {
        std::lock_guard lock(engine_mutex_);
        if (finished_) return;
        processed = drain(kBatch);
        collect_late_runs(LateRunCollection::Ended);
      }
      if (processed > 0) {
        pause = kShortestPause;
        continue;
      }
      if (stopping_.load()) return;
      std::unique_lock lock(wake_mutex_);
      wake_.wait_for(lock, pause);
      pause = std::min(pause * 2, kLongestPause);
    }
  } catch (const std::exception& error) {
    disable(error.what());
  } catch (...) {
    disable("unknown exception on the tracer thread");
  }
}

std::size_t Tracer::drain(std::size_t limit) {
  std::size_t processed = 0;
  while (processed < limit) {
    std::optional<CapturedCall> call = queue_->pop();
    if (!call) {
      // Calls queued while checking was paused come after every call in the ring.
      if (!queue_->paused()) break;
      processed += drain_overflow();
      continue;
    }
    ++processed;
    process_taken(*call);
    collect_late_runs(LateRunCollection::Oldest);
  }
  return processed;
}

void Tracer::process_taken(CapturedCall& call) {
  progress_.fetch_add(1, std::memory_order_relaxed);
  if (finished_ || !enabled()) return;
  if (settings_.tracer.tracer_delay_us != 0)
    std::this_thread::sleep_for(std::chrono::microseconds(settings_.tracer.tracer_delay_us));
  process(call);
}

void Tracer::warn_unfollowed_setter(std::string_view api) {
  if (warned_unfollowed_setter_) return;
  warned_unfollowed_setter_ = true;
  std::fprintf(stderr,
               "streamrace: warning: %.*s changed a node of an executable instantiated from a "
               "captured graph; that change is not followed, so the executable's later launches "
               "are checked as captured\n",
               static_cast<int>(api.size()), api.data());
}

void Tracer::process_steps(std::vector<HandBuiltGraphs::Step> steps, const CapturedCall& call) {
  for (HandBuiltGraphs::Step& step : steps) {
    CapturedCall described;
    described.api = step.api;
    described.payload = std::move(step.payload);
    described.stack = *step.stack;
    described.thread = call.thread;
    described.time_ns = call.time_ns;
    process(described);
  }
}

void Tracer::process(CapturedCall& call) {
  if (call.graph_build) {
    // A kernel node's accesses are resolved against the allocations live when it is added.
    if (auto* launch = call.graph_build->operation
                           ? std::get_if<KernelLaunch>(&*call.graph_build->operation)
                           : nullptr;
        launch != nullptr && !call.kernel_pointers.empty())
      kernel_accesses_.resolve(call.kernel_pointers, launch->accesses);
    // Graph memory is known from its allocation node on, for kernel nodes added later.
    if (call.graph_build->operation && std::holds_alternative<Alloc>(*call.graph_build->operation))
      kernel_accesses_.observe(*call.graph_build->operation);
    const GraphBuildCall& build = *call.graph_build;
    if (build.kind == GraphBuildCall::Kind::SetNode && build.exec != 0 &&
        !hand_built_graphs_.follows(build.exec))
      warn_unfollowed_setter(call.api);
    process_steps(hand_built_graphs_.apply(build, call.api, call.stack), call);
    return;
  }
  if (const auto* instantiation = std::get_if<GraphInstantiate>(&call.payload);
      instantiation != nullptr && !instantiation->update)
    process_steps(hand_built_graphs_.instantiate(instantiation->graph, instantiation->exec,
                                                 call.api, call.stack),
                  call);
  if (const auto* destroyed = std::get_if<GraphExecDestroy>(&call.payload))
    hand_built_graphs_.destroy_executable(destroyed->exec);
  if (!call.graph_host_runs.empty()) check_graph_host_nodes(call);
  Event event{EventHeader{0, call.thread, 0, 0, 0}, std::move(call.payload)};
  const RankAssignment::Placement placement = ranks_->place(call.thread, event.payload);
  event.header.rank = placement.rank;
  // Replay orders a trace by time, and must see the events in the order the online engine did.
  last_time_ns_ = std::max(last_time_ns_, call.time_ns);
  event.header.time_ns = last_time_ns_;
  bool new_site = false;
  event.header.site = sites_.intern(call.api, call.stack, call.python_stack, new_site);
  if (auto* launch = std::get_if<KernelLaunch>(&event.payload)) {
    if (call.stated_accesses)
      launch->accesses = std::move(*call.stated_accesses);
    else if (!call.kernel_pointers.empty())
      kernel_accesses_.resolve(call.kernel_pointers, launch->accesses);
  }
  if (call.host_access.size != 0)
    std::get<HostAccess>(event.payload).accesses.push_back(call.host_access);
  kernel_accesses_.observe(event.payload);
  if (std::holds_alternative<GroupStart>(event.payload) ||
      std::holds_alternative<GroupEnd>(event.payload)) {
    // An NCCL group spans every device the thread drives: each rank in the process has one.
    for (RankId rank : ranks_->ranks()) {
      event.header.rank = rank;
      process_event(event, std::exchange(new_site, false));
    }
    return;
  }
  if (placement.new_rank) {
    // Reports name the rank by the device it stands for (docs/report-formats.md).
    Event identity{event.header, RankDevice{ranks_->process_rank(), placement.device}};
    process_event(identity, std::exchange(new_site, false));
  }
  if (const auto* selection = std::get_if<SetDevice>(&event.payload))
    selected_devices_[{event.header.rank, event.header.thread}] = selection->device;
  else
    select_device(event, placement.device, new_site);
  // Unwatched, a host function is not waited for: one that has not run yet hands its
  // hand-offs to the engine when it ends, placed here (HostFunction::run).
  const bool watched = WatchedMemory::enabled();
  std::uint64_t late_run = 0;
  if (call.host_function_run && !watched && !call.host_function_run->finished()) {
    late_run = ++late_run_count_;
    std::get<HostFunction>(event.payload).run = late_run;
  }
  process_event(event, new_site);
  if (!call.host_function_run) return;
  const StreamHandle stream = std::get<HostFunction>(event.payload).stream;
  if (watched) {
    check_host_function(*call.host_function_run, stream, call.time_ns);
  } else if (late_run != 0) {
    late_runs_.push_back(LateRun{late_run, stream, call.thread, std::move(call.host_function_run)});
  } else {
    place_hand_offs(*call.host_function_run, stream, call.time_ns, HandOffSide::Acquires, 0);
    place_hand_offs(*call.host_function_run, stream, call.time_ns, HandOffSide::Releases, 0);
  }
}

void Tracer::check_host_function(HostFunctionRun& run, StreamHandle stream, std::uint64_t time_ns) {
  if (!await_host_function(run)) return;
  // What the function acquired comes before what it touched, what it released after: a
  // function waits, then works, then signals.
  place_hand_offs(run, stream, time_ns, HandOffSide::Acquires, 0);
  for (const HostFunctionFault& fault : run.faults()) {
    CapturedCall access = host_function_access(run, fault, time_ns);
    access.payload = HostFunction{stream, 0, {accessed(fault)}, 0};
    process(access);
  }
  place_hand_offs(run, stream, time_ns, HandOffSide::Releases, 0);
}

void Tracer::place_hand_offs(const HostFunctionRun& run, StreamHandle stream, std::uint64_t time_ns,
                             HandOffSide side, std::uint64_t late_run) {
  const bool releases = side == HandOffSide::Releases;
  for (const HostFunctionHandOff& hand_off : run.hand_offs()) {
    if (hand_off.release != releases) continue;
    CapturedCall call;
    call.api = releases ? "host function release" : "host function acquire";
    call.thread = run.thread();
    call.time_ns = time_ns;
    if (releases)
      call.payload = HostRelease{.object = hand_off.object,
                                 .host_function = true,
                                 .stream = stream,
                                 .sequence = hand_off.sequence,
                                 .run = late_run};
    else
      call.payload = HostAcquire{.object = hand_off.object,
                                 .host_function = true,
                                 .stream = stream,
                                 .sequence = hand_off.sequence,
                                 .run = late_run};
    process(call);
  }
}

void Tracer::collect_late_runs(LateRunCollection which) {
  if (late_runs_.empty() || finished_ || !enabled()) return;
  // At the end the program has normally waited for its host functions; one still running or
  // never started is given a bounded wait, then ended without hand-offs.
  const bool ending = which == LateRunCollection::All;
  const auto deadline = std::chrono::steady_clock::now() + kHostFunctionWait;
  bool older_out = false;
  std::erase_if(late_runs_, [&](LateRun& late) {
    if (older_out) return false;
    bool ended = late.run->finished();
    while (!ended && ending && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(kShortestPause);
      ended = late.run->finished();
    }
    if (!ended && !ending) {
      older_out = which == LateRunCollection::Oldest;
      return false;
    }
    if (!ended) ended = late.run->abandon();
    const std::uint64_t time_ns = clock_();
    if (ended) {
      place_hand_offs(*late.run, late.stream, time_ns, HandOffSide::Acquires, late.id);
      place_hand_offs(*late.run, late.stream, time_ns, HandOffSide::Releases, late.id);
    }
    CapturedCall end;
    end.api = "host function end";
    end.thread = ended ? late.run->thread() : late.launcher;
    end.time_ns = time_ns;
    end.payload = HostFunctionEnd{late.stream, late.id};
    process(end);
    return true;
  });
}

void Tracer::check_graph_host_nodes(const CapturedCall& launch) {
  const GraphHandle exec = std::get<GraphLaunch>(launch.payload).exec;
  for (const GraphHostRun& node : launch.graph_host_runs) {
    if (!await_host_function(*node.run)) {
      stop_watching(*node.owner);
      continue;
    }
    for (const HostFunctionFault& fault : node.run->faults()) {
      CapturedCall access = host_function_access(*node.run, fault, launch.time_ns);
      access.payload = HostNodeAccess{exec, node.node, {accessed(fault)}};
      process(access);
    }
  }
}

bool Tracer::await_host_function(HostFunctionRun& run) {
  const auto deadline = std::chrono::steady_clock::now() + kHostFunctionWait;
  while (!run.finished()) {
    const bool late = std::chrono::steady_clock::now() > deadline;
    if (late || !enabled() || stopping_.load(std::memory_order_relaxed)) {
      if (run.abandon()) return true;
      if (late && !late_host_function_reported_) {
        late_host_function_reported_ = true;
        std::fprintf(stderr,
                     "streamrace: warning: a host function had not run %lld ms after its launch; "
                     "what host functions that late touch is not checked\n",
                     static_cast<long long>(kHostFunctionWait.count()));
      }
      return false;
    }
    std::this_thread::sleep_for(kShortestPause);
  }
  return true;
}

void Tracer::select_device(const Event& event, DeviceId device, bool& new_site) {
  DeviceId& selected = selected_devices_[{event.header.rank, event.header.thread}];
  if (selected == device) return;
  selected = device;
  Event selection{event.header, SetDevice{device}};
  process_event(selection,
                std::exchange(new_site, false)); // the first to name a new site defines it
}

void Tracer::process_event(Event& event, bool new_site) {
  if (detecting()) engine_->process(event);
  if (writer_) {
    if (new_site)
      writer_->define_call_site(event.header.site, sites_.unsymbolized(event.header.site));
    if (const std::size_t version = names_version_.load(std::memory_order_acquire);
        version != names_written_version_) {
      std::lock_guard lock(names_mutex_);
      writer_->define_symbols(names_);
      names_written_version_ = version;
    }
    writer_->write(event);
  }
  halt_if_found();
}

void Tracer::finish() {
  try {
    stopping_.store(true);
    wake_.notify_all();
    if (tracer_thread_.joinable() && std::this_thread::get_id() != tracer_thread_id_) {
      // The exit waits for the queue to drain, but not for a detector that stopped moving.
      StallWatch watch(progress_, std::chrono::seconds(settings_.tracer.watchdog_seconds));
      while (!tracer_thread_done_.load()) {
        if (watch.stalled()) {
          give_up_on_stalled_detector();
          return;
        }
        std::this_thread::sleep_for(kLongestPause);
      }
      tracer_thread_.join();
    }
    std::lock_guard lock(engine_mutex_);
    finish_locked();
  } catch (const std::exception& error) {
    disable(error.what());
  }
}

void Tracer::finish_locked() {
  if (finished_) return;
  drain();
  collect_late_runs(LateRunCollection::All);
  finished_ = true;
  // Names interned since the last event still belong in the trace (reports may use them).
  if (writer_) {
    std::lock_guard names_lock(names_mutex_);
    writer_->define_symbols(names_);
  }
  engine_->finish();
  warn_if_torch_ran_unobserved(settings_);
  warn_if_watching_refused();
  report_findings(*engine_, ReportMoment::AtExit);
  if (writer_) writer_->flush();
}

void Tracer::finish_before_immediate_exit() {
  if (getpid() != pid_) return;
  // The tracer thread is left running: it stops at finished_, and joining it could wait on the
  // lock this thread holds. Calls made from here on are not traced.
  stopping_.store(true);
  if (!lock_engine_briefly()) return;
  try {
    finish_locked();
  } catch (const std::exception& error) {
    disable(error.what());
  }
  engine_mutex_.unlock();
}

bool Tracer::lock_engine_briefly() {
  if (std::this_thread::get_id() == tracer_thread_id_) return false;
  bool locked = engine_mutex_.try_lock();
  for (int attempt = 0; !locked && attempt < kBriefLockAttempts; ++attempt) {
    std::this_thread::sleep_for(kShortestPause);
    locked = engine_mutex_.try_lock();
  }
  return locked;
}

void Tracer::before_fork() {
  InsideTracer::enter();
  engine_mutex_.lock();
  names_mutex_.lock();
}

void Tracer::after_fork_in_parent() {
  names_mutex_.unlock();
  engine_mutex_.unlock();
  InsideTracer::leave();
}

void Tracer::after_fork_in_child() {
  // The writer's file and unwritten records belong to the parent: writing or even flushing
  // them here would duplicate them in the parent's trace, so the child lets go of the writer
  // without running its destructor. The tracer thread was not copied into the child; its
  // handle is never joined (the tracer outlives the process).
  static_cast<void>(writer_.release());
  finished_ = true;
  enabled_.store(false);
  disabled_reported_.store(true);
  names_mutex_.unlock();
  engine_mutex_.unlock();
  InsideTracer::leave();
}

} // namespace streamrace::tracer
