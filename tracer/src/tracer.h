// The process-wide tracer: every front end (CUPTI callbacks, NCCL wrappers) hands it decoded
// events; it stamps them (rank, thread, call site, time), runs them through one in-process
// engine under one lock, appends them to this process's trace file, and reports at exit.
// It fails open: the first internal error disables it with one line on stderr.
#pragma once

#include "call_sites.h"

#include "streamrace/runtime/engine.h"
#include "streamrace/runtime/event.h"
#include "streamrace/runtime/symbols.h"
#include "streamrace/trace/trace_writer.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string_view>

namespace streamrace::tracer {

class Tracer {
public:
  // The process's tracer, created on first use; null when tracing is (or became) disabled.
  static Tracer* get();

  // Stamps and processes one event of the API `api` (a name from the API model, which
  // outlives the tracer), with the calling thread's stack as its call site.
  void record(std::string_view api, Payload payload);
  NameId intern_name(std::string_view text);

  // Stops tracing with one line on stderr; safe from any thread, any number of times.
  void disable(std::string_view reason);
  bool enabled() const { return enabled_.load(std::memory_order_relaxed); }

  // At normal exit: settles findings, writes symbolized call sites, prints the report.
  void finish();
  // From a fatal signal handler: writes what is buffered, if the lock is free.
  void flush_for_crash();
  // fork() handlers: the lock is held across the fork so the child does not inherit it
  // locked mid-event; the child stops tracing (its trace file and buffered records are the
  // parent's), and a program it execs is traced afresh.
  void before_fork();
  void after_fork_in_parent();
  void after_fork_in_child();

  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

private:
  Tracer();
  void start();
  void report_findings(const Engine& engine, bool final);

  std::atomic<bool> enabled_{true};
  std::atomic<bool> disabled_reported_{false};
  std::mutex mutex_;
  Options options_;
  std::unique_ptr<Engine> engine_;
  SymbolTable names_; // names only: call sites live in sites_ until a report needs them
  CallSiteTable sites_;
  std::unique_ptr<trace::TraceWriter> writer_;
  RankId rank_ = 0;
  bool finished_ = false;
  std::size_t findings_reported_ = 0;
};

// Marks the calling thread as inside an intercepted library call (NCCL) for the guard's
// lifetime, so the CUDA calls the library makes on its own behalf are not traced twice.
class InsideLibraryCall {
public:
  InsideLibraryCall();
  ~InsideLibraryCall();
  InsideLibraryCall(const InsideLibraryCall&) = delete;
  InsideLibraryCall& operator=(const InsideLibraryCall&) = delete;
  static bool active();
};

// Subscribes to CUPTI once per process, whichever attach path gets there first; returns false
// when CUPTI is unavailable (the tracer then sees NCCL only).
bool attach_cupti();

} // namespace streamrace::tracer
