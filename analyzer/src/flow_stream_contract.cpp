// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The stream-argument contract of a root function with one stream parameter.
#include "flow_walk.h"

#include "element_index.h"
#include "entry_points.h"
#include "handle_types.h"

#include "streamrace/api_model/api_model.h"

#include "clang/AST/ASTContext.h"

#include <algorithm>
#include <memory>
#include <set>

namespace streamrace::analyzer {

std::optional<FlowEngine::Walk::StreamContract>
FlowEngine::Walk::streamContract(const clang::FunctionDecl& function,
                                 llvm::StringRef thisKey) const {
  const clang::ParmVarDecl* stream = nullptr;
  for (const clang::ParmVarDecl* parameter : function.parameters())
    if (isStreamType(parameter->getType())) {
      if (stream) return std::nullopt;
      stream = parameter;
    }
  if (!stream || !function.getBody()) return std::nullopt;
  StreamContract contract;
  contract.stream = variableKey(stream);
  contract.defaulted = stream->hasDefaultArg();
  for (const clang::ParmVarDecl* parameter : function.parameters())
    if (parameter != stream) contract.callersMemory.push_back(variableKey(parameter));
  // A method's object: the memory its class hands out, the caller may have filled.
  if (const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(&function);
      method && method->isInstance() && method->getParent()->hasDefinition())
    for (const clang::FieldDecl* field :
         fieldMemory_.handedOutFields(*method->getParent()->getDefinition()))
      contract.handedOutMemory.push_back(thisKey.str() + "." + field->getNameAsString());
  contract.callersWork = {kCallersMemory.str(), contract.stream, true,           function.getBody(),
                          ByteRange{},          false,           contract.stream};
  return contract;
}

void FlowEngine::Walk::expectCallersWork(const StreamContract& contract,
                                         const clang::FunctionDecl& function, FlowState& entry) {
  setEntry(entry.pending, contract.callersWork, std::set<std::string>{});
  AccessDetail& detail = details_[contract.callersWork];
  detail.operation = "the caller's work before the call to '" + function.getNameAsString() + "'";
  detail.write = true;
}

bool FlowEngine::Walk::reachesCaller(const StreamContract& contract, llvm::StringRef buffer,
                                     bool onEntry) {
  auto rooted = [&](const std::string& root) { return isRootedAt(buffer, root); };
  return std::any_of(contract.callersMemory.begin(), contract.callersMemory.end(), rooted) ||
         (onEntry &&
          std::any_of(contract.handedOutMemory.begin(), contract.handedOutMemory.end(), rooted));
}

bool FlowEngine::Walk::isOwnStream(const StreamContract& contract, const std::string& stream,
                                   const FlowState& state) const {
  return (state.createdStreams->contains(stream) || state.programStreams->contains(stream)) &&
         (!contract.defaulted || !isBlocking(stream, state));
}

void FlowEngine::Walk::checkCallersWork(const ResolvedUse& access, const std::string& stream,
                                        const std::string& element, const CallEffect& effect,
                                        const clang::CallExpr& call, const FlowState& state,
                                        const Frame& frame) {
  if (!contract_) return;
  const StreamContract& contract = *contract_;
  // Memory the program allocates into an object's private field is the object's, not the
  // caller's.
  if (!reachesCaller(contract, access.buffer, true) || state.memory->contains(access.buffer) ||
      fieldMemory_.pointsIntoOwnAllocation(access.use.expr) ||
      !isOwnStream(contract, stream, state))
    return;
  auto callers = state.pending->find(contract.callersWork);
  if (callers == state.pending->end() ||
      orderedBefore(callers->first, callers->second, stream, element, state))
    return;
  notify({LaterAccess::StreamWork, callers->first, details_[callers->first], access.buffer, stream,
          access.use.read, access.use.write, effect.operation, call, frame, false});
}

void FlowEngine::Walk::checkReturn(const StreamContract& contract, const FlowState& exit,
                                   const clang::FunctionDecl& function) {
  for (const auto& [record, orderedAfter] : *exit.pending) {
    if (record.buffer == kCallersMemory || !reachesCaller(contract, record.buffer) ||
        !isOwnStream(contract, record.stream, exit) ||
        orderedBefore(record, orderedAfter, contract.stream, contract.stream, exit))
      continue;
    auto detail = details_.find(record);
    if (detail == details_.end() || !detail->second.call) continue;
    for (const std::unique_ptr<Check>& check : checks_)
      check->onPendingAtReturn({record, detail->second, contract.stream, function, nullptr, {}});
  }
}

namespace {

// Built with `--default-stream per-thread`, every call without a stream argument works on the
// per-thread default stream: there it is the one stream the program counts on, not a side one.
bool compiledForPerThreadStream(const clang::Expr& work) {
  const auto* call = llvm::dyn_cast<clang::CallExpr>(&work);
  const clang::FunctionDecl* callee = call ? call->getDirectCallee() : nullptr;
  const api_model::ApiFunction* function =
      callee && callee->getIdentifier() ? api_model::findApiFunction(callee->getName()) : nullptr;
  return function && api_model::usesPerThreadDefaultStream(*function);
}

// Whether `key` names storage reached from one of `function`'s parameters (those `which` takes).
bool rootedAtParameter(
    llvm::StringRef key, const clang::FunctionDecl& function,
    llvm::function_ref<bool(const clang::ParmVarDecl&)> which = [](const clang::ParmVarDecl&) {
      return true;
    }) {
  return std::any_of(function.param_begin(), function.param_end(),
                     [&](const clang::ParmVarDecl* parameter) {
                       return which(*parameter) && isRootedAt(key, variableKey(parameter));
                     });
}

} // namespace

void FlowEngine::Walk::checkReturnWithoutStream(const clang::FunctionDecl& function,
                                                const FlowState& exit, const Frame& frame) {
  // Where the program's own streams are ones the per-thread default stream does not order.
  if (!streamStorage_.keepsNonBlockingStreams()) return;
  if (reachesHandle(function.getReturnType(), kStreamRecord) ||
      std::any_of(function.param_begin(), function.param_end(),
                  [](const clang::ParmVarDecl* parameter) {
                    return reachesHandle(parameter->getType(), kStreamRecord);
                  }))
    return;
  const PersistentRoots roots = persistentRoots(function, frame.thisKey);
  auto keptEventOrders = [&](const AccessRecord& record) {
    return std::any_of(exit.events->begin(), exit.events->end(), [&](const auto& event) {
      return persistentStorage(event.first, roots) && event.second.snapshot.contains(record);
    });
  };
  for (const auto& [record, orderedAfter] : *exit.pending) {
    if (record.buffer == kCallersMemory || !rootedAtParameter(record.buffer, function) ||
        exit.memory->contains(record.buffer) || record.stream != kPerThreadStream ||
        keptEventOrders(record))
      continue;
    auto detail = details_.find(record);
    if (detail == details_.end() || !detail->second.call ||
        compiledForPerThreadStream(*detail->second.call))
      continue;
    for (const std::unique_ptr<Check>& check : checks_)
      check->onPendingAtReturn({record, detail->second, std::nullopt, function, nullptr, {}});
  }
}

void FlowEngine::Walk::checkUnwaitedEvents(const clang::FunctionDecl& function,
                                           const FlowState& exit, const Frame& frame) {
  const PersistentRoots roots = persistentRoots(function, frame.thisKey);
  auto outlivesTheCall = [&](const std::string& buffer) {
    return persistentStorage(buffer, roots) || rootedAtParameter(buffer, function);
  };
  // Work on a stream the caller passed in (or an array of them) is the caller's to order, as it
  // orders the stream.
  auto passedIn = [&](const std::string& stream) {
    return rootedAtParameter(stream, function, [](const clang::ParmVarDecl& parameter) {
      return reachesHandle(parameter.getType(), kStreamRecord);
    });
  };
  for (const auto& [event, record] : unwaitedRecords_) {
    auto recorded = exit.events->find(event);
    if (recorded == exit.events->end()) continue;
    for (const AccessRecord& work : recorded->second.snapshot) {
      auto pending = exit.pending->find(work);
      if (pending == exit.pending->end() || !pending->second.empty() || passedIn(work.stream) ||
          work.buffer == kCallersMemory || exit.memory->contains(work.buffer) ||
          !outlivesTheCall(work.buffer))
        continue;
      auto detail = details_.find(work);
      if (detail == details_.end() || !detail->second.call) continue;
      for (const std::unique_ptr<Check>& check : checks_)
        check->onPendingAtReturn({work, detail->second, std::nullopt, function, record, event});
      break;
    }
  }
}

} // namespace streamrace::analyzer
