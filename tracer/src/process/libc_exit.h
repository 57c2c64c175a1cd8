// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The C library's _exit() and _Exit(), past the tracer's own definitions of them
// (process_hooks.cpp): for the tracer's exits, which must not finish the tracer that decided to
// exit, and for those definitions once they did.
#pragma once

namespace streamrace::tracer {

[[noreturn]] void libc_exit(int status);
[[noreturn]] void libc_exit_c99(int status);

} // namespace streamrace::tracer
