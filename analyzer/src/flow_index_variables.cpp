// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Loop counters and the variables that index arrays (element_index.h, loop_counter.h).
#include "flow_walk.h"

#include "element_index.h"
#include "sub_statements.h"

#include "clang/AST/ASTContext.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

namespace streamrace::analyzer {

bool FlowEngine::Walk::isIndexVariable(const clang::VarDecl* var) {
  return var->hasLocalStorage() && var->getType()->isIntegerType();
}

void FlowEngine::Walk::shiftIndexVariable(const clang::ValueDecl* variable, int64_t delta,
                                          FlowState& state) {
  const std::string name = variableKey(variable);
  const IndexChange change{name, delta};
  rewriteKeys(
      state, name, [&](const std::string& key) { return shiftIndices(key, name, delta); },
      [&](const ByteRange& range) {
        return range.shifted(
            name, delta, [&](const std::string& atom) { return shiftIndices(atom, name, delta); });
      },
      &change);
  // A neighbour (bindNeighbourIndex) keeps its value: `top` = `dev-1` is `dev-2` after `++dev`.
  rebindNeighbours(state, name, [&](IntegerBinding& binding) {
    binding.index = shiftIndices("[" + binding.index + "]", name, delta);
    binding.index = binding.index.substr(1, binding.index.size() - 2);
    if (binding.value)
      binding.value =
          binding.value->substituted(name, Polynomial::atom(name) - Polynomial::constant(delta))
              .renamed([&](const std::string& atom) {
                return atom == name ? atom : shiftIndices(atom, name, delta);
              });
    return parseableOffset(binding.index);
  });
}

void FlowEngine::Walk::bindNeighbourIndex(const clang::VarDecl& var,
                                          const clang::DeclStmt& declaration, FlowState& state,
                                          const Frame& frame) {
  const clang::Expr* neighbour = neighbourIndex(var.getInit(), *frame.parents, context_);
  if (!neighbour) return;
  const clang::Stmt* scope = frame.parents->getParent(const_cast<clang::DeclStmt*>(&declaration));
  if (!var.getType().isConstQualified() && (!scope || !onlyReads(scope, &var, *frame.parents)))
    return;
  const std::string index = keys_.indexKeyOf(neighbour, state);
  if (!parseableOffset(index)) return;
  setEntry(state.integers, &var,
           IntegerBinding{index, keys_.valueOf(neighbour, state, frame.thisKey)});
}

bool FlowEngine::Walk::parseableOffset(llvm::StringRef index) {
  return index.contains('@') && !index.ends_with("*");
}

void FlowEngine::Walk::rebindNeighbours(FlowState& state, const std::string& variable,
                                        llvm::function_ref<bool(IntegerBinding&)> change) {
  auto mentions = [&](const auto& entry) {
    const std::string element = "[" + entry.second.index + "]";
    return !llvm::isa<clang::ParmVarDecl>(entry.first) &&
           forgetIndices(element, variable) != element;
  };
  if (std::none_of(state.integers->begin(), state.integers->end(), mentions)) return;
  auto& integers = state.integers.edit();
  for (auto entry = integers.begin(); entry != integers.end();)
    entry = mentions(*entry) && !change(entry->second) ? integers.erase(entry) : std::next(entry);
}

const clang::ForStmt* FlowEngine::Walk::loopStartedBy(const clang::Stmt* stmt, const Frame& frame) {
  const auto* loop = llvm::dyn_cast_or_null<clang::ForStmt>(
      frame.parents->getParent(const_cast<clang::Stmt*>(stmt)));
  return loop && loop->getInit() == stmt ? loop : nullptr;
}

void FlowEngine::Walk::collectContainers(const clang::Stmt* stmt, const clang::ValueDecl* variable,
                                         const FlowState& state, const Frame& frame,
                                         std::set<std::string>& containers) const {
  if (!stmt) return;
  const auto [base, index] = subscriptOf(stmt);
  if (base && isOffsetOf(index, variable, context_))
    if (std::optional<std::string> container = keyOf(base, state, frame))
      containers.insert(*container);
  for (const clang::Stmt* child : subStatements(*stmt))
    collectContainers(child, variable, state, frame, containers);
}

void FlowEngine::Walk::rebaseIndexVariable(const clang::ValueDecl* variable,
                                           const clang::Expr* start, const clang::ForStmt& loop,
                                           FlowState& state, const Frame& frame) {
  std::set<std::string> containers;
  collectContainers(&loop, variable, state, frame, containers);
  if (containers.empty()) return;
  const std::string name = variableKey(variable);
  const std::string value = keys_.indexKeyOf(start, state);
  auto rebase = [&](const std::string& key) { return rebaseIndices(key, name, value, containers); };
  rewriteKeys(state, "[", rebase, [](const ByteRange& range) { return range; });
  std::map<std::string, EventState> events;
  for (const auto& [event, recorded] : *state.events) {
    auto [slot, inserted] = events.emplace(collapseIndices(rebase(event)), recorded);
    if (inserted) continue;
    // Two events became one: it orders only what both captured.
    EventState& merged = slot->second;
    if (merged.status != recorded.status) merged.status = RecordedStatus::OnSomePaths;
    std::erase_if(merged.snapshot,
                  [&](const AccessRecord& record) { return !recorded.snapshot.contains(record); });
  }
  if (events != *state.events) state.events.assign(std::move(events));
}

void FlowEngine::Walk::forgetIndexVariable(const clang::ValueDecl* variable, FlowState& state) {
  const std::string name = variableKey(variable);
  const IndexChange change{name, std::nullopt};
  rewriteKeys(
      state, name, [&](const std::string& key) { return forgetIndices(key, name); },
      [&](const ByteRange& range) { return range.forgetting(name); }, &change);
  rebindNeighbours(state, name, [](IntegerBinding&) { return false; });
}

void FlowEngine::Walk::forgetFinishedLoops(FlowState& state) {
  rewriteKeys(
      state, "~", [](const std::string& key) { return forgetCorrelated(key); },
      [](const ByteRange& range) { return range; });
}

void FlowEngine::Walk::rewriteKeys(FlowState& state, llvm::StringRef mention,
                                   llvm::function_ref<std::string(const std::string&)> rename,
                                   llvm::function_ref<ByteRange(const ByteRange&)> renameRange,
                                   const IndexChange* change) {
  // Called at every loop step and lifetime end, over all the pending work: only what names
  // `mention` is rebuilt, and the text is searched for once per key.
  const std::string mentionText = mention.str();
  auto mentioned = [&](llvm::StringRef key) { return key.contains(mention); };
  auto recordMentioned = [&](const AccessRecord& record) {
    return mentioned(record.buffer) || mentioned(record.streamElement) ||
           record.range.mentions(mentionText);
  };
  std::vector<AccessRecord> pendingRenamed;
  for (const auto& [record, orderedAfter] : *state.pending)
    if (recordMentioned(record)) pendingRenamed.push_back(record);
  const bool pendingMentioned = !pendingRenamed.empty();
  auto snapshotMentioned = [&](const EventState& event) {
    return std::any_of(event.snapshot.begin(), event.snapshot.end(), recordMentioned);
  };
  const bool eventsMentioned =
      std::any_of(state.events->begin(), state.events->end(),
                  [&](const auto& entry) { return snapshotMentioned(entry.second); });
  bool aliasesMentioned = false;
  for (const auto& [variable, target] : *state.aliases)
    aliasesMentioned = aliasesMentioned || mentioned(target);
  bool offsetsMentioned = false;
  for (const auto& [variable, offset] : *state.aliasOffsets)
    offsetsMentioned = offsetsMentioned || (offset && offset->mentions(mentionText));
  bool memoryMentioned = false;
  for (const auto& [buffer, kind] : *state.memory)
    memoryMentioned = memoryMentioned || mentioned(buffer);
  bool fieldsMentioned = false;
  for (const auto& [field, target] : *state.fieldAliases)
    fieldsMentioned = fieldsMentioned || mentioned(field) || mentioned(target);
  // Only the parts that name the storage are rebuilt; the others stay shared.
  auto renameMentioned = [&](const AccessRecord& record) {
    AccessRecord renamed = record;
    const bool forgotten = change && !change->delta;
    if (mentioned(record.buffer))
      renamed.buffer =
          forgotten ? correlateIndices(record.buffer, change->variable) : rename(record.buffer);
    // Only within one iteration: across iterations the same code works on another element, and
    // what it touches there (a chunk at `i * size`) is rarely known well enough to tell the
    // iterations' bytes apart, so iterations stay on what may be one stream. Where the buffer
    // names its element through the same variable, the stream keeps that relation (correlated
    // indices), for an access that tells which element it touches.
    if (mentioned(record.streamElement)) {
      std::string element = record.streamElement;
      if (change) element = correlateIndices(element, change->variable);
      if (change && change->delta)
        element = shiftIndices(element, change->variable, *change->delta);
      renamed.streamElement = collapseLiveIndices(element);
    }
    CorrelatedKeys related = correlatedKeys(renamed.buffer, renamed.streamElement);
    renamed.buffer = std::move(related.buffer);
    renamed.streamElement = std::move(related.stream);
    renamed.range = renameRange(record.range);
    if (renamed != record)
      if (auto detail = details_.find(record); detail != details_.end())
        details_.try_emplace(renamed, detail->second);
    return renamed;
  };
  // The same record is often pending, known by its path's conditions and in an event's snapshot:
  // renamed once.
  std::map<AccessRecord, AccessRecord> renamedOnce;
  auto renameRecord = [&](const AccessRecord& record) -> const AccessRecord* {
    if (!recordMentioned(record)) return &record;
    auto [slot, inserted] = renamedOnce.try_emplace(record);
    if (inserted) slot->second = renameMentioned(record);
    return &slot->second;
  };
  if (pendingMentioned && !state.recordConditions->empty()) {
    // A renamed record keeps what its path knew when it was made; records that become one keep
    // what both knew (nothing, where one knew nothing).
    std::map<AccessRecord, FlowState::Conditions> conditions;
    std::set<AccessRecord> unconditional;
    for (const auto& [record, orderedAfter] : *state.pending) {
      const AccessRecord& renamed = *renameRecord(record);
      auto made = state.recordConditions->find(record);
      if (made == state.recordConditions->end()) {
        unconditional.insert(renamed);
        continue;
      }
      auto [slot, inserted] = conditions.emplace(renamed, made->second);
      if (!inserted)
        std::erase_if(slot->second, [&](const auto& known) {
          auto other = made->second.find(known.first);
          return other == made->second.end() || other->second != known.second;
        });
    }
    std::erase_if(conditions, [&](const auto& entry) {
      return entry.second.empty() || unconditional.contains(entry.first);
    });
    state.recordConditions.assign(std::move(conditions));
  }
  // What a renamed record's path knew could not all hold is dropped with the old names.
  if (pendingMentioned && !state.recordExclusions->empty()) state.recordExclusions.assign({});
  if (pendingMentioned) {
    // Taken out first, then put back renamed: a renamed record that meets another (renamed or
    // not) is ordered only after what both were.
    PendingAccesses& pending = state.pending.edit();
    std::vector<std::pair<AccessRecord, std::set<std::string>>> renamed;
    renamed.reserve(pendingRenamed.size());
    for (const AccessRecord& record : pendingRenamed) {
      auto taken = pending.extract(record);
      renamed.emplace_back(*renameRecord(record), std::move(taken.mapped()));
    }
    for (auto& [record, orderedAfter] : renamed) {
      auto [slot, inserted] = pending.try_emplace(std::move(record), orderedAfter);
      if (!inserted)
        std::erase_if(slot->second,
                      [&](const std::string& stream) { return !orderedAfter.contains(stream); });
    }
  }
  if (eventsMentioned)
    for (auto& [name, event] : state.events.edit()) {
      if (!snapshotMentioned(event)) continue;
      std::set<AccessRecord> snapshot;
      for (const AccessRecord& record : event.snapshot)
        snapshot.insert(*renameRecord(record));
      event.snapshot = std::move(snapshot);
    }
  if (aliasesMentioned)
    for (auto& [variable, target] : state.aliases.edit())
      if (mentioned(target)) target = rename(target);
  if (offsetsMentioned)
    for (auto& [variable, offset] : state.aliasOffsets.edit())
      if (offset && offset->mentions(mentionText))
        offset = renameRange(ByteRange{offset, std::nullopt, std::nullopt, {}}).offset;
  if (memoryMentioned) {
    std::map<std::string, MemoryKind> memory;
    for (const auto& [buffer, kind] : *state.memory)
      if (auto [slot, inserted] = memory.emplace(mentioned(buffer) ? rename(buffer) : buffer, kind);
          !inserted && slot->second != kind)
        slot->second = MemoryKind::Unknown;
    state.memory.assign(std::move(memory));
  }
  if (fieldsMentioned) {
    std::map<std::string, std::string> fields;
    for (const auto& [field, target] : *state.fieldAliases)
      fields.emplace(mentioned(field) ? rename(field) : field,
                     mentioned(target) ? rename(target) : target);
    state.fieldAliases.assign(std::move(fields));
  }
}
} // namespace streamrace::analyzer
