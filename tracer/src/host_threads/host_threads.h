// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host threads handing work to each other (docs/semantics.md rule 16). The preloaded tracer
// defines the POSIX synchronization functions a program calls — mutexes, condition variables,
// semaphores, thread creation and joining — and forwards each to the C library's, turning it
// into HostRelease/HostAcquire events, as ThreadSanitizer does. Only threads that made a CUDA or
// NCCL call take part, and nothing inside a CUDA or NCCL call or the tracer itself counts.
#pragma once

namespace streamrace::tracer {

class Recorder;

// Called by the tracer for every event a thread records, before it queues it: the thread's first
// event makes it a GPU thread, whose hand-offs count from then on, and first acquires the
// creation hand-off its parent released. Each event may change the thread's clock, which the
// hand-off filter needs to know.
void note_gpu_thread(Recorder& tracer);
// Whether the calling thread has made a CUDA or NCCL call (its hand-offs count).
bool is_gpu_thread();
// Whether `code` lies in a CUDA, NCCL or NVTX library, PyTorch's (or this one): what it does is
// the library's own business, not the program's. Lock-free after an image's first lookup.
bool in_runtime_library(const void* code);

// Marks the calling thread as running the tracer's own code for the guard's lifetime: its locks
// are the tracer's, not the program's.
class InsideTracer {
public:
  InsideTracer() { enter(); }
  ~InsideTracer() { leave(); }
  InsideTracer(const InsideTracer&) = delete;
  InsideTracer& operator=(const InsideTracer&) = delete;
  static bool active();
  // For spans that are not one scope: fork(), from its prepare handler to its parent or child
  // handler (what the C library and the atfork handlers lock and unlock in between is theirs).
  static void enter();
  static void leave();
};

} // namespace streamrace::tracer
