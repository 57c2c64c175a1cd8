// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The host's own loads and stores of pinned and managed memory (the `watch_host_accesses`
// setting). The tracer sees API calls only; a program that reads the pinned destination of a
// copy still in flight does so with a plain load. So when device work that uses pinned or managed
// memory is enqueued, the pages it uses lose all access (work that only reads them too: the
// table keeps no per-page state, and a page an earlier write still uses must stay closed); the
// program's first touch of such a page faults, the fault handler (host_fault_handler.cpp)
// records it as a host read or write of the faulting thread and gives the page back, and the
// next enqueue that uses it protects it again.
#pragma once

#include "kernels/kernel_rules.h"

#include "streamrace/engine/event.h"

#include <atomic>
#include <cstdint>
#include <span>

namespace streamrace::tracer {

// What the fault handler should do with a fault on a protected page.
enum class FaultVerdict : std::uint8_t {
  NotOurs,    // no page this table protected: the program's own fault
  Restored,   // ours, and nothing to record (not the program's access of a watched byte)
  HostAccess, // ours: the program read or wrote a watched byte
  Refused,    // ours, but the kernel would not give the page back: the access cannot go on
};

// Pinned and managed allocations, and the protection of their pages. A fixed table that the
// fault handler reads without a lock or an allocation; changed by the threads that make the
// calls, under a spin flag.
class WatchedMemory {
public:
  static WatchedMemory& instance();

  // Turns watching on (once, from the tracer's start). False, with a reason, when this process
  // cannot watch (not x86-64, where a fault does not tell a read from a write).
  static bool enable(const char*& reason);
  static bool enabled();

  // On the calling thread, before the event is queued: allocations join or leave the table,
  // and device work protects the watched pages it uses.
  void observe(const Payload& payload, std::span<const KernelPointer> kernel_pointers);

  // Before a graph is launched: the calling thread does not know what the graph's nodes use, so
  // every watched page is closed.
  void protect_all();

  // From the SIGSEGV handler: a fault at `address`, a write when `write`. Gives the page back
  // (read-only after a read, so that a later write is seen too) when it is ours.
  FaultVerdict on_fault(std::uintptr_t address, bool write);

  // Before a system call reads (or, when `kernel_writes`, writes) [begin, begin + size): the
  // kernel does not fault on a protected page, it fails the call with EFAULT, so the watched
  // pages of the range are given back first, as a fault would have given them. Returns whether
  // any byte of the range is watched.
  bool open_for_kernel(std::uintptr_t begin, std::uint64_t size, bool kernel_writes);
  // Whether any byte of [begin, begin + size) is watched.
  bool watches(std::uintptr_t begin, std::uint64_t size);

  // Allocations whose watching was given up because the kernel refused to change their pages'
  // protection, and the first refusal's errno (0: none). Protecting pages one by one splits the
  // process's mappings, and a process at its mapping limit (vm.max_map_count) gets ENOMEM.
  struct Refusals {
    std::size_t allocations = 0;
    int first_error = 0;
  };
  Refusals refusals() const;

private:
  struct Range {
    std::atomic<std::uintptr_t> begin{0}; // 0: a free slot
    std::atomic<std::uintptr_t> end{0};
    std::atomic<bool> armed{false};    // some of its pages were protected by this table
    std::atomic<bool> given_up{false}; // the kernel refused a change: all its pages given back
  };
  static constexpr std::size_t kRanges = 4096;

  void add(Address base, std::uint64_t size);
  void remove(Address base, bool give_pages_back);
  // Protects the pages of [begin, begin + size) that hold watched bytes.
  void protect(Address begin, std::uint64_t size);
  // `bytes` 0: from `address` to the end of its allocation.
  void protect_to_end(Address address, std::uint64_t bytes);
  // The range whose pages hold `address` (its bytes, or others on its first or last page).
  Range* find_page_of(std::uintptr_t address);
  // Gives [first, last) of the range's pages `protection`; when the kernel refuses, gives all
  // the range's pages back in one call (which merges their mappings instead of splitting them)
  // and stops watching it. False when even that is refused. Async-signal-safe.
  bool give_back(Range& range, std::uintptr_t first, std::uintptr_t last, int protection);
  void give_up(Range& range, int error);

  // The slots in use lie below this mark: lookups, which a system call on any buffer makes, scan
  // no further.
  std::span<Range> used() { return {ranges_, used_.load(std::memory_order_acquire)}; }

  Range ranges_[kRanges];
  std::atomic<std::size_t> used_{0};
  // Taken by the calling threads that change the table; the fault handler only reads it.
  std::atomic_flag changing_ = ATOMIC_FLAG_INIT;
  std::atomic<std::size_t> refused_allocations_{0};
  std::atomic<int> first_refusal_{0};
};

// At the end of a run: one line when the kernel refused to protect or give back the pages of
// some allocations, whose host accesses then went unseen.
void warn_if_watching_refused();

} // namespace streamrace::tracer
