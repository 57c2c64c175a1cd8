// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The SIGSEGV handler of the `watch_host_accesses` mode (watched_memory.h): a fault on a page the
// tracer protected becomes a host read or write of the faulting thread; any other fault goes to
// the handler the program has (or would have) for it, as if the tracer were not there.
#pragma once

namespace streamrace::tracer {

class Tracer;

// Installs the handler once, in front of whatever the process had. From then on the preloaded
// `sigaction` and `signal` keep it first: a handler the program installs for SIGSEGV becomes the
// one faults that are not the tracer's are handed to, and what they report back is the
// program's own.
void install_host_fault_handler(Tracer& tracer);

// Whether the handler is installed (process_hooks.cpp then leaves SIGSEGV to it).
bool host_fault_handler_installed();

} // namespace streamrace::tracer
