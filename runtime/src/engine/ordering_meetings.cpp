// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The ordering's meetings across ranks (rule 14): communicators, the k-th collective or send of
// each, and how a completed meeting's outcome settles into the clocks that wait for it.
#include "streamrace/engine/ordering.h"

#include <algorithm>
#include <vector>

namespace streamrace {

namespace {

// Folds every completed meeting the clock waits for into it, telling `on_settled` of each.
// Outcomes can refer to each other (a meeting completes while a clock it gathered still waits for
// another one, which completes holding a reference back), so each meeting is folded once per
// call: settling ends.
template <typename OnSettled> void settle_meetings(VectorClock& clock, OnSettled on_settled) {
  std::vector<const Meeting*> folded;
  while (true) {
    auto done = std::find_if(clock.pending().begin(), clock.pending().end(),
                             [](const auto& meeting) { return meeting->complete; });
    if (done == clock.pending().end()) return;
    // A copy, not a reference: it keeps the meeting alive once the clock lets go of it.
    // NOLINTNEXTLINE(performance-unnecessary-copy-initialization)
    const std::shared_ptr<Meeting> meeting = *done;
    clock.remove_pending(meeting.get());
    if (std::find(folded.begin(), folded.end(), meeting.get()) != folded.end()) continue;
    folded.push_back(meeting.get());
    clock.join(meeting->outcome);
    on_settled(*meeting);
  }
}

} // namespace

void Ordering::notify_meeting(const Meeting& meeting, ActorId to) const {
  const JoinKind kind = meeting.hand_off != 0  ? JoinKind::HostHandOff
                        : meeting.send_receive ? JoinKind::SendReceive
                                               : JoinKind::Collective;
  const std::uint64_t handle = meeting.hand_off != 0 ? meeting.hand_off : meeting.comm;
  for (const auto& [actor, epoch] : meeting.contributors)
    if (actor != to) notify(kind, actor, epoch, true, to, handle);
}

void Ordering::settle_owned(VectorClock& clock, ActorId owner) {
  settle_meetings(clock, [&](const Meeting& meeting) {
    if (observer_) [[unlikely]]
      notify_meeting(meeting, owner);
  });
}

void Ordering::settle(VectorClock& clock) {
  settle_meetings(clock, [](const Meeting&) {});
}

std::shared_ptr<Meeting> Ordering::meeting(const MeetingKey& key, int contributions,
                                           int acquirers) {
  auto [it, inserted] = meetings_.try_emplace(key);
  if (inserted) {
    it->second = std::make_shared<Meeting>();
    it->second->expected_contributions = contributions;
    it->second->expected_acquirers = acquirers;
    it->second->acquirers.reserve(static_cast<std::size_t>(acquirers));
    it->second->comm = key.comm;
    it->second->send_receive = key.from != -1;
  }
  return it->second;
}

void Ordering::contribute(Meeting& meeting, StreamState& stream) {
  meeting.outcome.join(stream.clock);
  ++meeting.contributions;
  if (observer_) [[unlikely]]
    meeting.contributors.emplace_back(stream.actor, stream.clock.get(stream.actor));
}

void Ordering::acquire(const std::shared_ptr<Meeting>& meeting, StreamState& stream) {
  meeting->acquirers.push_back(stream.actor);
  if (meeting->complete) {
    join_clock(stream, meeting->outcome);
    if (observer_) [[unlikely]]
      notify_meeting(*meeting, stream.actor);
  } else {
    stream.clock.add_pending(meeting);
  }
}

void Ordering::complete(const MeetingKey& key, const std::shared_ptr<Meeting>& meeting) {
  settle_acquirers(*meeting);
  forget_if_done(key, *meeting);
}

void Ordering::settle_acquirers(Meeting& meeting) {
  meeting.complete = true;
  // A participant's clock may already depend on this very meeting (through events between
  // ranks that share a process, or a host thread's releases); the meeting cannot wait for
  // itself.
  meeting.outcome.remove_pending(&meeting);
  // The outcome gathered what its contributors still waited for; what of it has completed since
  // is folded once here rather than by every acquirer (on a wide job, a collective of every rank
  // carries each node's pending meetings). Exports watch each acquirer fold them.
  if (!observer_) settle(meeting.outcome);
  for (ActorId actor : meeting.acquirers) {
    if (StreamState* stream = stream_slot(actor)) {
      stream->clock.remove_pending(&meeting);
      join_clock(*stream, meeting.outcome);
      if (observer_) [[unlikely]]
        notify_meeting(meeting, actor);
    }
  }
}

void Ordering::forget_if_done(const MeetingKey& key, const Meeting& meeting) {
  if (meeting.complete && static_cast<int>(meeting.acquirers.size()) >= meeting.expected_acquirers)
    meetings_.erase(key);
}

Arrival Ordering::arrive_collective(StreamState& stream, const CommState& comm,
                                    std::uint64_t sequence, const CollectiveCall& call) {
  const MeetingKey key{comm.key, sequence, -1, -1};
  std::shared_ptr<Meeting> meeting = this->meeting(key, comm.nranks, comm.nranks);
  Arrival arrival;
  if (!meeting->first_call) {
    meeting->first_call = call;
  } else if (!(*meeting->first_call == call) && !meeting->disagreement_reported) {
    meeting->disagreement_reported = true;
    arrival.disagreement =
        CollectiveDisagreement{comm.key, sequence, *meeting->first_call, call, {}};
  }
  contribute(*meeting, stream);
  meeting->acquirers.push_back(stream.actor);
  if (meeting->contributions == meeting->expected_contributions) {
    complete(key, meeting);
    arrival.completed = meeting;
  } else {
    stream.clock.add_pending(meeting);
  }
  return arrival;
}

std::shared_ptr<Meeting> Ordering::arrive_send(StreamState& stream, const CommState& comm,
                                               std::int32_t peer, std::uint64_t sequence) {
  const MeetingKey key{comm.key, sequence, comm.comm_rank, peer};
  std::shared_ptr<Meeting> meeting = this->meeting(key, 1, 1);
  contribute(*meeting, stream);
  complete(key, meeting);
  return meeting;
}

void Ordering::arrive_receive(StreamState& stream, const CommState& comm, std::int32_t peer,
                              std::uint64_t sequence) {
  const MeetingKey key{comm.key, sequence, peer, comm.comm_rank};
  std::shared_ptr<Meeting> meeting = this->meeting(key, 1, 1);
  acquire(meeting, stream);
  forget_if_done(key, *meeting);
}

CommState* Ordering::comm(RankId rank, CommHandle handle) {
  auto it = comms_.find(RankHandleKey{rank, handle});
  return it == comms_.end() ? nullptr : &it->second;
}

void Ordering::init_comm(RankId rank, const CommInit& init) {
  CommState& state = comms_[RankHandleKey{rank, init.comm}];
  state = CommState{};
  state.key = init.key;
  state.nranks = init.nranks;
  state.comm_rank = init.comm_rank;
  CommRanks& ranks = comm_ranks_[init.key];
  ranks.nranks = init.nranks;
  ranks.members[init.comm_rank] = &state;
}

void Ordering::destroy_comm(RankId, CommHandle) {
  // The communicator's call counts are still needed for the end-of-run count check.
}

std::vector<CollectiveDisagreement> Ordering::count_mismatches() const {
  std::vector<CollectiveDisagreement> mismatches;
  for (const auto& [key, ranks] : comm_ranks_) {
    if (static_cast<std::int32_t>(ranks.members.size()) != ranks.nranks) continue;
    CollectiveDisagreement mismatch;
    mismatch.comm = key;
    bool differ = false;
    std::uint64_t first = ~0ull;
    for (const auto& [comm_rank, state] : ranks.members) {
      mismatch.calls_per_rank.emplace_back(comm_rank, state->collectives);
      if (first == ~0ull) first = state->collectives;
      differ |= state->collectives != first;
    }
    if (!differ) continue;
    std::sort(mismatch.calls_per_rank.begin(), mismatch.calls_per_rank.end());
    mismatches.push_back(std::move(mismatch));
  }
  return mismatches;
}

} // namespace streamrace
