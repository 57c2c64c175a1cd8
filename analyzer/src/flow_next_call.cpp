// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// An entry point's next call (entry_points.h): the program calls it once per step, so its work
// left pending on its object's buffers meets the next call's first uses of them, as a loop's
// iteration meets the next one's.
#include "flow_walk.h"

#include "element_index.h"

#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"

#include <algorithm>

namespace streamrace::analyzer {

FlowEngine::Walk::TextPlace FlowEngine::Walk::textPlace(const clang::Stmt& call,
                                                        const Frame& frame) const {
  const clang::SourceManager& sources = context_.getSourceManager();
  TextPlace place{sources.getExpansionLoc(callLocation(call))};
  for (const Frame* callee = &frame; callee->caller && callee->call; callee = callee->caller)
    place.push_back(sources.getExpansionLoc(callLocation(*callee->call)));
  std::reverse(place.begin(), place.end());
  return place;
}

bool FlowEngine::Walk::comesBefore(const TextPlace& first, const TextPlace& second) const {
  const clang::SourceManager& sources = context_.getSourceManager();
  for (std::size_t level = 0; level < first.size() && level < second.size(); ++level) {
    if (first[level] == second[level]) continue;
    return sources.isBeforeInTranslationUnit(first[level], second[level]);
  }
  return false;
}

void FlowEngine::Walk::noteFirst(std::map<std::string, TextPlace>& places, const std::string& event,
                                 TextPlace place) const {
  auto [slot, inserted] = places.try_emplace(event, place);
  if (!inserted && comesBefore(place, slot->second)) slot->second = std::move(place);
}

void FlowEngine::Walk::runNextCall(const clang::FunctionDecl& function, FlowState entry,
                                   const FlowState& exit, const Frame& frame) {
  // Most functions wait for nothing they record later: no walk over the body for its globals.
  if (awaitedBeforeRecorded_.empty()) return;
  const PersistentRoots roots = persistentRoots(function, frame.thisKey);
  auto outlives = [&](const std::string& key) { return persistentStorage(key, roots); };
  // Written to be called again: it waits for an event of its object that it records only further
  // down its text, so on its first call the wait has nothing to wait for (a no-op, as CUDA
  // documents), and on the next it orders after the previous call's work.
  const bool waitsForPreviousCall = std::any_of(
      awaitedBeforeRecorded_.begin(), awaitedBeforeRecorded_.end(), [&](const auto& awaited) {
        auto recorded = firstRecorded_.find(awaited.first);
        return outlives(awaited.first) && recorded != firstRecorded_.end() &&
               comesBefore(awaited.second, recorded->second);
      });
  if (!waitsForPreviousCall) return;
  // The last call's loop variables are not this call's: an element it named through one is any
  // element now (its bytes with it). What a finished loop kept of one iteration, a buffer's
  // element and its stream's named by one value (`host[~i]` on `streams[~i]`), holds still.
  auto previous = [](AccessRecord record) {
    record.previousCall = true;
    if (std::string buffer = collapseLiveIndices(record.buffer); buffer != record.buffer) {
      record.buffer = std::move(buffer);
      record.range = ByteRange{};
    }
    record.streamElement = collapseLiveIndices(record.streamElement);
    return record;
  };
  bool leftWork = false;
  for (const auto& [record, orderedAfter] : *exit.pending) {
    // Work on a stream the last call named through its locals is on a stream this call may name
    // otherwise: which of this call's streams it runs on is not known.
    if (record.buffer == kCallersMemory || !outlives(record.buffer) ||
        !(outlives(record.stream) || record.stream == kLegacyStream ||
          record.stream == kPerThreadStream))
      continue;
    const AccessRecord carried = previous(record);
    // Two records of the last call that are one now are ordered only after what both were.
    if (auto [slot, inserted] = entry.pending.edit().try_emplace(carried, orderedAfter); !inserted)
      std::erase_if(slot->second,
                    [&](const std::string& stream) { return !orderedAfter.contains(stream); });
    AccessDetail detail = details_[record];
    detail.operation += " of the previous call to '" + function.getNameAsString() + "'";
    details_.try_emplace(carried, std::move(detail));
    leftWork = true;
  }
  // Nothing left behind: the next call starts as the first did, and finds nothing new.
  if (!leftWork) return;
  for (const auto& [event, recorded] : *exit.events) {
    if (!outlives(event)) continue;
    EventState carried = recorded;
    carried.snapshot.clear();
    for (const AccessRecord& record : recorded.snapshot)
      carried.snapshot.insert(previous(record));
    setEntry(entry.events, event, std::move(carried));
  }
  for (const auto& [field, bound] : *exit.fieldAliases)
    setEntry(entry.fieldAliases, field, bound);
  for (const auto& [buffer, kind] : *exit.memory)
    if (outlives(buffer)) setEntry(entry.memory, buffer, kind);
  for (const std::string& stream : *exit.createdStreams)
    if (outlives(stream)) insertEntry(entry.createdStreams, stream);
  for (const std::string& stream : *exit.programStreams)
    insertEntry(entry.programStreams, stream);
  for (const std::string& stream : *exit.nonBlockingStreams)
    if (outlives(stream)) insertEntry(entry.nonBlockingStreams, stream);
  // A flag the last call set on its object (`p->primed = true`) holds when the next one starts.
  for (const auto& [known, value] : *exit.conditions)
    if (!known.object.empty() && outlives(known.object + "."))
      setEntry(entry.conditions, known, value);
  run(function, std::move(entry), frame);
}

} // namespace streamrace::analyzer
