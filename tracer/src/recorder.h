// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The narrow face the tracer shows its entry points (the CUDA, NCCL, NVTX, Python and host-thread
// hooks): record what a call did, or stop tracing. The queue, the tracer thread and the engine
// behind it are the Tracer's (tracer.h), which only the process's hooks and the tracer's own files
// include.
#pragma once

#include "queue/captured_call.h"

#include "streamrace/engine/event.h"
#include "streamrace/engine/symbols.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace streamrace::tracer {

class Recorder {
public:
  // The process's recorder, created on first use; null when tracing is (or became) disabled.
  static Recorder* get();
  // The recorder if one started and is still enabled; never starts one.
  static Recorder* running();

  // Queues one event of the API `api` (a name from the API model, which outlives the tracer),
  // with the calling thread's stack as its call site. A kernel launch passes the pointers among
  // its arguments, which become accesses once the tracer thread knows the allocations.
  virtual void record(std::string_view api, Payload payload,
                      std::vector<KernelPointer> kernel_pointers = {}) = 0;
  // An event a framework reports from inside its own machinery (PyTorch's caching allocator
  // calling back its trace tracker): the native stack is the framework's, so the call site is
  // only the Python lines of the op it happens in (op_scopes.h), and no stack is walked.
  virtual void record_from_framework(std::string_view api, Payload payload) = 0;
  // Queues a call that builds a graph node by node (hand_built_graphs.h); a kernel node passes
  // the pointers among its arguments, as a launch does.
  virtual void record_graph_build(std::string_view api, GraphBuildCall call,
                                  std::vector<KernelPointer> kernel_pointers = {}) = 0;
  // Queues a call captured earlier on this thread (held in an op until it ended, op_scopes.h).
  // When the ring is full: with block_on_full, waits (or processes the ring itself), but not for
  // a detector that stopped moving (stall_watch.h); else waits full_ring_wait_us at most, then
  // pauses access checking (back_pressure.cpp).
  virtual void push(CapturedCall call) = 0;
  // Queues a call recorded on this thread and held back until now (a host function launched
  // into a capture, graph_host_nodes.h), into the thread's op if it is in one.
  virtual void queue(CapturedCall call) = 0;
  virtual NameId intern_name(std::string_view text) = 0;
  // The calling thread loaded from or stored to `size` bytes at `address`, at `stack`, in watched
  // memory: a fault (host_fault_handler.h) or a system call given the bytes (syscall_buffers.cpp).
  virtual void record_host_access(Address address, std::uint64_t size, bool write,
                                  const RawStack& stack) = 0;
  // Queues a host thread's hand-off (host_threads.h): no call site, since a lock taken a
  // thousand times a second must cost little, and a report names the CUDA calls around it.
  virtual void record_hand_off(std::string_view api, Payload payload) = 0;

  // Stops tracing with one line on stderr; safe from any thread, any number of times.
  virtual void disable(std::string_view reason) = 0;
  // The same for a problem that is not the tracer's but the user's or the machine's (settings
  // that cannot be used, a libcupti missing or held by another tool): said as an error to act
  // on, not an internal one.
  virtual void refuse(std::string_view problem) = 0;
  virtual bool enabled() const = 0;

protected:
  Recorder() = default;
  // Not deleted through this face: the process's recorder lives as long as the process.
  ~Recorder() = default;
  Recorder(const Recorder&) = default;
  Recorder& operator=(const Recorder&) = default;
};

} // namespace streamrace::tracer
