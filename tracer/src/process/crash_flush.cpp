// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The trace's last flush when a fatal signal ends the process. The handler may interrupt any
// code, the allocator's and the C library's included, so it does nothing a signal handler may
// not: it raises a request in an atomic counter, then waits for the tracer thread to answer it,
// polling with clock_gettime and nanosleep (both async-signal-safe). The tracer thread, which
// looks at the counter between batches and at least every 2 ms while idle, processes what is
// queued and writes the trace: the allocating work happens on a thread the signal did not
// interrupt. The wait is bounded, since the tracer thread may be what is stuck (or wait for a
// lock the interrupted thread holds); past the bound, or when the signal hit the tracer thread
// itself, the handler gives up with one line written by write(2), and the trace keeps the
// records written before.
#include "tracer.h"

#include <cstring>
#include <ctime>
#include <sys/syscall.h>
#include <unistd.h>

namespace streamrace::tracer {

namespace {

constexpr std::uint64_t kFlushBoundNs = 2'000'000'000;
constexpr long kPollNs = 100'000;

std::uint64_t monotonic_ns() {
  timespec time{};
  clock_gettime(CLOCK_MONOTONIC, &time);
  return static_cast<std::uint64_t>(time.tv_sec) * 1'000'000'000ull +
         static_cast<std::uint64_t>(time.tv_nsec);
}

void write_line(const char* line) {
  // Nothing to do when stderr is gone: the process is dying either way.
  [[maybe_unused]] const ssize_t written = write(STDERR_FILENO, line, std::strlen(line));
}

} // namespace

void Tracer::flush_for_crash() {
  // A forked child's queue and trace are the parent's; a stopped or disabled tracer has no
  // thread to ask (and at exit, finish() has written everything already).
  if (getpid() != pid_ || !enabled() || tracer_thread_done_.load()) return;
  if (static_cast<pid_t>(syscall(SYS_gettid)) == tracer_thread_tid_.load()) {
    write_line("streamrace: a fatal signal hit the tracer thread; the trace keeps what was "
               "written before it\n");
    return;
  }
  const std::uint64_t ask = crash_flushes_asked_.fetch_add(1) + 1;
  const std::uint64_t deadline = monotonic_ns() + kFlushBoundNs;
  while (crash_flushes_done_.load() < ask) {
    if (tracer_thread_done_.load() || monotonic_ns() > deadline) {
      write_line("streamrace: the tracer thread did not write the trace within 2 s of a fatal "
                 "signal; the trace keeps what was written before\n");
      return;
    }
    const timespec pause{0, kPollNs};
    nanosleep(&pause, nullptr);
  }
}

void Tracer::flush_for_signal_handler() {
  const std::uint64_t asked = crash_flushes_asked_.load();
  if (asked == crash_flushes_done_.load()) return;
  try {
    std::lock_guard lock(engine_mutex_);
    if (!finished_) {
      drain();
      if (writer_) writer_->flush();
    }
  } catch (const std::exception&) { // NOLINT(bugprone-empty-catch): nothing is left to do
    // The process is dying of its own fault; a trace that cannot be written stays a prefix.
  }
  crash_flushes_done_.store(asked);
}

} // namespace streamrace::tracer
