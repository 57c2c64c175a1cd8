#include "streamrace/runtime/vector_clock.h"

#include <algorithm>

namespace streamrace {

Epoch VectorClock::tick(ActorId actor) {
  if (actor >= epochs_.size()) epochs_.resize(actor + 1, 0);
  return ++epochs_[actor];
}

void VectorClock::join(const VectorClock& other) {
  if (other.epochs_.size() > epochs_.size()) epochs_.resize(other.epochs_.size(), 0);
  const Epoch* src = other.epochs_.data();
  Epoch* dst = epochs_.data();
  for (std::size_t i = 0, n = other.epochs_.size(); i < n; ++i) dst[i] = std::max(dst[i], src[i]);
  for (const auto& meeting : other.pending_) add_pending(meeting);
}

void VectorClock::add_pending(const std::shared_ptr<Rendezvous>& meeting) {
  if (std::find(pending_.begin(), pending_.end(), meeting) == pending_.end())
    pending_.push_back(meeting);
}

void VectorClock::remove_pending(const Rendezvous* meeting) {
  std::erase_if(pending_, [meeting](const auto& p) { return p.get() == meeting; });
}

} // namespace streamrace
