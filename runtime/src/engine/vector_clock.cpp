#include "streamrace/runtime/vector_clock.h"

#include <algorithm>
#include <cstring>

namespace streamrace {

Epoch VectorClock::tick(ActorId actor) {
  if (actor >= epochs_.size()) epochs_.resize(actor + 1, 0);
  return ++epochs_[actor];
}

void VectorClock::join(const VectorClock& other) {
  const std::size_t n = other.epochs_.size();
  if (n > epochs_.size()) epochs_.resize(n, 0);
  const Epoch* src = other.epochs_.data();
  Epoch* dst = epochs_.data();
  // Clocks have one entry per stream and thread of the job (hundreds): four lanes at a time
  // through the compiler's portable vector types (SSE2 on x86-64, NEON on Arm).
  using Lanes = Epoch __attribute__((vector_size(4 * sizeof(Epoch))));
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    Lanes mine;
    Lanes theirs;
    std::memcpy(&mine, dst + i, sizeof(Lanes));
    std::memcpy(&theirs, src + i, sizeof(Lanes));
    mine = mine > theirs ? mine : theirs;
    std::memcpy(dst + i, &mine, sizeof(Lanes));
  }
  for (; i < n; ++i)
    dst[i] = std::max(dst[i], src[i]);
  for (const auto& meeting : other.pending_)
    add_pending(meeting);
}

void VectorClock::add_pending(const std::shared_ptr<Rendezvous>& meeting) {
  if (std::find(pending_.begin(), pending_.end(), meeting) == pending_.end())
    pending_.push_back(meeting);
}

void VectorClock::remove_pending(const Rendezvous* meeting) {
  std::erase_if(pending_, [meeting](const auto& p) { return p.get() == meeting; });
}

} // namespace streamrace
