// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "host_access/watched_memory.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <sys/mman.h>
#include <type_traits>
#include <unistd.h>
#include <variant>

namespace streamrace::tracer {

namespace {

std::atomic<bool> watching{false};
std::uintptr_t page_size = 4096;

std::uintptr_t page_of(std::uintptr_t address) {
  return address & ~(page_size - 1);
}
std::uintptr_t page_end_of(std::uintptr_t address) {
  return page_of(address + page_size - 1);
}

// The bytes a copy or set side spans, rows and slices with the gaps between them.
std::uint64_t span(std::uint64_t width, std::uint64_t height, std::uint64_t pitch,
                   std::uint64_t depth, std::uint64_t slice_pitch) {
  if (width == 0 || height == 0 || depth == 0) return 0;
  return (depth - 1) * slice_pitch + (height - 1) * pitch + width;
}

class SpinGuard {
public:
  explicit SpinGuard(std::atomic_flag& flag) : flag_(flag) {
    while (flag_.test_and_set(std::memory_order_acquire)) {
    }
  }
  ~SpinGuard() { flag_.clear(std::memory_order_release); }
  SpinGuard(const SpinGuard&) = delete;
  SpinGuard& operator=(const SpinGuard&) = delete;

private:
  std::atomic_flag& flag_;
};

} // namespace

WatchedMemory& WatchedMemory::instance() {
  static WatchedMemory table;
  return table;
}

bool WatchedMemory::enable(const char*& reason) {
#if defined(__x86_64__)
  constexpr bool faults_tell_writes = true;
#else
  constexpr bool faults_tell_writes = false;
#endif
  if (!faults_tell_writes) {
    reason = "watch_host_accesses needs x86-64, whose faults tell a read from a write";
    return false;
  }
  page_size = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  instance();
  watching.store(true);
  return true;
}

bool WatchedMemory::enabled() {
  return watching.load(std::memory_order_relaxed);
}

void WatchedMemory::observe(const Payload& payload,
                            std::span<const KernelPointer> kernel_pointers) {
  std::visit(
      [&](const auto& p) {
        using P = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<P, Alloc>) {
          if (p.kind == MemoryKind::PinnedHost || p.kind == MemoryKind::Managed)
            add(p.base, p.size);
        } else if constexpr (std::is_same_v<P, Free>) {
          // Freed memory went back to the system with its protections; unregistered memory
          // stays the program's and must be fully accessible again.
          remove(p.base, p.api == FreeApi::HostUnregister);
        } else if constexpr (std::is_same_v<P, Copy>) {
          protect(p.dst, span(p.width, p.height, p.dst_pitch, p.depth, p.dst_slice_pitch));
          protect(p.src, span(p.width, p.height, p.src_pitch, p.depth, p.src_slice_pitch));
        } else if constexpr (std::is_same_v<P, Set>) {
          protect(p.dst, span(p.width, p.height, p.pitch, p.depth, p.slice_pitch));
        } else if constexpr (std::is_same_v<P, KernelLaunch>) {
          for (const KernelPointer& pointer : kernel_pointers)
            protect_to_end(pointer.address, pointer.bytes);
        } else if constexpr (std::is_same_v<P, Collective>) {
          protect_to_end(p.send, 0);
          protect_to_end(p.recv, 0);
        } else if constexpr (std::is_same_v<P, PointToPoint>) {
          protect_to_end(p.buffer, 0);
        }
      },
      payload);
}

void WatchedMemory::add(Address base, std::uint64_t size) {
  if (base == 0 || size == 0) return;
  const SpinGuard guard(changing_);
  for (std::size_t slot = 0; slot < kRanges; ++slot) {
    Range& range = ranges_[slot];
    if (range.begin.load(std::memory_order_relaxed) != 0) continue;
    range.armed.store(false, std::memory_order_relaxed);
    range.given_up.store(false, std::memory_order_relaxed);
    range.end.store(base + size, std::memory_order_relaxed);
    range.begin.store(base, std::memory_order_release);
    if (slot >= used_.load(std::memory_order_relaxed))
      used_.store(slot + 1, std::memory_order_release);
    return;
  }
  // A full table leaves the allocation unwatched: its host accesses go unseen, nothing breaks.
}

void WatchedMemory::remove(Address base, bool give_pages_back) {
  const SpinGuard guard(changing_);
  for (Range& range : used()) {
    if (range.begin.load(std::memory_order_relaxed) != base) continue;
    if (give_pages_back && range.armed.load(std::memory_order_relaxed) &&
        !range.given_up.load(std::memory_order_relaxed)) {
      const std::uintptr_t first = page_of(base);
      if (mprotect(reinterpret_cast<void*>(first),
                   page_end_of(range.end.load(std::memory_order_relaxed)) - first,
                   PROT_READ | PROT_WRITE) != 0)
        give_up(range, errno);
    }
    range.begin.store(0, std::memory_order_release);
    return;
  }
}

WatchedMemory::Range* WatchedMemory::find_page_of(std::uintptr_t address) {
  for (Range& range : used()) {
    const std::uintptr_t begin = range.begin.load(std::memory_order_acquire);
    if (begin == 0) continue;
    if (address >= page_of(begin) &&
        address < page_end_of(range.end.load(std::memory_order_relaxed)))
      return &range;
  }
  return nullptr;
}

void WatchedMemory::protect(Address begin, std::uint64_t size) {
  if (size == 0) return;
  const SpinGuard guard(changing_);
  for (Range& range : used()) {
    const std::uintptr_t range_begin = range.begin.load(std::memory_order_relaxed);
    const std::uintptr_t range_end = range.end.load(std::memory_order_relaxed);
    if (range_begin == 0 || begin >= range_end || begin + size <= range_begin ||
        range.given_up.load(std::memory_order_relaxed))
      continue;
    const std::uintptr_t first = page_of(std::max<std::uintptr_t>(begin, range_begin));
    const std::uintptr_t last = page_end_of(std::min<std::uintptr_t>(begin + size, range_end));
    // Armed first: a fault on these pages must find them ours from the moment they close.
    range.armed.store(true, std::memory_order_release);
    give_back(range, first, last, PROT_NONE);
  }
}

bool WatchedMemory::give_back(Range& range, std::uintptr_t first, std::uintptr_t last,
                              int protection) {
  if (!range.given_up.load(std::memory_order_acquire) &&
      mprotect(reinterpret_cast<void*>(first), last - first, protection) == 0)
    return true;
  const int error = errno;
  give_up(range, error);
  const std::uintptr_t whole = page_of(range.begin.load(std::memory_order_relaxed));
  const std::uintptr_t whole_end = page_end_of(range.end.load(std::memory_order_relaxed));
  return mprotect(reinterpret_cast<void*>(whole), whole_end - whole, PROT_READ | PROT_WRITE) == 0;
}

void WatchedMemory::give_up(Range& range, int error) {
  if (range.given_up.exchange(true, std::memory_order_acq_rel)) return;
  refused_allocations_.fetch_add(1, std::memory_order_relaxed);
  int none = 0;
  first_refusal_.compare_exchange_strong(none, error, std::memory_order_relaxed);
}

WatchedMemory::Refusals WatchedMemory::refusals() const {
  return {refused_allocations_.load(std::memory_order_relaxed),
          first_refusal_.load(std::memory_order_relaxed)};
}

void WatchedMemory::protect_all() {
  protect(0, UINTPTR_MAX);
}

void WatchedMemory::protect_to_end(Address address, std::uint64_t bytes) {
  if (address == 0) return;
  if (bytes != 0) {
    protect(address, bytes);
    return;
  }
  std::uintptr_t end = 0;
  {
    const SpinGuard guard(changing_);
    for (Range& range : used()) {
      const std::uintptr_t begin = range.begin.load(std::memory_order_relaxed);
      const std::uintptr_t range_end = range.end.load(std::memory_order_relaxed);
      if (begin != 0 && address >= begin && address < range_end) end = range_end;
    }
  }
  if (end != 0) protect(address, end - address);
}

FaultVerdict WatchedMemory::on_fault(std::uintptr_t address, bool write) {
  if (!enabled()) return FaultVerdict::NotOurs;
  Range* range = find_page_of(address);
  if (range == nullptr || !range->armed.load(std::memory_order_acquire))
    return FaultVerdict::NotOurs;
  const bool watched_byte = address >= range->begin.load(std::memory_order_relaxed) &&
                            address < range->end.load(std::memory_order_relaxed);
  // After a read the page stays closed to writes: a later store may race with work that reads
  // the page, which the load could not. A page the kernel will not give back is the program's
  // fault to meet: returning would run the access into the same fault forever.
  if (!give_back(*range, page_of(address), page_of(address) + page_size,
                 write || !watched_byte ? PROT_READ | PROT_WRITE : PROT_READ))
    return FaultVerdict::Refused;
  return watched_byte ? FaultVerdict::HostAccess : FaultVerdict::Restored;
}

bool WatchedMemory::open_for_kernel(std::uintptr_t begin, std::uint64_t size, bool kernel_writes) {
  if (!enabled() || size == 0) return false;
  bool watched = false;
  const SpinGuard guard(changing_);
  for (Range& range : used()) {
    const std::uintptr_t range_begin = range.begin.load(std::memory_order_relaxed);
    const std::uintptr_t range_end = range.end.load(std::memory_order_relaxed);
    if (range_begin == 0 || begin >= range_end || begin + size <= range_begin) continue;
    watched = true;
    if (!range.armed.load(std::memory_order_relaxed) ||
        range.given_up.load(std::memory_order_relaxed))
      continue;
    // As a fault gives pages back: read-only when the kernel only reads them, so that a later
    // store is still seen (a range never armed was never closed, and stays as it is).
    const std::uintptr_t first = page_of(std::max<std::uintptr_t>(begin, range_begin));
    const std::uintptr_t last = page_end_of(std::min<std::uintptr_t>(begin + size, range_end));
    give_back(range, first, last, kernel_writes ? PROT_READ | PROT_WRITE : PROT_READ);
  }
  return watched;
}

bool WatchedMemory::watches(std::uintptr_t begin, std::uint64_t size) {
  for (Range& range : used()) {
    const std::uintptr_t range_begin = range.begin.load(std::memory_order_acquire);
    if (range_begin != 0 && begin < range.end.load(std::memory_order_relaxed) &&
        begin + size > range_begin)
      return true;
  }
  return false;
}

void warn_if_watching_refused() {
  if (!WatchedMemory::enabled()) return;
  const WatchedMemory::Refusals refused = WatchedMemory::instance().refusals();
  if (refused.allocations == 0) return;
  std::fprintf(stderr,
               "streamrace: warning: host accesses of %zu pinned or managed allocation(s) went "
               "unseen from some point on: the kernel refused to change their pages' protection "
               "(%s%s)\n",
               refused.allocations, std::strerror(refused.first_error),
               refused.first_error == ENOMEM
                   ? "; a process at its mapping limit, vm.max_map_count, gets this"
                   : "");
}

} // namespace streamrace::tracer
