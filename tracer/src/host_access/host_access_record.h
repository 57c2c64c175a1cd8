// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Whose access of watched memory a load, a store or a system call is, and where it goes
// (`watch_host_accesses`): a host function's is kept in its run (host_function_runs.h), the
// program's own is queued as a host access of the calling thread, and the runtime's is not
// recorded. Safe in the SIGSEGV handler: no lock, no allocation (tracer.h queues a host access
// without one).
#pragma once

#include "stacks/call_sites.h"

#include "streamrace/engine/event.h"

namespace streamrace::tracer {

// The calling thread's stack from `code` outwards: the frames above it are the tracer's (and, in
// the fault handler, the signal trampoline's). `code` is a faulting instruction, or the return
// address into the program of a call the tracer intercepted.
void capture_stack_from(void* code, RawStack& stack);

// The calling thread touched `size` watched bytes at `address` (written when `write`), from the
// code at the top of `stack`.
void record_watched_access(Address address, std::uint64_t size, bool write, RawStack& stack);

} // namespace streamrace::tracer
