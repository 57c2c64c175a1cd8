// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The engine's findings: what a conflict between two accesses is (race, use after free, ...),
// the edge that would fix it, and the findings that wait for a cross-rank meeting to settle.
#include "streamrace/engine/engine.h"

namespace streamrace {

AccessSide Engine::side_of(const AccessRecord& access) const {
  const ActorInfo& actor = ordering_.actor(access.actor);
  AccessSide side;
  side.access = access;
  side.rank = actor.rank;
  side.on_host = !actor.is_stream;
  side.stream = actor.is_stream ? actor.handle : 0;
  side.device = actor.device;
  return side;
}

SideIdentity Engine::identity_of(const AccessRecord& access) const {
  const ActorInfo& actor = ordering_.actor(access.actor);
  return {access.site, actor.rank, !actor.is_stream, access.kind,
          actor.is_stream ? actor.handle : 0};
}

FixSuggestion Engine::suggest_fix(const AccessRecord& previous, const AccessRecord& current) const {
  FixSuggestion fix;
  if (previous.kind == OpKind::Free) return fix; // a dangling pointer: no ordering helps
  if (current.kind == OpKind::Free && current.detail != kBlockFreeDetail) return fix;
  const ActorInfo& from = ordering_.actor(previous.actor);
  const ActorInfo& to = ordering_.actor(current.actor);
  fix.from = previous.actor;
  fix.to = current.actor;
  if (!from.is_stream) return fix; // two host threads: only the program's own locks order them
  if (!to.is_stream) {
    fix.kind = FixSuggestion::Kind::HostSynchronize;
    return fix;
  }
  fix.kind = FixSuggestion::Kind::RecordAndWait;
  if (const StreamState* stream = ordering_.stream_of(previous.actor);
      stream && stream->last_event) {
    const EventState* event = ordering_.find_event(stream->last_event_space, stream->last_event);
    if (event && event->recorded && event->snapshot.covers(previous.actor, previous.epoch)) {
      fix.kind = FixSuggestion::Kind::WaitOnExisting;
      fix.event = stream->last_event;
    }
  }
  return fix;
}

void Engine::report(const EventHeader& header, const AccessRecord& current,
                    const Conflict& conflict, const VectorClock& clock) {
  const AccessRecord& previous = conflict.previous;
  FindingKind kind;
  if (current.kind == OpKind::Free && current.detail == kBlockFreeDetail) {
    kind = FindingKind::BlockFreedInUse;
  } else if (previous.kind == OpKind::Free || current.kind == OpKind::Free) {
    kind = FindingKind::UseAfterFree;
  } else if (previous.kind == OpKind::Allocation) {
    kind = FindingKind::UseBeforeAlloc;
  } else if (previous.writes()) {
    kind = current.writes() ? FindingKind::RaceWriteWrite : FindingKind::RaceWriteRead;
  } else {
    kind = FindingKind::RaceReadWrite;
  }
  const StreamState* stream = ordering_.stream_of(current.actor);
  const bool unrecorded_wait =
      stream && stream->unrecorded_wait && kind <= FindingKind::RaceReadWrite;
  if (unrecorded_wait) kind = FindingKind::UnrecordedEventWait;
  // A racy loop repeats its race every iteration: count it without describing it again.
  if (clock.pending().empty() && !ordering_.awaits_hand_off(previous.actor, previous.epoch) &&
      findings_.count_again(kind, identity_of(previous), identity_of(current)))
    return;
  Finding finding;
  finding.kind = kind;
  finding.first = side_of(previous);
  finding.second = side_of(current);
  if (unrecorded_wait) finding.unrecorded_wait = stream->unrecorded_wait;
  finding.memory.address_space = header.address_space;
  finding.memory.overlap_begin = conflict.overlap_begin;
  finding.memory.overlap_size = conflict.overlap_size;
  if (const Allocation* block = blocks_.find(header.address_space, conflict.overlap_begin))
    finding.memory.allocation = *block;
  else if (const Allocation* allocation =
               allocations_.find(header.address_space, conflict.overlap_begin))
    finding.memory.allocation = *allocation;
  finding.fix = suggest_fix(previous, current);
  add_finding(std::move(finding), previous, current, clock);
}

void Engine::add_finding(Finding finding, const AccessRecord& previous, const AccessRecord& current,
                         const VectorClock& clock) {
  PendingFinding pending{std::move(finding), previous.actor, previous.epoch, {}};
  if (!clock.pending().empty()) {
    for (const auto& meeting : clock.pending())
      pending.waiting.add_pending(meeting);
  } else {
    for (const auto& meeting : ordering_.awaited_hand_offs(previous.actor, previous.epoch))
      pending.waiting.add_pending(meeting);
    pending.previous_waits = true;
    pending.current_actor = current.actor;
    pending.current_epoch = current.epoch;
  }
  if (pending.waiting.pending().empty())
    findings_.add(std::move(pending.finding));
  else
    pending_.push_back(std::move(pending));
}

void Engine::recheck_pending() {
  for (auto it = pending_.begin(); it != pending_.end();) {
    Ordering::settle(it->waiting);
    const bool ordered = it->previous_waits
                             ? it->waiting.covers(it->current_actor, it->current_epoch)
                             : it->waiting.covers(it->previous_actor, it->previous_epoch);
    if (ordered) {
      it = pending_.erase(it); // the meeting ordered them after all
    } else if (it->waiting.pending().empty()) {
      findings_.add(std::move(it->finding));
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
}

void Engine::finish() {
  recheck_pending();
  for (PendingFinding& pending : pending_)
    findings_.add(std::move(pending.finding));
  pending_.clear();
  for (CollectiveDisagreement& mismatch : ordering_.count_mismatches()) {
    Finding finding;
    finding.kind = FindingKind::CollectiveCountMismatch;
    finding.collective = std::move(mismatch);
    findings_.add(std::move(finding));
  }
}

} // namespace streamrace
