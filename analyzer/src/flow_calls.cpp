// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Call and return: functions of the translation unit run in place on the caller's values.
#include "flow_walk.h"

#include "element_index.h"
#include "external_launchers.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"

#include <map>

namespace streamrace::analyzer {

namespace {

constexpr unsigned kMaxInlineDepth = 4;

} // namespace

void FlowEngine::Walk::handleCall(const clang::CallExpr& call, FlowState& state,
                                  const Frame& frame) {
  if (&call == options_.removedCall) return;
  if (std::optional<CallEffect> effect =
          classifyCall(call, options_.userModel, kernels_, context_)) {
    applyEffect(*effect, call, state, frame);
    return;
  }
  const clang::FunctionDecl* callee = call.getDirectCallee();
  if (const auto* operatorCall = llvm::dyn_cast<clang::CXXOperatorCallExpr>(&call);
      operatorCall && runCallableTargets(*operatorCall, state, frame))
    return;
  if (callee && inlineCall(call, *callee, state, frame)) return;
  forgetGlobalConditions(callee, state);
  forgetFieldsGiven(call, state, frame);
  if (const clang::FunctionDecl* definition =
          callee ? analyzableDefinition(*callee, context_.getSourceManager(),
                                        options_.externalDefinitions)
                 : nullptr;
      definition && neverReturns(*definition)) {
    state.unreachable = true;
    return;
  }
  bool launcher = false;
  if (callee) {
    auto [launch, unseen] = launches_.try_emplace(&call);
    if (unseen)
      launch->second = externalLauncherEffect(call, *callee, frame.function, context_,
                                              options_.externalDefinitions, registrations_);
    if (launch->second) enqueueDeviceWork(*launch->second, call, state, frame);
    launcher = launch->second.has_value();
  }
  // An external function given pinned host memory may read or write it right now.
  for (unsigned i = 0; i < call.getNumArgs(); ++i) {
    const clang::Expr* argument = call.getArg(i);
    const clang::QualType type = argument->IgnoreParenImpCasts()->getType();
    if (!type->isPointerType() && !type->isArrayType()) continue;
    std::optional<std::string> buffer = keyOf(argument, state, frame);
    if (!buffer) continue;
    bool writes = true;
    if (callee && i < callee->getNumParams()) {
      const clang::QualType parameter = callee->getParamDecl(i)->getType();
      writes = !(parameter->isPointerType() && parameter->getPointeeType().isConstQualified());
    }
    ByteRange range;
    range.offset = keys_.byteOffsetOf(argument, state, frame.thisKey);
    // What a launcher is given is its stream work's; anything else may be the host's.
    if (options_.adviseSyncs && !launcher) host_.touched.insert(*buffer);
    hostAccess(*buffer, range, writes, &call, state, frame);
  }
}

void FlowEngine::Walk::enqueueDeviceWork(CallEffect launch, const clang::CallExpr& call,
                                         FlowState& state, const Frame& frame) {
  // Host memory it is given, it may be filling and waiting for before it returns (a helper that
  // downloads a result): that stays the host access below.
  std::erase_if(launch.buffers, [&](const BufferUse& use) {
    std::optional<std::string> buffer = keyOf(use.expr, state, frame);
    auto memory = buffer ? state.memory->find(*buffer) : state.memory->end();
    return memory != state.memory->end() &&
           (memory->second == MemoryKind::Pinned || memory->second == MemoryKind::Pageable);
  });
  // Its events: what a recorded one stands for comes first; each stands for the work after it.
  for (const clang::Expr* given : launch.events) {
    CallEffect wait = launch;
    wait.event = given;
    std::optional<std::string> event = handleKeyOf(given, state, frame);
    auto found = event ? state.events->find(*event) : state.events->end();
    if (found != state.events->end() && found->second.status != RecordedStatus::Unrecorded)
      waitOnEvent(wait, call, state, frame);
  }
  enqueue(launch, call, state, frame);
  for (const clang::Expr* given : launch.events)
    if (std::optional<std::string> event = handleKeyOf(given, state, frame))
      recordEvent(*event, streamKeyOf(launch.stream, launch.perThreadDefaultStream, state, frame),
                  launch, call, state, frame);
}

bool FlowEngine::Walk::inlineCall(const clang::CallExpr& call, const clang::FunctionDecl& callee,
                                  FlowState& state, const Frame& frame) {
  std::optional<std::string> object;
  unsigned firstArgument = 0;
  if (const auto* memberCall = llvm::dyn_cast<clang::CXXMemberCallExpr>(&call)) {
    object = keyOf(memberCall->getImplicitObjectArgument(), state, frame);
  } else if (llvm::isa<clang::CXXOperatorCallExpr>(call) &&
             llvm::isa<clang::CXXMethodDecl>(callee)) {
    object = keyOf(call.getArg(0), state, frame);
    firstArgument = 1;
  }
  const std::vector<const clang::Expr*> arguments(call.arg_begin() + firstArgument, call.arg_end());
  return inlineFunction(call, callee, object, arguments, state, frame);
}

bool FlowEngine::Walk::runCallableTargets(const clang::CXXOperatorCallExpr& call, FlowState& state,
                                          const Frame& frame) {
  const std::vector<const clang::CXXMethodDecl*>& targets = callables_.targetsOf(call);
  if (targets.empty()) return false;
  const std::vector<const clang::Expr*> arguments(call.arg_begin() + 1, call.arg_end());
  auto madeHere = [&](const clang::CXXMethodDecl& target) {
    const clang::DeclContext* maker = target.getParent()->getParentFunctionOrMethod();
    for (const Frame* active = &frame; active; active = active->caller)
      if (active->function == maker) return true;
    return false;
  };
  std::optional<FlowState> joined;
  for (const clang::CXXMethodDecl* target : targets) {
    if (!madeHere(*target)) continue;
    FlowState ran = state;
    if (!inlineFunction(call, *target, std::nullopt, arguments, ran, frame, true)) continue;
    joined = joined ? join(*joined, ran) : std::move(ran);
  }
  if (!joined) return false;
  state = std::move(*joined);
  return true;
}

void FlowEngine::Walk::runConstructor(const clang::VarDecl& var, const clang::Expr& init,
                                      FlowState& state, const Frame& frame) {
  const auto* construction = llvm::dyn_cast<clang::CXXConstructExpr>(init.IgnoreImplicit());
  if (!construction) return;
  const std::vector<const clang::Expr*> arguments(construction->arg_begin(),
                                                  construction->arg_end());
  inlineFunction(*construction, *construction->getConstructor(), variableKey(&var), arguments,
                 state, frame);
}

void FlowEngine::Walk::adoptReturnedLocal(const clang::VarDecl& var, const clang::Expr& init,
                                          FlowState& state) {
  const auto* call = llvm::dyn_cast<clang::CallExpr>(withoutCopy(&init));
  const clang::FunctionDecl* callee = call ? call->getDirectCallee() : nullptr;
  const clang::FunctionDecl* definition =
      callee
          ? analyzableDefinition(*callee, context_.getSourceManager(), options_.externalDefinitions)
          : nullptr;
  const clang::VarDecl* returned = definition ? returnedLocal(*definition) : nullptr;
  if (!returned) return;
  const std::string from = variableKey(returned);
  const std::string to = variableKey(&var);
  rewriteKeys(
      state, from,
      [&](const std::string& key) {
        const bool rooted =
            key.starts_with(from) &&
            (key.size() == from.size() || key[from.size()] == '.' || key[from.size()] == '[');
        return rooted ? to + key.substr(from.size()) : key;
      },
      [](const ByteRange& range) { return range; });
  std::map<std::string, EventState> events;
  bool renamed = false;
  for (const auto& [name, event] : *state.events) {
    const bool rooted = name.starts_with(from + ".");
    renamed = renamed || rooted;
    events.emplace(rooted ? to + name.substr(from.size()) : name, event);
  }
  if (renamed) state.events.assign(std::move(events));
}

const clang::Expr* FlowEngine::Walk::withoutCopy(const clang::Expr* expr) {
  if (!expr) return nullptr;
  expr = expr->IgnoreImplicit();
  if (const auto* copy = llvm::dyn_cast<clang::CXXConstructExpr>(expr);
      copy && copy->getNumArgs() == 1 && copy->getConstructor()->isCopyOrMoveConstructor())
    return copy->getArg(0)->IgnoreImplicit();
  return expr;
}

const clang::VarDecl* FlowEngine::Walk::returnedLocal(const clang::FunctionDecl& function) {
  auto [slot, inserted] = returnedLocals_.try_emplace(&function, nullptr);
  if (inserted) slot->second = findReturnedLocal(function);
  return slot->second;
}

const clang::VarDecl* FlowEngine::Walk::findReturnedLocal(const clang::FunctionDecl& function) {
  if (!function.getReturnType()->isRecordType()) return nullptr;
  const clang::VarDecl* local = nullptr;
  bool single = true;
  std::vector<const clang::Stmt*> statements{function.getBody()};
  while (!statements.empty() && single) {
    const clang::Stmt* statement = statements.back();
    statements.pop_back();
    if (!statement || llvm::isa<clang::LambdaExpr>(statement)) continue;
    if (const auto* returning = llvm::dyn_cast<clang::ReturnStmt>(statement)) {
      const auto* reference =
          llvm::dyn_cast_or_null<clang::DeclRefExpr>(withoutCopy(returning->getRetValue()));
      const auto* var = reference ? llvm::dyn_cast<clang::VarDecl>(reference->getDecl()) : nullptr;
      single = var && var->hasLocalStorage() && !llvm::isa<clang::ParmVarDecl>(var) &&
               (!local || local == var);
      local = var;
      continue;
    }
    statements.insert(statements.end(), statement->child_begin(), statement->child_end());
  }
  return single ? local : nullptr;
}

void FlowEngine::Walk::runDestructor(const clang::VarDecl& var, const clang::Stmt& scopeEnd,
                                     FlowState& state, const Frame& frame) {
  const clang::CXXRecordDecl* type = var.getType()->getAsCXXRecordDecl();
  if (const clang::CXXDestructorDecl* destructor = type ? type->getDestructor() : nullptr)
    inlineFunction(scopeEnd, *destructor, variableKey(&var), {}, state, frame);
}

bool FlowEngine::Walk::inlineFunction(const clang::Stmt& call, const clang::FunctionDecl& callee,
                                      const std::optional<std::string>& object,
                                      const std::vector<const clang::Expr*>& arguments,
                                      FlowState& state, const Frame& frame, bool callableTarget) {
  const clang::FunctionDecl* definition =
      analyzableDefinition(callee, context_.getSourceManager(), options_.externalDefinitions);
  if (!definition) return false;
  if (frame.depth >= kMaxInlineDepth) {
    if (effects_.mayTouchStreams(*definition))
      remarks_.remark(RemarkKind::CallTooDeep, call.getBeginLoc(),
                      "the stream work of '" + definition->getNameAsString() +
                          "' is not seen here: calls are followed " +
                          std::to_string(kMaxInlineDepth) + " deep");
    return false;
  }
  for (const Frame* active = &frame; active; active = active->caller)
    if (active->function == definition) {
      if (effects_.mayTouchStreams(*definition))
        remarks_.remark(RemarkKind::RecursiveCall, call.getBeginLoc(),
                        "the stream work of the recursive call to '" +
                            definition->getNameAsString() + "' is not seen");
      return false;
    }

  Frame inner;
  inner.function = definition;
  inner.site = frame.site ? frame.site : &call;
  inner.call = &call;
  inner.caller = &frame;
  inner.depth = frame.depth + 1;
  inner.rootParents = frame.rootParents;
  inner.reporting = frame.reporting;
  inner.throughCallable = frame.throughCallable || callableTarget;
  if (object) inner.thisKey = *object;

  std::vector<std::pair<const clang::ParmVarDecl*, std::optional<std::string>>> bindings;
  // The byte offsets pointer arguments carry, and what integer arguments are in the caller's
  // terms (an index as indexKey spells it, a value for byte ranges).
  std::map<const clang::ParmVarDecl*, std::optional<Polynomial>> offsets;
  std::map<const clang::ParmVarDecl*, std::pair<std::string, std::optional<Polynomial>>> integers;
  for (unsigned i = 0; i < definition->getNumParams(); ++i) {
    const clang::ParmVarDecl* parameter = definition->getParamDecl(i);
    std::optional<std::string> value;
    if (i < arguments.size()) {
      const clang::Expr* argument = arguments[i];
      if (isIndexVariable(parameter))
        integers[parameter] = {keys_.indexKeyOf(argument, state),
                               keys_.valueOf(argument, state, frame.thisKey)};
      else if (parameter->getType()->isPointerType())
        offsets[parameter] = keys_.byteOffsetOf(argument, state, frame.thisKey);
      value = parameter->getType()->isPointerType() && !argument->getType()->isPointerType() &&
                      !argument->getType()->isArrayType()
                  ? streamKeyOf(argument, false, state, frame)
                  : keyOf(argument, state, frame);
      if (!value && parameter->getType()->isPointerType())
        value = streamKeyOf(argument, false, state, frame);
    }
    bindings.emplace_back(parameter, std::move(value));
  }
  if (!effects_.mayTouchStreams(*definition) &&
      !inertCallObservable(*definition, bindings, inner.thisKey, state, frame)) {
    if (neverReturns(*definition)) state.unreachable = true;
    // Not run, so its assignments are not seen (or those of what it calls elsewhere).
    forgetGlobalConditions(definition, state);
    if (const auto* called = llvm::dyn_cast<clang::CallExpr>(&call))
      forgetFieldsGiven(*called, state, frame);
    return true;
  }

  const FunctionCfg* calleeCfg = cfgFor(*definition);
  if (!calleeCfg) return false;
  inner.parents = calleeCfg->parents.get();
  for (const auto& [parameter, argument] : integers)
    setEntry(state.integers, parameter, IntegerBinding{argument.first, argument.second});
  for (unsigned i = 0; i < bindings.size(); ++i) {
    auto& [parameter, value] = bindings[i];
    // Another call of the same function: what an earlier one's branches knew is gone.
    forgetCondition(parameter, state);
    if (const clang::VarDecl* given =
            i < arguments.size() && parameter->getType()->isIntegralOrEnumerationType()
                ? conditionVariable(arguments[i])
                : nullptr) {
      auto alias = state.conditionAliases->find(given);
      setEntry(state.conditionAliases, parameter,
               alias != state.conditionAliases->end() ? alias->second : given);
    }
    eraseEntry(state.aliases, parameter);
    eraseEntry(state.aliasOffsets, parameter);
    if (isIndexVariable(parameter)) forgetIndexVariable(parameter, state);
    if (!value) continue;
    setEntry(state.aliases, parameter, std::move(*value));
    if (auto offset = offsets.find(parameter); offset != offsets.end())
      bindOffset(parameter, offset->second, state);
  }
  state = run(*definition, std::move(state), inner);
  for (const auto& [parameter, argument] : integers) {
    eraseEntry(state.integers, parameter);
    // Left over where the callee changed its parameter (`++layer`): forgotten.
    forgetIndexVariable(parameter, state);
  }
  return true;
}

bool FlowEngine::Walk::inertCallObservable(
    const clang::FunctionDecl& definition,
    const std::vector<std::pair<const clang::ParmVarDecl*, std::optional<std::string>>>& bindings,
    const std::string& thisKey, const FlowState& state, const Frame& frame) {
  if (frame.reporting)
    for (const auto& [buffer, kind] : *state.memory)
      if (kind == MemoryKind::Pinned) return true;
  const LoopRenames& loops = effects_.loopRenames(definition);
  if (loops.empty()) return false;
  if (loops.opaque) return true;
  std::vector<std::string> mentions;
  mentions.reserve(loops.variables.size());
  for (const clang::ValueDecl* variable : loops.variables)
    mentions.push_back(variableKey(variable));
  if (!loops.containers.empty()) {
    // The arrays as the callee names them when its loops start: its parameters bound to the
    // arguments, everything else as the caller has it.
    FlowState callee;
    callee.aliases = state.aliases;
    for (const auto& [parameter, value] : bindings) {
      eraseEntry(callee.aliases, parameter);
      if (value) setEntry(callee.aliases, parameter, *value);
    }
    Frame calleeFrame;
    calleeFrame.thisKey = thisKey;
    for (const clang::Expr* container : loops.containers)
      if (std::optional<std::string> key = keyOf(container, callee, calleeFrame))
        mentions.push_back(*key + "[");
  }
  auto mentioned = [&](llvm::StringRef key) {
    for (const std::string& mention : mentions)
      if (key.contains(mention)) return true;
    return false;
  };
  auto recordMentioned = [&](const AccessRecord& record) {
    if (mentioned(record.buffer) || mentioned(record.streamElement)) return true;
    for (const std::string& mention : mentions)
      if (record.range.mentions(mention)) return true;
    return false;
  };
  for (const auto& [record, orderedAfter] : *state.pending)
    if (recordMentioned(record)) return true;
  for (const auto& [name, event] : *state.events) {
    if (mentioned(name)) return true;
    for (const AccessRecord& record : event.snapshot)
      if (recordMentioned(record)) return true;
  }
  for (const auto& [variable, target] : *state.aliases)
    if (mentioned(target)) return true;
  for (const auto& [buffer, kind] : *state.memory)
    if (mentioned(buffer)) return true;
  return false;
}
} // namespace streamrace::analyzer
