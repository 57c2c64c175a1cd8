// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// _exit() and _Exit() end the process without atexit handlers, so a preloaded tracer defines
// them: the process's queued events, trace and report are finished first. Programs use them
// on purpose (os._exit() after a distributed job, to skip a teardown that may hang).
#pragma once

namespace streamrace::tracer {

// The C library's _exit(), past the tracer's own: for the tracer's exits, which must not
// finish the tracer that decided to exit.
[[noreturn]] void exit_without_finishing(int status);

} // namespace streamrace::tracer
