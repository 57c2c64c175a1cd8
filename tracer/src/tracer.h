// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The process-wide tracer. Every front end (CUPTI callbacks, NCCL wrappers, NVTX) hands it
// decoded events through its Recorder face (recorder.h); the calling thread only stamps them
// (thread, time, raw stack) and queues them. One tracer thread takes them in queue order, completes
// them (rank, call site, kernel accesses), runs them through the in-process engine, appends them to
// this process's trace, and reports. It fails open: the first internal error disables it with one
// line on stderr.
#pragma once

#include "kernels/kernel_accesses.h"
#include "kernels/kernel_rules.h"
#include "queue/call_queue.h"
#include "queue/captured_call.h"
#include "ranks/rank_assignment.h"
#include "recorder.h"
#include "stacks/call_sites.h"

#include "streamrace/engine/engine.h"
#include "streamrace/engine/event.h"
#include "streamrace/engine/symbols.h"
#include "streamrace/report/suppressions.h"
#include "streamrace/trace/trace_sink.h"
#include "streamrace/trace/trace_writer.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <sys/types.h>
#include <thread>
#include <vector>

namespace streamrace::tracer {

// What a tracer is built from. The process's comes from its environment, read once where the
// process creates its tracer (process_hooks.cpp); a test builds its own.
struct TracerSetup {
  Settings settings;
  // The time of each call in nanoseconds (and the trace's start time), read on the calling
  // threads: the process's is the wall clock, which replay orders several processes' traces by.
  std::function<std::uint64_t()> clock;
  // Opens where the trace goes, when the tracer starts; empty: no trace. The process's is a file
  // per process under output_dir; a failure to open it disables the tracer with one line.
  std::function<std::unique_ptr<trace::TraceSink>()> open_trace;
  // The rank of the first device the process uses, and how far apart its devices' ranks are
  // (rank_assignment.h).
  RankId first_rank = 0;
  RankId rank_stride = 1;
  // Ends the program once halt_on_error printed a finding and the trace is flushed. The process's
  // exits with status 66 and runs no atexit handler; a test records that it was asked.
  std::function<void()> halt;
};

class Tracer final : public Recorder {
public:
  // The process's tracer, created on first use; null when tracing is (or became) disabled.
  static Tracer* get();
  // The tracer if one started and is still enabled; never starts one.
  static Tracer* running();

  explicit Tracer(TracerSetup setup);
  // Stops the tracer thread, without finishing: the process's tracer is never destroyed (runtime
  // threads may still call back while the process exits), a test's is finished first.
  ~Tracer();
  // Loads what the settings name (suppressions, kernel summaries), opens the trace and starts
  // the tracer thread; a failure disables the tracer with one line.
  void start();

  // The Recorder's (recorder.h).
  void record(std::string_view api, Payload payload,
              std::vector<KernelPointer> kernel_pointers = {}) override;
  void record_from_framework(std::string_view api, Payload payload) override;
  void record_graph_build(std::string_view api, GraphBuildCall call,
                          std::vector<KernelPointer> kernel_pointers = {}) override;
  void push(CapturedCall call) override;
  void queue(CapturedCall call) override;
  NameId intern_name(std::string_view text) override;
  void record_host_access(Address address, std::uint64_t size, bool write,
                          const RawStack& stack) override;
  void record_hand_off(std::string_view api, Payload payload) override;
  void disable(std::string_view reason) override;
  void refuse(std::string_view problem) override;
  bool enabled() const override { return enabled_.load(std::memory_order_relaxed); }

  // The watchdog's verdict: the detector made no progress for `watchdog_seconds` while the
  // program waited for it. Stops tracing with one line saying so; the program goes on.
  void give_up_on_stalled_detector();
  // How many calls have been taken off the ring so far.
  std::uint64_t calls_taken() const { return progress_.load(std::memory_order_relaxed); }
  // The in-process engine, for a caller that knows no thread is using it: after finish().
  const Engine& engine() const { return *engine_; }

  // At normal exit: processes what is queued, settles findings, writes symbolized call sites,
  // prints the report.
  void finish();
  // Before _exit(), which skips atexit handlers: as finish(), but not in a vfork() child (it
  // borrows this process's memory) and without waiting long for the engine's lock, which the
  // calling thread may hold if it exits from a signal handler.
  void finish_before_immediate_exit();
  // From a fatal signal handler, async-signal-safe: asks the tracer thread to process and write
  // what is queued, and waits for it, but not for ever (crash_flush.h).
  void flush_for_crash();
  // fork() handlers: the locks are held across the fork so the child does not inherit them
  // locked mid-event; the child stops tracing (its trace file and queued events are the
  // parent's, and it has no tracer thread), and a program it execs is traced afresh.
  void before_fork();
  void after_fork_in_parent();
  void after_fork_in_child();

  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

private:
  // Stops tracing; true for the first caller of all, who says why in one line.
  bool stop_tracing();
  void run_tracer_thread();
  // Processes queued calls, up to `limit`; the caller holds engine_mutex_. Returns how many
  // there were.
  std::size_t drain(std::size_t limit = SIZE_MAX);
  // back_pressure.cpp. The calling thread's side of a full ring: waits for room (block_on_full)
  // and returns false if it gave up on a stalled detector; or waits full_ring_wait_us at most,
  // then queues the call behind a pause.
  bool wait_for_room(CapturedCall& call);
  void push_within_bound(CapturedCall& call);
  // CallQueue::queue_behind_pause, waiting for a full overflow while tracing goes on and the
  // detector moves (the call is dropped with the rest once it stops).
  bool queue_behind_pause(CapturedCall& call, CallQueue::Pausing pausing);
  // The tracer's side: processes the overflow's calls with their accesses unchecked, or, once
  // it is empty, resumes checking. Returns how many calls it processed.
  std::size_t drain_overflow();
  // Processes the ring's calls up to the slots claimed so far, waiting for the ones claimed but
  // not yet published; called with a batch of the overflow taken, before it is processed.
  std::size_t drain_claimed_ring();
  // Counts a call taken off the ring or the overflow, then processes it unless tracing ended.
  void process_taken(CapturedCall& call);
  void process(CapturedCall& call);
  // Processes what describes a hand-built graph (hand_built_graphs.h) to the engine, as calls of
  // `call`'s thread at its time.
  void process_steps(std::vector<HandBuiltGraphs::Step> steps, const CapturedCall& call);
  // A node of an executable made from a captured graph was given new parameters: said once.
  void warn_unfollowed_setter(std::string_view api);
  // Stamps `call` with the calling thread, time and stack, then queues it.
  void record_here(std::string_view api, CapturedCall call,
                   std::vector<KernelPointer> kernel_pointers);
  void process_event(Event& event, bool new_site);
  // Right after a watched host function's launch: waits for it to run, then checks what it
  // touched as ops of its stream at that point (host_function_runs.h).
  void check_host_function(HostFunctionRun& run, StreamHandle stream, std::uint64_t time_ns);
  // Right before a graph launch: waits for the runs it handed the executable's watched host
  // nodes, and gives the engine what each touched (graph_host_nodes.h).
  void check_graph_host_nodes(const CapturedCall& launch);
  // Whether the run ended in time; else it is given up on, with one warning per process.
  bool await_host_function(HostFunctionRun& run);
  // Gives the engine the run's releases (or acquires) as its stream's at the function's place,
  // or, for a late run (HostFunction::run), at the place the engine kept for it.
  enum class HandOffSide { Acquires, Releases };
  void place_hand_offs(const HostFunctionRun& run, StreamHandle stream, std::uint64_t time_ns,
                       HandOffSide side, std::uint64_t late_run);
  // Gives the engine the hand-offs of late runs that ended: of the oldest ones (cheap, after
  // each call), of every one, or, at the end, of every one after a bounded wait.
  enum class LateRunCollection { Oldest, Ended, All };
  void collect_late_runs(LateRunCollection which);
  // Tells the engine, before `event`, that its thread works on `device` in its rank when the
  // engine believes otherwise: a thread driving several devices selects them in one rank's view
  // only, and the other ranks' default streams and device-wide waits must name the right device.
  void select_device(const Event& event, DeviceId device, bool& new_site);
  // The end of finish(), under engine_mutex_.
  void finish_locked();
  // On the tracer thread, when a fatal signal handler asked: processes what is queued and writes
  // the trace, then tells the handler.
  void flush_for_signal_handler();
  // Takes engine_mutex_, waiting 200 ms at most (the tracer thread lets go of it after every
  // batch); never on the tracer thread, whose lock it may be.
  bool lock_engine_briefly();
  void halt_if_found();
  // Whether the engine checks the calls in this process, or only the trace records them (for
  // `streamrace report` to check); halting at a finding needs them checked here.
  bool detecting() const {
    return settings_.tracer.online_detection || settings_.tracer.halt_on_error;
  }
  // Prints the findings since the last report that the suppressions leave; returns how many.
  // At exit, only when the settings ask for a report then.
  enum class ReportMoment { Halting, AtExit };
  std::size_t report_findings(const Engine& engine, ReportMoment moment);

  std::atomic<bool> enabled_{true};
  // The traced process: a vfork() child shares its memory, tracer included, but not its pid.
  pid_t pid_ = 0;
  std::atomic<bool> disabled_reported_{false};
  Settings settings_;
  std::function<std::uint64_t()> clock_;
  std::function<std::unique_ptr<trace::TraceSink>()> open_trace_;
  RankId first_rank_ = 0;
  RankId rank_stride_ = 1;
  std::function<void()> halt_;
  // The suppressions file of the settings: findings it hides are neither printed nor halted on, as
  // `streamrace report` leaves them out of its report and exit status.
  std::optional<Suppressions> suppressions_;

  // The hand-off (ring_capacity and overflow_capacity settings). A program that makes calls
  // faster than the tracer thread processes them finds the ring full: back_pressure.cpp.
  std::unique_ptr<CallQueue> queue_;
  std::atomic<bool> stopping_{false};
  // Calls taken off the ring so far, and whether the tracer thread has returned: what the
  // watchdog (stall_watch.h) looks at.
  std::atomic<std::uint64_t> progress_{0};
  std::atomic<bool> tracer_thread_done_{false};
  // The tracer thread's kernel thread id, which a signal handler can compare with its own
  // without touching thread-local storage.
  std::atomic<pid_t> tracer_thread_tid_{0};
  // Fatal signal handlers that asked the tracer thread to flush, and how many of those asks it
  // has answered: the handler waits for its own ask to be answered.
  std::atomic<std::uint64_t> crash_flushes_asked_{0};
  std::atomic<std::uint64_t> crash_flushes_done_{0};
  std::mutex wake_mutex_;
  std::condition_variable wake_;
  std::thread tracer_thread_;
  std::thread::id tracer_thread_id_; // stays what it was once the thread is joined

  // Everything below is the tracer thread's (or, once it stopped, finish()'s), under this lock.
  std::mutex engine_mutex_;
  std::unique_ptr<Engine> engine_;
  CallSiteTable sites_;
  std::unique_ptr<trace::TraceWriter> writer_;
  KernelAccessResolver kernel_accesses_;
  std::unique_ptr<RankAssignment> ranks_;
  HandBuiltGraphs hand_built_graphs_;
  bool warned_unfollowed_setter_ = false; // tracer thread only
  // The device the engine believes each (rank, host thread) has selected (0 until told).
  std::map<std::pair<RankId, ThreadId>, DeviceId> selected_devices_;
  std::vector<Access> scratch_accesses_;
  std::uint64_t last_time_ns_ = 0;
  bool finished_ = false;
  bool late_host_function_reported_ = false;
  // Unwatched host functions that had not run when their launch was processed (tracer thread
  // only).
  struct LateRun {
    std::uint64_t id = 0;
    StreamHandle stream = 0;
    ThreadId launcher = 0;
    std::shared_ptr<HostFunctionRun> run;
  };
  std::vector<LateRun> late_runs_;
  std::uint64_t late_run_count_ = 0;
  std::size_t findings_reported_ = 0;

  // Names (kernels, NVTX ranges) are interned on the calling threads; call sites live in
  // sites_ until a report needs them.
  std::mutex names_mutex_;
  SymbolTable names_;
  std::atomic<std::size_t> names_version_{0};
  std::size_t names_written_version_ = 0;
};

} // namespace streamrace::tracer
