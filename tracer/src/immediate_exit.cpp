// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "immediate_exit.h"

#include "tracer.h"

#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace streamrace::tracer {

namespace {

using ExitFunction = void (*)(int);

// Resolved when the library loads: by the time a vfork() child or a signal handler exits,
// looking a symbol up (the loader's lock, malloc) is no longer safe. _Exit is C99's name.
const ExitFunction next_exit = reinterpret_cast<ExitFunction>(dlsym(RTLD_NEXT, "_exit"));
const ExitFunction next_exit_c99 = reinterpret_cast<ExitFunction>(dlsym(RTLD_NEXT, "_Exit"));

[[noreturn]] void exit_through(ExitFunction next, int status) {
  if (next != nullptr) next(status);
  // No later definition (never seen with glibc): end every thread as _exit() does.
  for (;;)
    syscall(SYS_exit_group, status);
}

void finish_tracer() {
  if (Tracer* tracer = Tracer::running()) tracer->finish_before_immediate_exit();
}

} // namespace

void exit_without_finishing(int status) {
  exit_through(next_exit, status);
}

} // namespace streamrace::tracer

// Each definition repeats its declaration in glibc's headers, exception specification included:
// _exit is a cancellation point and is declared without __THROW, _Exit with it.
extern "C" __attribute__((visibility("default"))) void _exit(int status) {
  streamrace::tracer::finish_tracer();
  streamrace::tracer::exit_through(streamrace::tracer::next_exit, status);
}

extern "C" __attribute__((visibility("default"))) void _Exit(int status) noexcept {
  streamrace::tracer::finish_tracer();
  streamrace::tracer::exit_through(streamrace::tracer::next_exit_c99, status);
}
