// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "process/libc_exit.h"

#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace streamrace::tracer {

namespace {

using ExitFunction = void (*)(int);

// Resolved when the library loads: by the time a vfork() child or a signal handler exits,
// looking a symbol up (the loader's lock, malloc) is no longer safe. _Exit is C99's name.
const ExitFunction kNextExit = reinterpret_cast<ExitFunction>(dlsym(RTLD_NEXT, "_exit"));
const ExitFunction kNextExitC99 = reinterpret_cast<ExitFunction>(dlsym(RTLD_NEXT, "_Exit"));

[[noreturn]] void exit_through(ExitFunction next, int status) {
  if (next != nullptr) next(status);
  // No later definition (never seen with glibc): end every thread as _exit() does.
  for (;;)
    syscall(SYS_exit_group, status);
}

} // namespace

void libc_exit(int status) {
  exit_through(kNextExit, status);
}

void libc_exit_c99(int status) {
  exit_through(kNextExitC99, status);
}

} // namespace streamrace::tracer
