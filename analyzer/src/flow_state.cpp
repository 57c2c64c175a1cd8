// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "flow_state.h"

#include <algorithm>
#include <iterator>

namespace streamrace::analyzer {
namespace {

// Joins one part of two states: shared when both paths agree, else `joinParts` of both, kept as
// `a`'s when it comes out equal to it (so a fixpoint test compares pointers).
template <class T, class JoinParts>
CopyOnWrite<T> joinPart(const CopyOnWrite<T>& a, const CopyOnWrite<T>& b, JoinParts joinParts) {
  if (a.shares(b) || *a == *b) return a;
  T joined = joinParts(*a, *b);
  if (joined == *a) return a;
  CopyOnWrite<T> part;
  part.assign(std::move(joined));
  return part;
}

template <class Key, class Value>
std::map<Key, Value> joinEqualEntries(const std::map<Key, Value>& a,
                                      const std::map<Key, Value>& b) {
  std::map<Key, Value> joined;
  for (const auto& [key, value] : a)
    if (auto other = b.find(key); other != b.end() && other->second == value)
      joined.emplace(key, value);
  return joined;
}

std::set<AccessRecord> joinSnapshots(const EventState& a, const FlowState& stateA,
                                     const EventState& b, const FlowState& stateB) {
  // A record is captured after the join if every path either captured it or never had it.
  std::set<AccessRecord> joined;
  for (const AccessRecord& record : a.snapshot)
    if (b.snapshot.contains(record) || !stateB.pending->contains(record)) joined.insert(record);
  for (const AccessRecord& record : b.snapshot)
    if (!stateA.pending->contains(record)) joined.insert(record);
  return joined;
}

// What each pending record's path knew when it made it, for two paths joined: a record pending
// on one path only keeps what that path knew; one pending on both holds what both knew
// (`common`), and nothing where one made it knowing nothing.
template <class Known, class Common>
std::map<AccessRecord, Known> joinRecordKnowledge(const std::map<AccessRecord, Known>& recordsA,
                                                  const PendingAccesses& pendingA,
                                                  const std::map<AccessRecord, Known>& recordsB,
                                                  const PendingAccesses& pendingB, Common common) {
  std::map<AccessRecord, Known> records;
  auto add = [&](const auto& mine, const auto& theirs, const PendingAccesses& theirPending) {
    for (const auto& [record, known] : mine) {
      if (!theirPending.contains(record)) {
        records.emplace(record, known);
        continue;
      }
      auto other = theirs.find(record);
      if (other == theirs.end()) continue;
      if (auto both = common(known, other->second); !both.empty())
        records.emplace(record, std::move(both));
    }
  };
  add(recordsA, recordsB, pendingB);
  add(recordsB, recordsA, pendingA);
  return records;
}

} // namespace

FlowState join(const FlowState& a, const FlowState& b) {
  if (a.unreachable) return b;
  if (b.unreachable) return a;
  FlowState joined;
  joined.pending = joinPart(a.pending, b.pending,
                            [](const PendingAccesses& pendingA, const PendingAccesses& pendingB) {
                              PendingAccesses pending = pendingA;
                              for (const auto& [record, orderedAfter] : pendingB) {
                                auto [slot, inserted] = pending.emplace(record, orderedAfter);
                                if (inserted) continue;
                                std::set<std::string> common;
                                for (const std::string& stream : slot->second)
                                  if (orderedAfter.contains(stream)) common.insert(stream);
                                slot->second = std::move(common);
                              }
                              return pending;
                            });
  // An event one path never touched is one this function knows nothing about on that path:
  // recorded elsewhere, capturing nothing of this function's work. (Equal events join to
  // themselves whatever is pending: each path captured what the other did.)
  joined.events =
      joinPart(a.events, b.events,
               [&](const std::map<std::string, EventState>& eventsA,
                   const std::map<std::string, EventState>& eventsB) {
                 const EventState untouched;
                 std::set<std::string> eventNames;
                 for (const auto& [name, event] : eventsA)
                   eventNames.insert(name);
                 for (const auto& [name, event] : eventsB)
                   eventNames.insert(name);
                 std::map<std::string, EventState> events;
                 for (const std::string& name : eventNames) {
                   auto foundA = eventsA.find(name);
                   auto foundB = eventsB.find(name);
                   const EventState& eventA = foundA == eventsA.end() ? untouched : foundA->second;
                   const EventState& eventB = foundB == eventsB.end() ? untouched : foundB->second;
                   EventState event;
                   event.created = eventA.created.isValid() ? eventA.created : eventB.created;
                   event.status =
                       eventA.status == eventB.status ? eventA.status : RecordedStatus::OnSomePaths;
                   event.snapshot = joinSnapshots(eventA, a, eventB, b);
                   events.emplace(name, std::move(event));
                 }
                 return events;
               });
  joined.aliases = joinPart(a.aliases, b.aliases, [](const auto& aliasesA, const auto& aliasesB) {
    return joinEqualEntries(aliasesA, aliasesB);
  });
  joined.conditions =
      joinPart(a.conditions, b.conditions, [](const auto& knownA, const auto& knownB) {
        return joinEqualEntries(knownA, knownB);
      });
  joined.conditionAliases = joinPart(a.conditionAliases, b.conditionAliases,
                                     [](const auto& aliasesA, const auto& aliasesB) {
                                       return joinEqualEntries(aliasesA, aliasesB);
                                     });
  joined.recordConditions = joinPart(
      a.recordConditions, b.recordConditions, [&](const auto& recordsA, const auto& recordsB) {
        return joinRecordKnowledge(recordsA, *a.pending, recordsB, *b.pending,
                                   [](const auto& knownA, const auto& knownB) {
                                     return joinEqualEntries(knownA, knownB);
                                   });
      });
  auto common = [](const FlowState::Exclusions& mine, const FlowState::Exclusions& theirs) {
    FlowState::Exclusions both;
    std::set_intersection(mine.begin(), mine.end(), theirs.begin(), theirs.end(),
                          std::inserter(both, both.end()));
    return both;
  };
  joined.exclusions = joinPart(a.exclusions, b.exclusions, common);
  joined.recordExclusions = joinPart(
      a.recordExclusions, b.recordExclusions, [&](const auto& recordsA, const auto& recordsB) {
        return joinRecordKnowledge(recordsA, *a.pending, recordsB, *b.pending, common);
      });
  joined.groupDepth = std::max(a.groupDepth, b.groupDepth);
  joined.groupStreams =
      joinPart(a.groupStreams, b.groupStreams, [](const auto& groupsA, const auto& groupsB) {
        auto groups = groupsA;
        for (const auto& [communicator, streams] : groupsB)
          groups[communicator].insert(streams.begin(), streams.end());
        return groups;
      });
  joined.fieldAliases =
      joinPart(a.fieldAliases, b.fieldAliases, [](const auto& aliasesA, const auto& aliasesB) {
        return joinEqualEntries(aliasesA, aliasesB);
      });
  // An offset the paths disagree on (or that only one path has) is unknown.
  joined.aliasOffsets =
      joinPart(a.aliasOffsets, b.aliasOffsets, [](const auto& offsetsA, const auto& offsetsB) {
        auto joinedOffsets = offsetsA;
        for (auto& [variable, offset] : joinedOffsets)
          if (auto other = offsetsB.find(variable);
              other == offsetsB.end() || other->second != offset)
            offset = std::nullopt;
        for (const auto& [variable, offset] : offsetsB)
          joinedOffsets.try_emplace(variable, std::nullopt);
        return joinedOffsets;
      });
  joined.integers =
      joinPart(a.integers, b.integers, [](const auto& integersA, const auto& integersB) {
        return joinEqualEntries(integersA, integersB);
      });
  joined.memory = joinPart(a.memory, b.memory, [](const auto& memoryA, const auto& memoryB) {
    return joinEqualEntries(memoryA, memoryB);
  });
  auto both = [](const std::set<std::string>& streamsA, const std::set<std::string>& streamsB) {
    std::set<std::string> common;
    for (const std::string& stream : streamsA)
      if (streamsB.contains(stream)) common.insert(stream);
    return common;
  };
  joined.nonBlockingStreams = joinPart(a.nonBlockingStreams, b.nonBlockingStreams, both);
  joined.createdStreams = joinPart(a.createdStreams, b.createdStreams, both);
  auto either = [](const std::set<std::string>& streamsA, const std::set<std::string>& streamsB) {
    std::set<std::string> streams = streamsA;
    streams.insert(streamsB.begin(), streamsB.end());
    return streams;
  };
  // Spinning on any path: a host wait could hang there.
  joined.spinningStreams = joinPart(a.spinningStreams, b.spinningStreams, either);
  joined.programStreams = joinPart(a.programStreams, b.programStreams, either);
  // Work captured on any path is not run then; reporting it would be a guess either way.
  auto eitherEntry = [](const std::map<std::string, std::string>& entriesA,
                        const std::map<std::string, std::string>& entriesB) {
    std::map<std::string, std::string> entries = entriesA;
    entries.insert(entriesB.begin(), entriesB.end());
    return entries;
  };
  joined.capturingStreams = joinPart(a.capturingStreams, b.capturingStreams, eitherEntry);
  joined.capturedEvents = joinPart(a.capturedEvents, b.capturedEvents, eitherEntry);
  // A graph holds the work any path captured into it: launched, all of it may run.
  joined.graphWork = joinPart(a.graphWork, b.graphWork, [](const auto& workA, const auto& workB) {
    std::map<std::string, std::set<GraphAccess>> work = workA;
    for (const auto& [graph, accesses] : workB)
      work[graph].insert(accesses.begin(), accesses.end());
    return work;
  });
  return joined;
}

} // namespace streamrace::analyzer
