// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The tracer's place in the process: the one tracer, created on first use from the process's
// environment (read here and nowhere else in the tracer) with the wall clock and a trace file
// of its own, and the hooks that finish or flush it
// however the process ends — at exit, quick_exit, _exit()/_Exit(), a fatal signal — and that
// carry it across fork().
#include "calling_thread.h"
#include "tracer.h"

#include "host_access/host_fault_handler.h"
#include "host_access/watched_memory.h"
#include "process/libc_exit.h"

#include "streamrace/trace/trace_format.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <memory>
#include <pthread.h>
#include <string>
#include <unistd.h>

namespace streamrace::tracer {

namespace {

// Signals whose default action ends the process; their handler flushes the trace first.
struct FlushingSignal {
  int number;
  // Crashes, and SIGTERM (launchers stop the other ranks of a failed job with it), are
  // flushed ahead of a handler the program installed too. A terminal's interrupt, quit and
  // hangup only while left at their default: a program that handles them (Python turns
  // SIGINT into KeyboardInterrupt) lives on, and exits through atexit if it exits.
  bool ahead_of_handlers;
};
constexpr FlushingSignal kFlushingSignals[] = {{SIGABRT, true}, {SIGSEGV, true},  {SIGBUS, true},
                                               {SIGFPE, true},  {SIGILL, true},   {SIGTERM, true},
                                               {SIGINT, false}, {SIGQUIT, false}, {SIGHUP, false}};
struct sigaction previous_actions[std::size(kFlushingSignals)];
// The tracer these hooks serve, once it started.
Tracer* installed_tracer = nullptr;

// Whether `signal` came from the instruction the thread was running (a fault) rather than from
// kill, raise or abort: then returning runs the instruction again, and it faults again.
bool raised_by_the_instruction(int signal, const siginfo_t* info) {
  const bool fault_signal =
      signal == SIGSEGV || signal == SIGBUS || signal == SIGFPE || signal == SIGILL;
  return fault_signal && info != nullptr && info->si_code > 0;
}

void on_flushing_signal(int signal, siginfo_t* info, void*) {
  if (installed_tracer != nullptr) installed_tracer->flush_for_crash();
  // Hand the signal to whoever had it before, so the program dies (or recovers) as it would
  // have without the tracer, with the same status. A fault is left to happen again, so that the
  // program's handler gets the kernel's own account of it (the faulting address, the cause); a
  // signal someone sent is sent again.
  for (std::size_t i = 0; i < std::size(kFlushingSignals); ++i)
    if (kFlushingSignals[i].number == signal) sigaction(signal, &previous_actions[i], nullptr);
  if (raised_by_the_instruction(signal, info)) return;
  raise(signal);
}

void install_flushing_signal_handlers() {
  struct sigaction action{};
  action.sa_sigaction = on_flushing_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER;
  for (std::size_t i = 0; i < std::size(kFlushingSignals); ++i) {
    struct sigaction current{};
    sigaction(kFlushingSignals[i].number, nullptr, &current);
    const bool plain = (current.sa_flags & SA_SIGINFO) == 0;
    // An ignored signal ends nothing, and programs the process execs must inherit it ignored
    // (nohup, `cmd &` in a script): a handler would be reset to the default across exec.
    const bool ignored = plain && current.sa_handler == SIG_IGN;
    const bool by_default = plain && current.sa_handler == SIG_DFL;
    if (ignored || (!by_default && !kFlushingSignals[i].ahead_of_handlers)) continue;
    // Watching host accesses, SIGSEGV is the fault handler's: it flushes a fault that is not
    // its own before handing it on.
    if (kFlushingSignals[i].number == SIGSEGV && host_fault_handler_installed()) continue;
    sigaction(kFlushingSignals[i].number, &action, &previous_actions[i]);
  }
}

void finish_at_exit() {
  if (Tracer* tracer = Tracer::get()) tracer->finish();
}

void prepare_fork() {
  if (installed_tracer != nullptr) installed_tracer->before_fork();
}
void parent_after_fork() {
  if (installed_tracer != nullptr) installed_tracer->after_fork_in_parent();
}
void child_after_fork() {
  if (installed_tracer != nullptr) installed_tracer->after_fork_in_child();
}

void install_process_hooks(Tracer* tracer) {
  installed_tracer = tracer;
  std::atexit(finish_at_exit);
  std::at_quick_exit(finish_at_exit);
  if (WatchedMemory::enabled()) install_host_fault_handler(*tracer);
  install_flushing_signal_handlers();
  pthread_atfork(prepare_fork, parent_after_fork, child_after_fork);
}

void finish_before_immediate_exit() {
  if (Tracer* tracer = Tracer::running()) tracer->finish_before_immediate_exit();
}

// torchrun and the launchers that imitate it name each process's rank in RANK.
RankId rank_from_environment() {
  const char* rank = std::getenv("RANK");
  return rank != nullptr ? static_cast<RankId>(std::strtoul(rank, nullptr, 10)) : 0;
}

// How many processes a launcher started (torchrun, Open MPI, PMI, Slurm); 1 for a process on
// its own. Under several, the other ranks' collectives happen elsewhere and meet only in the
// merged report; a process on its own holds every rank of its communicators, and they meet in
// process.
RankId processes_from_environment() {
  for (const char* size : {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"})
    if (const char* value = std::getenv(size); value != nullptr)
      if (const unsigned long count = std::strtoul(value, nullptr, 10); count > 1)
        return static_cast<RankId>(count);
  return 1;
}

// The process's trace file in `directory`, named for its host and pid so that the processes of
// a job on several machines write side by side.
std::unique_ptr<trace::TraceSink> open_trace_file(const std::string& directory) {
  std::filesystem::create_directories(directory);
  char host[256] = "host";
  gethostname(host, sizeof host - 1);
  return std::make_unique<trace::FileTraceSink>(
      directory + "/" + host + "-" + std::to_string(getpid()) + trace::kTraceFileExtension);
}

// The process's tracer as its environment describes it; `problem` says what in the settings
// could not be used.
TracerSetup setup_from_environment(std::string& problem) {
  TracerSetup setup;
  setup.rank_stride = processes_from_environment();
  setup.settings.engine.cross_rank_ordering = setup.rank_stride == 1;
  problem = apply_environment(setup.settings);
  setup.first_rank = rank_from_environment();
  setup.clock = wall_clock_ns;
  if (std::string directory = setup.settings.tracer.output_dir; !directory.empty())
    setup.open_trace = [directory = std::move(directory)] { return open_trace_file(directory); };
  setup.halt = [] {
    std::fflush(nullptr);
    libc_exit(66);
  };
  return setup;
}

} // namespace

Tracer* Tracer::get() {
  // Never destroyed: runtime threads may still call back while the process exits.
  static Tracer* const tracer = [] {
    std::string problem;
    Tracer* created = std::make_unique<Tracer>(setup_from_environment(problem)).release();
    if (problem.empty())
      created->start();
    else
      created->refuse(problem);
    if (created->enabled()) install_process_hooks(created);
    return created;
  }();
  return tracer->enabled() ? tracer : nullptr;
}

Tracer* Tracer::running() {
  Tracer* tracer = installed_tracer;
  return tracer != nullptr && tracer->enabled() ? tracer : nullptr;
}

Recorder* Recorder::get() {
  return Tracer::get();
}

Recorder* Recorder::running() {
  return Tracer::running();
}

} // namespace streamrace::tracer

// _exit() and _Exit() end the process without atexit handlers, so a preloaded tracer defines
// them: the process's queued events, trace and report are finished first. Programs use them
// on purpose (os._exit() after a distributed job, to skip a teardown that may hang). Each
// definition repeats its declaration in glibc's headers, exception specification included:
// _exit is a cancellation point and is declared without __THROW, _Exit with it.
extern "C" __attribute__((visibility("default"))) void _exit(int status) {
  streamrace::tracer::finish_before_immediate_exit();
  streamrace::tracer::libc_exit(status);
}

extern "C" __attribute__((visibility("default"))) void _Exit(int status) noexcept {
  streamrace::tracer::finish_before_immediate_exit();
  streamrace::tracer::libc_exit_c99(status);
}
