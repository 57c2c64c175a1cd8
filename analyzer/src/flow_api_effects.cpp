// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the API model says a call does: work enqueued on a stream, waits, events, groups.
#include "flow_walk.h"

#include "element_index.h"
#include "graph_capture.h"
#include "library_handles.h"
#include "sub_statements.h"
#include "synchronous_api.h"

#include "clang/AST/ASTContext.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>

namespace streamrace::analyzer {

void FlowEngine::Walk::applyEffect(const CallEffect& effect, const clang::CallExpr& call,
                                   FlowState& state, const Frame& frame) {
  switch (effect.kind) {
  case CallEffectKind::Enqueue:
    enqueue(effect, call, state, frame);
    return;
  case CallEffectKind::EventRecord: {
    std::optional<std::string> event = handleKeyOf(effect.event, state, frame);
    std::optional<std::string> stream =
        streamKeyOf(effect.stream, effect.perThreadDefaultStream, state, frame);
    if (!event || (stream && recordInCapture(state, *event, *stream))) return;
    noteFirst(firstRecorded_, *event, textPlace(call, frame));
    if (eventUses_.waitedNowhere(EventUses::storageOf(effect.event)))
      unwaitedRecords_[*event] = &call;
    recordEvent(*event, stream, effect, call, state, frame);
    return;
  }
  case CallEffectKind::StreamWait:
    waitOnEvent(effect, call, state, frame);
    return;
  case CallEffectKind::StreamQuery:
  case CallEffectKind::EventQuery:
    if (isPolledToCompletion(call, frame)) applyHostWait(effect, call, state, frame);
    return;
  case CallEffectKind::StreamSync:
  case CallEffectKind::EventSync:
  case CallEffectKind::DeviceSync: {
    if (!options_.adviseSyncs) {
      applyHostWait(effect, call, state, frame);
      return;
    }
    const CopyOnWrite<PendingAccesses> before = state.pending;
    applyHostWait(effect, call, state, frame);
    // Only what a program calls to wait (not cudaFree or a BLAS reduction, which wait as a
    // side effect) is one to advise on.
    if (const clang::FunctionDecl* callee = call.getDirectCallee();
        callee && callee->getIdentifier() && callee->getName().contains_insensitive("synchronize"))
      noteHostWait(call, *before, state);
    return;
  }
  case CallEffectKind::FreeAsync:
    freeInStreamOrder(effect, call, state, frame);
    return;
  case CallEffectKind::HostFree:
    if (effect.buffers.empty()) return;
    if (std::optional<std::string> buffer = keyOf(effect.buffers.front().expr, state, frame))
      freeOnHost(*buffer, effect.operation, &call, state, frame);
    return;
  case CallEffectKind::Alloc:
    if (std::optional<std::string> buffer = outParameterKey(effect.outPointer, state, frame)) {
      dropRecordsOf(*buffer, state);
      setEntry(state.memory, *buffer, effect.allocatedMemory);
    }
    return;
  case CallEffectKind::CaptureBegin:
    if (std::optional<std::string> stream =
            streamKeyOf(effect.stream, effect.perThreadDefaultStream, state, frame))
      beginCapture(state, *stream);
    return;
  case CallEffectKind::CaptureEnd:
    if (std::optional<std::string> stream =
            streamKeyOf(effect.stream, effect.perThreadDefaultStream, state, frame))
      endCapture(state, *stream, outParameterKey(effect.outPointer, state, frame));
    return;
  case CallEffectKind::GraphInstantiate: {
    std::optional<std::string> executable = outParameterKey(effect.outPointer, state, frame);
    std::optional<std::string> graph = handleKeyOf(effect.graph, state, frame);
    if (executable) instantiateGraph(state, graph.value_or(""), *executable);
    return;
  }
  case CallEffectKind::HostRegister:
    if (!effect.buffers.empty())
      if (std::optional<std::string> buffer = keyOf(effect.buffers.front().expr, state, frame))
        setEntry(state.memory, *buffer, MemoryKind::Pinned);
    return;
  case CallEffectKind::StreamCreate:
    if (std::optional<std::string> stream = outParameterKey(effect.outPointer, state, frame)) {
      const std::string key = collapseIndices(*stream);
      insertEntry(state.createdStreams, key);
      const std::optional<int64_t> flags = constantValue(effect.flags, context_);
      if (flags && (*flags & api_model::kStreamNonBlockingFlag))
        insertEntry(state.nonBlockingStreams, key);
      else
        eraseEntry(state.nonBlockingStreams, key);
    }
    return;
  case CallEffectKind::EventCreate:
    if (std::optional<std::string> event = outParameterKey(effect.outPointer, state, frame))
      setEntry(state.events, collapseIndices(*event),
               EventState{RecordedStatus::Unrecorded, {}, call.getBeginLoc()});
    return;
  case CallEffectKind::GroupStart:
    if (state.groupDepth++ == 0) joinGroupAhead(call, state, frame);
    return;
  case CallEffectKind::BindStream:
    if (std::optional<std::string> handle = keyOf(effect.handle, state, frame)) {
      std::optional<std::string> stream =
          streamKeyOf(effect.stream, effect.perThreadDefaultStream, state, frame);
      bindStream(*handle,
                 stream ? std::optional(streamElementOf(effect, *stream, state, frame))
                        : std::nullopt,
                 state);
    }
    return;
  case CallEffectKind::HoldBuffers:
    if (std::optional<std::string> descriptor = keyOf(effect.outPointer, state, frame))
      for (const BufferUse& held : effect.buffers)
        describe(*descriptor, held.field, keyOf(held.expr, state, frame), state);
    return;
  case CallEffectKind::NoWork:
    return;
  case CallEffectKind::GroupEnd:
    // An unbalanced end is refused by NCCL and changes nothing.
    if (state.groupDepth == 0) return;
    --state.groupDepth;
    if (state.groupDepth > 0) return;
    // After the group, each of its streams is ordered after all of its calls.
    for (const auto& [communicator, streams] : *state.groupStreams)
      joinStreams(streams, state);
    if (!state.groupStreams->empty()) state.groupStreams.edit().clear();
    return;
  }
}

void FlowEngine::Walk::applyHostWait(const CallEffect& effect, const clang::CallExpr& call,
                                     FlowState& state, const Frame& frame) {
  switch (effect.kind) {
  case CallEffectKind::StreamQuery:
  case CallEffectKind::StreamSync:
    if (std::optional<std::string> stream =
            streamKeyOf(effect.stream, effect.perThreadDefaultStream, state, frame)) {
      completeStream(*stream, streamElementOf(effect, *stream, state, frame), state);
      if (sweptByItsLoop(effect.stream, call, frame)) completeElements(*stream, state);
    }
    return;
  case CallEffectKind::EventQuery:
  case CallEffectKind::EventSync:
    if (std::optional<std::string> event = handleKeyOf(effect.event, state, frame)) {
      if (auto found = state.events->find(*event); found != state.events->end())
        for (const AccessRecord& record : found->second.snapshot)
          eraseEntry(state.pending, record);
      else
        noteFirst(awaitedBeforeRecorded_, *event, textPlace(call, frame));
    }
    return;
  case CallEffectKind::DeviceSync:
    if (!state.pending->empty()) state.pending.edit().clear();
    if (!state.spinningStreams->empty()) state.spinningStreams.edit().clear();
    if (std::optional<std::string> buffer = outParameterKey(effect.outPointer, state, frame))
      setEntry(state.memory, *buffer, effect.allocatedMemory);
    return;
  default:
    return;
  }
}

void FlowEngine::Walk::noteHostWait(const clang::CallExpr& call, const PendingAccesses& before,
                                    const FlowState& after) {
  HostWaitSite& site = host_.waits[&call];
  site.roots.insert(root_);
  for (const auto& [record, orderedAfter] : before) {
    if (after.pending->contains(record)) continue;
    site.completedWork = true;
    const auto memory = after.memory->find(record.buffer);
    if (memory == after.memory->end() || memory->second == MemoryKind::Unknown)
      site.unknownMemory.insert(record.buffer);
    else if (memory->second != MemoryKind::Device)
      site.completedHostMemory = true;
  }
}

bool FlowEngine::Walk::onHostSide(const CallEffect& effect, const BufferUse& use) {
  if (!effect.isCopy) return false;
  if (!effect.copyKind) return true;
  switch (*effect.copyKind) {
  case api_model::CopyKind::DeviceToDevice:
    return false;
  case api_model::CopyKind::HostToDevice:
    return use.read;
  case api_model::CopyKind::DeviceToHost:
    return use.write;
  default:
    return true;
  }
}

bool FlowEngine::Walk::isPolledToCompletion(const clang::CallExpr& call, const Frame& frame) const {
  const clang::Stmt* current = &call;
  while (const clang::Stmt* parent = frame.parents->getParent(const_cast<clang::Stmt*>(current))) {
    if (const auto* loop = llvm::dyn_cast<clang::WhileStmt>(parent))
      return loop->getCond() == current;
    if (const auto* loop = llvm::dyn_cast<clang::DoStmt>(parent)) return loop->getCond() == current;
    if (const auto* loop = llvm::dyn_cast<clang::ForStmt>(parent))
      return loop->getCond() == current;
    if (!llvm::isa<clang::Expr>(parent)) return false;
    current = parent;
  }
  return false;
}

bool FlowEngine::Walk::sweptByItsLoop(const clang::Expr* stream, const clang::CallExpr& call,
                                      const Frame& frame) const {
  if (!stream || !frame.parents) return false;
  const clang::Expr* subscript = subscriptOf(stream->IgnoreParenCasts()).index;
  const clang::ValueDecl* index = subscript ? indexVariable(subscript) : nullptr;
  if (!index) return false;
  for (const clang::Stmt* at = frame.parents->getParent(const_cast<clang::CallExpr*>(&call)); at;
       at = frame.parents->getParent(const_cast<clang::Stmt*>(at)))
    if (const auto* loop = llvm::dyn_cast<clang::ForStmt>(at))
      if (std::optional<LoopCounter> counter = loopCounter(*loop, context_);
          counter && counter->variable == index)
        return true;
  return false;
}

void FlowEngine::Walk::completeElements(llvm::StringRef stream, FlowState& state) const {
  if (!stream.ends_with("[*]")) return;
  const llvm::StringRef array = stream.drop_back(2);
  std::set<std::string> elements;
  for (const auto& [record, orderedAfter] : *state.pending)
    if (llvm::StringRef(record.stream).starts_with(array)) elements.insert(record.stream);
  for (const std::string& element : elements)
    completeStream(element, element, state);
}

void FlowEngine::Walk::completeStream(llvm::StringRef stream, llvm::StringRef element,
                                      FlowState& state) const {
  eraseIf(state.pending, [&](const auto& entry) {
    return orderedBefore(entry.first, entry.second, stream, element, state);
  });
  eraseEntry(state.spinningStreams, stream.str());
}

std::vector<FlowEngine::Walk::ResolvedUse>
FlowEngine::Walk::resolveBuffers(const CallEffect& effect, const FlowState& state,
                                 const Frame& frame) const {
  std::vector<ResolvedUse> resolved;
  for (const BufferUse& use : effect.buffers) {
    if (use.handshake) continue;
    std::optional<std::string> buffer = keyOf(use.expr, state, frame);
    if (!buffer) continue;
    ByteRange range = rangeOf(use, state, frame);
    if (!use.field.empty()) {
      // What the field points to, from its start: its own key, or what it is bound to.
      *buffer += use.field;
      if (auto alias = state.fieldAliases->find(*buffer); alias != state.fieldAliases->end())
        *buffer = alias->second;
      else if (use.boundMemberOnly)
        continue;
      range = ByteRange{};
      range.length = std::nullopt;
    }
    auto same = std::find_if(resolved.begin(), resolved.end(), [&](const ResolvedUse& other) {
      return other.buffer == *buffer && mayOverlap(other.range, range);
    });
    if (same == resolved.end()) {
      resolved.push_back({use, std::move(*buffer), std::move(range)});
      continue;
    }
    same->use.read |= use.read;
    same->use.write |= use.write;
    same->use.atomic = same->use.atomic && use.atomic;
    if (same->use.onlyIf != use.onlyIf) same->use.onlyIf = nullptr;
    same->range = spanning(same->range, range);
  }
  return resolved;
}

FlowEngine::Walk::FlagGuard FlowEngine::Walk::flagGuard(const BufferUse& use,
                                                        const FlowState& state) const {
  FlagGuard guard;
  if (!use.onlyIf) return guard;
  if (std::optional<int64_t> value = constantValue(use.onlyIf, context_)) {
    guard.never = *value == 0;
    return guard;
  }
  const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(use.onlyIf->IgnoreParenImpCasts());
  const auto* variable = reference ? llvm::dyn_cast<clang::VarDecl>(reference->getDecl()) : nullptr;
  if (!variable || !variable->hasLocalStorage() || !variable->getType()->isBooleanType())
    return guard;
  Condition flag;
  flag.variable = variable;
  if (auto known = state.conditions->find(flag); known != state.conditions->end())
    guard.never = !known->second;
  else
    guard.when = flag;
  return guard;
}

std::optional<std::pair<std::string, std::string>>
FlowEngine::Walk::workStream(const CallEffect& effect, FlowState& state, const Frame& frame) const {
  if (effect.handle) {
    std::optional<std::string> handle = keyOf(effect.handle, state, frame);
    std::optional<std::string> element = handle ? boundStream(*handle, state) : std::nullopt;
    if (!element) return std::nullopt;
    return std::pair{collapseIndices(*element), *element};
  }
  std::optional<std::string> stream =
      streamKeyOf(effect.stream, effect.perThreadDefaultStream, state, frame);
  if (!stream) return std::nullopt;
  return std::pair{*stream, streamElementOf(effect, *stream, state, frame)};
}

void FlowEngine::Walk::enqueue(const CallEffect& effect, const clang::CallExpr& call,
                               FlowState& state, const Frame& frame) {
  std::optional<std::pair<std::string, std::string>> work = workStream(effect, state, frame);
  if (!work) return;
  // Work enqueued on a capturing stream goes into a graph; it runs when the graph is launched.
  if (std::optional<std::string> capture = captureOf(state, work->first)) {
    for (ResolvedUse& access : resolveBuffers(effect, state, frame))
      if (!flagGuard(access.use, state).never)
        recordCapturedWork(state, *capture,
                           {std::move(access.buffer), std::move(access.range), access.use.read,
                            access.use.write, access.use.atomic});
    return;
  }
  const std::optional<std::string> stream = work->first;
  if (state.groupDepth > 0 && effect.communicator) joinGroup(effect, *stream, state, frame);
  const std::string& element = work->second;
  if (effect.outPointer) {
    allocateInStreamOrder(effect, call, *stream, element, state, frame);
    return;
  }
  std::vector<ResolvedUse> buffers;
  std::vector<std::optional<Condition>> onlyWhen; // buffers[i] is accessed when onlyWhen[i]
  for (ResolvedUse& access : resolveBuffers(effect, state, frame)) {
    FlagGuard guard = flagGuard(access.use, state);
    if (guard.never) continue;
    // Host memory another function of the translation unit pins (field_memory.h): what this
    // path holds of it is pinned too, for the call's rule 7 and the host's later accesses.
    if (!state.memory->contains(access.buffer) &&
        fieldMemory_.pointsIntoPinnedField(access.use.expr))
      setEntry(state.memory, access.buffer, MemoryKind::Pinned);
    if (options_.adviseSyncs && onHostSide(effect, access.use)) host_.touched.insert(access.buffer);
    buffers.push_back(std::move(access));
    onlyWhen.push_back(guard.when);
  }
  if (std::optional<std::string> graph = handleKeyOf(effect.graph, state, frame))
    for (const GraphAccess& access : workOfGraph(state, *graph)) {
      BufferUse use;
      use.read = access.read;
      use.write = access.write;
      use.atomic = access.atomic;
      buffers.push_back({use, access.buffer, access.range});
      onlyWhen.push_back(std::nullopt);
    }
  for (const ResolvedUse& access : buffers)
    checkCrossStream(access, *stream, element, effect, call, state, frame);
  // A flag the kernel polls or raises is how the program orders things, not data.
  if (std::any_of(effect.buffers.begin(), effect.buffers.end(),
                  [](const BufferUse& use) { return use.handshake; }))
    insertEntry(state.spinningStreams, *stream);
  if (*stream == kLegacyStream)
    for (auto& [record, orderedAfter] : state.pending.edit())
      if (orderedBefore(record, orderedAfter, *stream, element, state))
        orderedAfter.insert(kEveryBlockingStream.str());
  // Later work on the allocating stream stands for the allocation: what is ordered after it
  // is ordered after the allocation (and the finding names the work, not the allocation).
  eraseIf(state.pending, [&](const auto& entry) {
    const AccessRecord& record = entry.first;
    // Cheap tests first: this runs for every pending record at every enqueue.
    if (record.stream != *stream || !record.write ||
        !mayBeSameHandle(record.streamElement, element) ||
        std::none_of(buffers.begin(), buffers.end(),
                     [&](const ResolvedUse& access) { return access.buffer == record.buffer; }))
      return false;
    auto detail = details_.find(record);
    return detail != details_.end() && detail->second.allocates;
  });
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    const ResolvedUse& access = buffers[i];
    AccessRecord record{access.buffer, *stream,           access.use.write, siteOf(call, frame),
                        access.range,  access.use.atomic, element};
    // Work on its own stream is ordered after it by orderedBefore, element by element.
    std::set<std::string> orderedAfter;
    if (*stream == kLegacyStream) orderedAfter.insert(kEveryBlockingStream.str());
    state.pending.edit()[record] = std::move(orderedAfter);
    noteConditions(record, state);
    if (const std::optional<Condition>& condition = onlyWhen[i]) {
      FlowState::Conditions made = *state.conditions;
      made[*condition] = true;
      setEntry(state.recordConditions, record, std::move(made));
    }
    AccessDetail& detail = details_[record];
    detail.operation = effect.operation;
    detail.read |= access.use.read;
    detail.write |= access.use.write;
    detail.call = &call;
    detail.chain = callChain(frame);
  }
  if (effect.waitsForItsStream || waitsOnReturn(effect, buffers, state)) {
    if (options_.adviseSyncs) host_.waitingCalls.insert(&call);
    completeStream(*stream, element, state);
  }
}

void FlowEngine::Walk::allocateInStreamOrder(const CallEffect& effect, const clang::CallExpr& call,
                                             const std::string& stream, const std::string& element,
                                             FlowState& state, const Frame& frame) {
  std::optional<std::string> buffer = outParameterKey(effect.outPointer, state, frame);
  if (!buffer) return;
  dropRecordsOf(*buffer, state);
  setEntry(state.memory, *buffer, effect.allocatedMemory);
  const AccessRecord record{*buffer,     stream, true,   siteOf(call, frame),
                            ByteRange{}, false,  element};
  setEntry(state.pending, record, std::set<std::string>{});
  noteConditions(record, state);
  AccessDetail& detail = details_[record];
  detail.operation = effect.operation;
  detail.write = true;
  detail.allocates = true;
  detail.call = &call;
  detail.chain = callChain(frame);
}

void FlowEngine::Walk::joinGroupAhead(const clang::CallExpr& start, FlowState& state,
                                      const Frame& frame) {
  const clang::Stmt* statement = &start;
  const clang::CompoundStmt* block = nullptr;
  for (const clang::Stmt* parent = frame.parents->getParent(const_cast<clang::CallExpr*>(&start));
       parent; parent = frame.parents->getParent(const_cast<clang::Stmt*>(parent))) {
    block = llvm::dyn_cast<clang::CompoundStmt>(parent);
    // A checking macro's `do { ... } while (0)` is part of the statement.
    const auto* loop = block ? llvm::dyn_cast_or_null<clang::DoStmt>(frame.parents->getParent(
                                   const_cast<clang::CompoundStmt*>(block)))
                             : nullptr;
    if (block && !(loop && constantValue(loop->getCond(), context_) == 0)) break;
    block = nullptr;
    statement = parent;
  }
  if (!block) return;
  std::map<std::string, std::set<std::string>> streams;
  int depth = 1;
  const auto* first = std::find(block->body_begin(), block->body_end(), statement);
  for (auto next = first == block->body_end() ? first : first + 1; next != block->body_end();
       ++next)
    if (!collectGroupCalls(*next, depth, streams, state, frame)) break;
  for (auto& [communicator, used] : streams) {
    joinStreams(used, state);
    setEntry(state.groupStreams, communicator, std::move(used));
  }
}

bool FlowEngine::Walk::collectGroupCalls(const clang::Stmt* stmt, int& depth,
                                         std::map<std::string, std::set<std::string>>& streams,
                                         FlowState& state, const Frame& frame) const {
  for (const clang::Stmt* child : subStatements(*stmt))
    if (child && !collectGroupCalls(child, depth, streams, state, frame)) return false;
  const auto* call = llvm::dyn_cast<clang::CallExpr>(stmt);
  if (!call) return true;
  const std::optional<CallEffect> effect =
      classifyCall(*call, options_.userModel, kernels_, context_);
  if (!effect) return true;
  if (effect->kind == CallEffectKind::GroupStart) ++depth;
  if (effect->kind == CallEffectKind::GroupEnd) return --depth > 0;
  if (effect->kind != CallEffectKind::Enqueue || !effect->communicator) return true;
  if (std::optional<std::string> stream =
          streamKeyOf(effect->stream, effect->perThreadDefaultStream, state, frame))
    streams[handleKeyOf(effect->communicator, state, frame).value_or("<communicator>")].insert(
        *stream);
  return true;
}

void FlowEngine::Walk::joinGroup(const CallEffect& effect, const std::string& stream,
                                 FlowState& state, const Frame& frame) const {
  const std::string communicator =
      handleKeyOf(effect.communicator, state, frame).value_or("<communicator>");
  std::set<std::string> streams;
  if (auto found = state.groupStreams->find(communicator); found != state.groupStreams->end())
    streams = found->second;
  streams.insert(stream);
  joinStreams(streams, state);
  setEntry(state.groupStreams, communicator, std::move(streams));
}

void FlowEngine::Walk::joinStreams(const std::set<std::string>& streams, FlowState& state) const {
  auto beforeAny = [&](const AccessRecord& record, const std::set<std::string>& orderedAfter) {
    return std::any_of(streams.begin(), streams.end(), [&](const std::string& stream) {
      return orderedBefore(record, orderedAfter, stream, stream, state);
    });
  };
  bool changes = false;
  for (const auto& [record, orderedAfter] : *state.pending)
    changes = changes || (beforeAny(record, orderedAfter) &&
                          !std::includes(orderedAfter.begin(), orderedAfter.end(), streams.begin(),
                                         streams.end()));
  if (!changes) return;
  for (auto& [record, orderedAfter] : state.pending.edit())
    if (beforeAny(record, orderedAfter)) orderedAfter.insert(streams.begin(), streams.end());
}

bool FlowEngine::Walk::waitsOnReturn(const CallEffect& effect,
                                     const std::vector<ResolvedUse>& buffers,
                                     const FlowState& state) {
  MemoryKind source = MemoryKind::Unknown;
  MemoryKind destination = MemoryKind::Unknown;
  for (const ResolvedUse& access : buffers) {
    auto memory = state.memory->find(access.buffer);
    if (memory == state.memory->end()) continue;
    (access.use.write ? destination : source) = memory->second;
  }
  return hostWaitsOnReturn(effect, source, destination);
}

void FlowEngine::Walk::checkCrossStream(const ResolvedUse& access, const std::string& stream,
                                        const std::string& element, const CallEffect& effect,
                                        const clang::CallExpr& call, const FlowState& state,
                                        const Frame& frame) {
  if (!frame.reporting) return;
  const BufferUse& use = access.use;
  for (const auto& [record, orderedAfter] : *state.pending) {
    // The caller's work is the other side only where this function's own work is not.
    if (record.buffer == kCallersMemory) continue;
    if (!sameBytes(record, access.buffer, access.range) ||
        !conflicting(record, use.write, use.atomic) ||
        orderedBefore(record, recordElementFor(record, access.buffer), orderedAfter, stream,
                      element, state))
      continue;
    if (reportedByTheCallee(record, frame)) continue;
    notify({LaterAccess::StreamWork, record, details_[record], access.buffer, stream, use.read,
            use.write, effect.operation, call, frame, hostWaitMayHang(record, state)});
    return;
  }
  checkCallersWork(access, stream, element, effect, call, state, frame);
}

bool FlowEngine::Walk::reportedByTheCallee(const AccessRecord& record, const Frame& frame) {
  return frame.site && record.site == frame.site && !frame.throughCallable && !record.previousCall;
}

void FlowEngine::Walk::recordEvent(const std::string& event,
                                   const std::optional<std::string>& stream,
                                   const CallEffect& effect, const clang::CallExpr& call,
                                   FlowState& state, const Frame& frame) const {
  EventState recorded;
  if (auto found = state.events->find(event); found != state.events->end())
    recorded.created = found->second.created;
  recorded.status = RecordedStatus::Recorded;
  if (stream) {
    const std::string element = streamElementOf(effect, *stream, state, frame);
    // Recorded in a loop over a stream array by its counter, the event stands for the work
    // of each of its streams, constant elements too (the join of a fork over the array).
    const std::optional<std::string> array = sweptByItsLoop(effect.stream, call, frame)
                                                 ? std::optional(anyElement(*stream))
                                                 : std::nullopt;
    for (const auto& [record, orderedAfter] : *state.pending)
      if (orderedBefore(record, orderedAfter, *stream, element, state) ||
          (array && anyElement(record.stream) == *array))
        recorded.snapshot.insert(record);
  }
  setEntry(state.events, event, std::move(recorded));
}

void FlowEngine::Walk::waitOnEvent(const CallEffect& effect, const clang::CallExpr& call,
                                   FlowState& state, const Frame& frame) {
  std::optional<std::string> stream =
      streamKeyOf(effect.stream, effect.perThreadDefaultStream, state, frame);
  std::optional<std::string> event = handleKeyOf(effect.event, state, frame);
  if (!stream || !event || joinCaptureThroughEvent(state, *stream, *event)) return;
  auto found = state.events->find(*event);
  if (found == state.events->end()) {
    noteFirst(awaitedBeforeRecorded_, *event, textPlace(call, frame));
    return;
  }
  const EventState& waited = found->second;
  // A wait on an event recorded on some paths only is a no-op on the others; whether that
  // leaves an access unordered is the cross-stream check's question. Never recorded on any
  // path, the wait is a no-op wherever it runs.
  if (waited.status == RecordedStatus::Unrecorded && frame.reporting)
    for (const std::unique_ptr<Check>& check : checks_)
      check->onUnrecordedWait({*stream, *event, waited, effect.operation, call, frame});
  // A wait in a loop over a stream array by its counter makes each of its streams wait,
  // `streams[0]` as much as `streams[i]` (as a synchronize there completes each).
  const std::string waiting = sweptByItsLoop(effect.stream, call, frame)
                                  ? kEveryElementOf.str() + anyElement(*stream)
                                  : *stream;
  auto ordersMore = [&](const AccessRecord& record) {
    auto pending = state.pending->find(record);
    return pending != state.pending->end() && !pending->second.contains(waiting);
  };
  if (std::none_of(waited.snapshot.begin(), waited.snapshot.end(), ordersMore)) return;
  PendingAccesses& pending = state.pending.edit();
  for (const AccessRecord& record : waited.snapshot)
    if (auto access = pending.find(record); access != pending.end()) {
      access->second.insert(*stream);
      access->second.insert(waiting);
    }
}

void FlowEngine::Walk::freeInStreamOrder(const CallEffect& effect, const clang::CallExpr& call,
                                         FlowState& state, const Frame& frame) {
  std::optional<std::string> stream =
      streamKeyOf(effect.stream, effect.perThreadDefaultStream, state, frame);
  if (effect.buffers.empty()) return;
  std::optional<std::string> buffer = keyOf(effect.buffers.front().expr, state, frame);
  if (!stream || !buffer) return;
  const std::string element = streamElementOf(effect, *stream, state, frame);
  if (frame.reporting)
    for (const auto& [record, orderedAfter] : *state.pending) {
      if (!mayAlias(record.buffer, *buffer) ||
          orderedBefore(record, orderedAfter, *stream, element, state))
        continue;
      if (reportedByTheCallee(record, frame)) continue;
      notify({LaterAccess::StreamFree, record, details_[record], *buffer, *stream, false, true,
              effect.operation, call, frame, hostWaitMayHang(record, state)});
      break;
    }
  dropRecordsOf(*buffer, state);
}
} // namespace streamrace::analyzer
