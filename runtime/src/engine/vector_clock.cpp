// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/engine/vector_clock.h"

#include <algorithm>

namespace streamrace {

namespace {

// Clocks have one entry per stream and thread of the job (hundreds), and unsigned 32-bit max
// has no SSE2 instruction: on x86-64 the loop is compiled once more for AVX2 (eight lanes, one
// instruction) and the loader picks the version the CPU runs. Elsewhere the compiler
// vectorizes it for the baseline ISA.
#if defined(__x86_64__) && defined(__ELF__)
__attribute__((target_clones("avx2", "default")))
#endif
void join_epochs(Epoch* __restrict dst, const Epoch* __restrict src, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    dst[i] = dst[i] < src[i] ? src[i] : dst[i];
}

} // namespace

void VectorClock::grow(std::size_t size) {
  epochs_.resize(size, 0);
}

void VectorClock::join(const VectorClock& other) {
  if (&other == this) return;
  const std::size_t n = other.epochs_.size();
  if (n > epochs_.size()) epochs_.resize(n, 0);
  join_epochs(epochs_.data(), other.epochs_.data(), n);
  for (const auto& meeting : other.pending_)
    add_pending(meeting);
}

void VectorClock::add_pending(const std::shared_ptr<Meeting>& meeting) {
  if (std::find(pending_.begin(), pending_.end(), meeting) == pending_.end())
    pending_.push_back(meeting);
}

void VectorClock::remove_pending(const Meeting* meeting) {
  std::erase_if(pending_, [meeting](const auto& p) { return p.get() == meeting; });
}

} // namespace streamrace
