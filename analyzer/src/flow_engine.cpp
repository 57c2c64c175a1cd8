// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The worklist over each function's CFG: paths, branches, loops, statements and lifetimes.
#include "flow_walk.h"

#include "element_index.h"
#include "sub_statements.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtOpenMP.h"
#include "clang/Basic/SourceManager.h"

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <set>

namespace streamrace::analyzer {

namespace {

constexpr unsigned kMaxVisitsPerBlock = 32;

// Where a remark about `block` points: its loop or branch, else its first statement.
clang::SourceLocation placeOf(const clang::CFGBlock& block, const clang::FunctionDecl& function) {
  if (const clang::Stmt* terminator = block.getTerminatorStmt()) return terminator->getBeginLoc();
  for (const clang::CFGElement& element : block)
    if (std::optional<clang::CFGStmt> statement = element.getAs<clang::CFGStmt>())
      return statement->getStmt()->getBeginLoc();
  return function.getLocation();
}

// OpenMP directives whose body runs where it stands, on the threads at hand: the one-thread
// run the analysis makes of them is the model (analyzer/README.md, OpenMP). Tasks, target regions
// and the rest run elsewhere or later, and are approximated by the same run.
bool runsInPlace(const clang::OMPExecutableDirective& directive) {
  return llvm::isa<
      clang::OMPParallelDirective, clang::OMPForDirective, clang::OMPParallelForDirective,
      clang::OMPSectionsDirective, clang::OMPSectionDirective, clang::OMPParallelSectionsDirective,
      clang::OMPSingleDirective, clang::OMPMasterDirective, clang::OMPMaskedDirective,
      clang::OMPCriticalDirective, clang::OMPBarrierDirective, clang::OMPAtomicDirective,
      clang::OMPFlushDirective, clang::OMPSimdDirective, clang::OMPForSimdDirective,
      clang::OMPParallelForSimdDirective, clang::OMPOrderedDirective, clang::OMPTaskwaitDirective>(
      directive);
}

} // namespace

void FlowEngine::Walk::analyzeFunction(const clang::FunctionDecl& function) {
  // Starting from nothing, a function that does no stream work has nothing to report.
  if (!effects_.mayTouchStreams(function)) return;
  const FunctionCfg* cfg = cfgFor(function);
  if (!cfg) {
    remarks_.remark(RemarkKind::NoFlowGraph, function.getLocation(),
                    "'" + function.getNameAsString() +
                        "' is not analysed: Clang could not build its control-flow graph");
    return;
  }
  Frame frame;
  frame.function = &function;
  frame.parents = cfg->parents.get();
  frame.rootParents = cfg->parents.get();
  frame.reporting = true;
  FlowState entry;
  // What the translation unit's other functions allocated into the fields of its object and of
  // the objects its parameters point to (field_memory.h).
  auto pinnedFieldsOf = [&](const clang::CXXRecordDecl* record, const std::string& object) {
    if (!record || !record->hasDefinition()) return;
    for (const clang::FieldDecl* field : fieldMemory_.pinnedFields(*record))
      setEntry(entry.memory, object + "." + field->getNameAsString(), MemoryKind::Pinned);
  };
  if (const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(&function);
      method && method->isInstance())
    pinnedFieldsOf(method->getParent(), frame.thisKey);
  for (const clang::ParmVarDecl* parameter : function.parameters()) {
    const clang::QualType type = parameter->getType();
    if (type->isPointerType() || type->isReferenceType())
      pinnedFieldsOf(type->getPointeeType()->getAsCXXRecordDecl(), variableKey(parameter));
  }
  awaitedBeforeRecorded_.clear();
  firstRecorded_.clear();
  unwaitedRecords_.clear();
  root_ = &function;
  contract_ = streamContract(function, frame.thisKey);
  if (contract_) expectCallersWork(*contract_, function, entry);
  const FlowState exit = run(function, entry, frame);
  if (contract_ && !exit.unreachable) checkReturn(*contract_, exit, function);
  if (!exit.unreachable && entryPoints_.calledAgainFromOutside(function)) {
    if (!contract_) checkReturnWithoutStream(function, exit, frame);
    checkUnwaitedEvents(function, exit, frame);
    runNextCall(function, std::move(entry), exit, frame);
  }
  contract_.reset();
}

const FlowEngine::Walk::FunctionCfg* FlowEngine::Walk::cfgFor(const clang::FunctionDecl& function) {
  auto [slot, inserted] = cfgs_.try_emplace(&function);
  if (!inserted) return slot->second.cfg ? &slot->second : nullptr;
  clang::Stmt* body = function.getBody();
  if (!body) return nullptr;
  clang::CFG::BuildOptions options;
  options.setAllAlwaysAdd();
  options.AddCXXDefaultInitExprInCtors = false;
  // A constructor's `stream_(stream)` binds the field to what the caller passed.
  options.AddInitializers = true;
  // A variable's death ends what its value said about elements (element_index.h).
  options.AddLifetime = true;
  // A local object's destructor runs where its scope ends (an RAII buffer's stream-ordered free).
  options.AddImplicitDtors = true;
  slot->second.cfg = clang::CFG::buildCFG(&function, body, &context_, options);
  if (!slot->second.cfg) return nullptr;
  slot->second.parents = std::make_unique<clang::ParentMap>(body);
  addCapturedRegions(*slot->second.parents, *body);
  return &slot->second;
}

FlowState FlowEngine::Walk::run(const clang::FunctionDecl& function, FlowState entry,
                                const Frame& frame) {
  const FunctionCfg* functionCfg = cfgFor(function);
  if (!functionCfg) return entry;
  const clang::CFG& cfg = *functionCfg->cfg;
  std::vector<std::optional<FlowState>> in(cfg.getNumBlockIDs());
  std::vector<unsigned> visits(cfg.getNumBlockIDs(), 0);
  std::deque<const clang::CFGBlock*> worklist;
  in[cfg.getEntry().getBlockID()] = std::move(entry);
  worklist.push_back(&cfg.getEntry());
  Frame quiet = frame;
  quiet.reporting = false;
  // What flows into each `for` loop from before it: its first iteration starts there. The
  // blocks that branch on it are run again when it grows (withoutLaterIterations keeps more).
  std::map<const clang::ForStmt*, FlowState> loopEntries;
  std::map<const clang::ForStmt*, std::set<const clang::CFGBlock*>> firstIterationGuards;
  // What flows back to each `for` loop's condition from its iterations: leaving the loop, it
  // and loopEntries are two paths (loopExit).
  std::map<const clang::ForStmt*, FlowState> loopIterations;
  while (!worklist.empty()) {
    const clang::CFGBlock* block = worklist.front();
    worklist.pop_front();
    FlowState state = *in[block->getBlockID()];
    transferBlock(*block, state, quiet);
    // The edge from a call that never returns to the exit is no path.
    if (state.unreachable || block->hasNoReturnElement()) continue;
    const std::optional<FirstIterationBranch> firstIteration =
        firstIterationBranch(*block, *functionCfg->parents, context_);
    if (firstIteration) firstIterationGuards[firstIteration->loop].insert(block);
    if (block->getLoopTarget()) forgetFinishedLoops(state);
    const std::optional<BooleanBranch> branch = booleanBranch(*block, state, frame);
    const std::optional<FlowState::Conditions> conjunction =
        branch ? conjunctionOf(*block, *functionCfg->parents, state, frame) : std::nullopt;
    const auto* testedLoop = llvm::dyn_cast_or_null<clang::ForStmt>(block->getTerminatorStmt());
    std::optional<LoopEntry> entryTest;
    if (testedLoop) entryTest = loopEntry(*testedLoop, context_);
    unsigned edge = 0;
    for (const clang::CFGBlock::AdjacentBlock& successor : block->succs()) {
      const clang::CFGBlock* next = successor.getReachableBlock();
      const unsigned index = edge++;
      if (!next) continue;
      // An exception leaving the function is no return: the caller's next statement does not
      // run after it, so work pending when it is thrown must not reach the caller.
      if (next == &cfg.getExit() && endsInThrow(*block)) continue;
      if (const auto* loop = llvm::dyn_cast_or_null<clang::ForStmt>(next->getTerminatorStmt());
          loop && block->getLoopTarget() != loop) {
        auto [slot, inserted] = loopEntries.try_emplace(loop, state);
        if (FlowState joined = join(slot->second, state); !inserted && !(joined == slot->second)) {
          slot->second = std::move(joined);
          for (const clang::CFGBlock* guard : firstIterationGuards[loop])
            worklist.push_back(guard);
          worklist.push_back(next);
        }
      } else if (loop) {
        auto [slot, inserted] = loopIterations.try_emplace(loop, state);
        if (inserted) {
          // The first iteration back: the condition's exit edge has a path now, even when
          // the body changed nothing and the condition would not be visited again.
          worklist.push_back(next);
        } else if (FlowState joined = join(slot->second, state); !(joined == slot->second)) {
          slot->second = std::move(joined);
          worklist.push_back(next);
        }
      }
      FlowState leaving = firstIteration && firstIteration->successor == index
                              ? withoutLaterIterations(state, *firstIteration, loopEntries)
                              : state;
      if (branch && index < 2) assume(branch->condition, (index == 0) != branch->negated, leaving);
      // Leaving `a && b` false at one of its operands: not all of them hold.
      if (conjunction && index == 1) exclude(*conjunction, leaving);
      if (entryTest && entryTest->variable && index == 0)
        assume(enteredWhen(*entryTest), entryTest->above, leaving);
      if (entryTest && index == 1) {
        std::optional<FlowState> exit =
            loopExit(*block, *testedLoop, *entryTest, loopEntries, loopIterations, quiet);
        if (!exit) continue;
        leaving = std::move(*exit);
      }
      std::optional<FlowState>& target = in[next->getBlockID()];
      FlowState updated = target ? join(*target, leaving) : leaving;
      if (target && *target == updated) continue;
      if (++visits[next->getBlockID()] > kMaxVisitsPerBlock) {
        remarks_.remark(RemarkKind::LoopUnsettled, placeOf(*next, function),
                        "the analysis stopped after " + std::to_string(kMaxVisitsPerBlock) +
                            " passes over this loop before its state settled; work of later "
                            "iterations may be missed");
        continue;
      }
      target = std::move(updated);
      worklist.push_back(next);
    }
  }
  if (frame.reporting)
    for (const clang::CFGBlock* block : cfg)
      if (in[block->getBlockID()]) {
        FlowState state = *in[block->getBlockID()];
        transferBlock(*block, state, frame);
      }
  const std::optional<FlowState>& exit = in[cfg.getExit().getBlockID()];
  if (exit) return *exit;
  FlowState never;
  never.unreachable = true;
  return never;
}

bool FlowEngine::Walk::endsInThrow(const clang::CFGBlock& block) {
  for (auto element = block.rbegin(); element != block.rend(); ++element)
    if (std::optional<clang::CFGStmt> statement = element->getAs<clang::CFGStmt>())
      return llvm::isa<clang::CXXThrowExpr>(statement->getStmt());
  return false;
}

const clang::VarDecl* FlowEngine::Walk::conditionVariable(const clang::Expr* expr) const {
  const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(expr->IgnoreParenImpCasts());
  const auto* variable = reference ? llvm::dyn_cast<clang::VarDecl>(reference->getDecl()) : nullptr;
  if (!variable || variable->getType().isVolatileQualified() ||
      !variable->getType()->isIntegralOrEnumerationType())
    return nullptr;
  if (variable->hasLocalStorage()) return variable;
  return variable->hasGlobalStorage() && !variable->isStaticLocal() &&
                 !context_.getSourceManager().isInSystemHeader(variable->getLocation())
             ? variable
             : nullptr;
}

std::optional<Condition> FlowEngine::Walk::fieldCondition(const clang::Expr* expr,
                                                          const FlowState& state,
                                                          const Frame& frame) const {
  const auto* member = llvm::dyn_cast<clang::MemberExpr>(expr->IgnoreParenImpCasts());
  const auto* field = member ? llvm::dyn_cast<clang::FieldDecl>(member->getMemberDecl()) : nullptr;
  if (!field || field->getType().isVolatileQualified() || !entryPoints_.isFlag(field))
    return std::nullopt;
  std::optional<std::string> object = keyOf(member->getBase(), state, frame);
  if (!object) return std::nullopt;
  Condition condition;
  condition.variable = field;
  condition.object = std::move(*object);
  return condition;
}

void FlowEngine::Walk::assignField(const clang::MemberExpr& field, const clang::Expr* value,
                                   FlowState& state, const Frame& frame) const {
  const clang::ValueDecl* member = field.getMemberDecl();
  auto about = [&](const auto& known) { return known.first.variable == member; };
  if (std::any_of(state.conditions->begin(), state.conditions->end(), about) ||
      std::any_of(state.exclusions->begin(), state.exclusions->end(),
                  [&](const FlowState::Conditions& excluded) {
                    return std::any_of(excluded.begin(), excluded.end(), about);
                  }))
    forgetCondition(member, state);
  if (!value) return;
  const std::optional<int64_t> assigned = constantValue(value, context_);
  if (!assigned) return;
  std::optional<Condition> flag = fieldCondition(&field, state, frame);
  if (!flag) return;
  setEntry(state.conditions, *flag, *assigned > 0);
}

std::optional<FlowEngine::Walk::BooleanBranch>
FlowEngine::Walk::conditionOf(const clang::Expr* condition, const FlowState& state,
                              const Frame& frame) const {
  if (!condition) return std::nullopt;
  BooleanBranch branch;
  condition = condition->IgnoreParenImpCasts();
  while (const auto* negation = llvm::dyn_cast<clang::UnaryOperator>(condition)) {
    if (negation->getOpcode() != clang::UO_LNot) return std::nullopt;
    branch.negated = !branch.negated;
    condition = negation->getSubExpr()->IgnoreParenImpCasts();
  }
  const clang::VarDecl* variable = nullptr;
  if (const auto* comparison = llvm::dyn_cast<clang::BinaryOperator>(condition);
      comparison && comparison->isEqualityOp()) {
    const clang::Expr* tested = comparison->getLHS();
    std::optional<int64_t> value = constantValue(comparison->getRHS(), context_);
    if (!value) {
      tested = comparison->getRHS();
      value = constantValue(comparison->getLHS(), context_);
    }
    if (!value) return std::nullopt;
    if (comparison->getOpcode() == clang::BO_NE) branch.negated = !branch.negated;
    variable = conditionVariable(tested);
    if (!variable) {
      std::optional<Condition> field = fieldCondition(tested, state, frame);
      if (!field) return std::nullopt;
      branch.condition = std::move(*field);
    }
    branch.condition.threshold = *value;
    branch.condition.equals = true;
    if (!variable) return branch;
  } else {
    variable = conditionVariable(condition);
    if (!variable) {
      std::optional<Condition> field = fieldCondition(condition, state, frame);
      if (!field || !field->variable->getType()->isBooleanType()) return std::nullopt;
      branch.condition = std::move(*field);
      return branch;
    }
    if (!variable->getType()->isBooleanType()) return std::nullopt;
  }
  auto alias = state.conditionAliases->find(variable);
  if (alias == state.conditionAliases->end()) {
    branch.condition.variable = variable;
    return branch;
  }
  branch.condition.variable = alias->second;
  // A boolean parameter given an integer (`int access` for `bool p2paccess`) is true where the
  // integer is not 0.
  if (!branch.condition.equals && !alias->second->getType()->isBooleanType()) {
    branch.condition.equals = true;
    branch.negated = !branch.negated;
  }
  return branch;
}

std::optional<FlowEngine::Walk::BooleanBranch>
FlowEngine::Walk::booleanBranch(const clang::CFGBlock& block, const FlowState& state,
                                const Frame& frame) const {
  if (block.succ_size() != 2) return std::nullopt;
  return conditionOf(block.getLastCondition(), state, frame);
}

std::optional<FlowState::Conditions>
FlowEngine::Walk::conjunctionOf(const clang::CFGBlock& block, const clang::ParentMap& parents,
                                const FlowState& state, const Frame& frame) const {
  const clang::Expr* leaf = block.succ_size() == 2 ? block.getLastCondition() : nullptr;
  if (!leaf) return std::nullopt;
  auto parentOf = [&](const clang::Stmt* child) {
    const clang::Stmt* parent = parents.getParent(child);
    while (parent &&
           (llvm::isa<clang::ParenExpr>(parent) || llvm::isa<clang::ImplicitCastExpr>(parent)))
      parent = parents.getParent(parent);
    return parent;
  };
  const clang::Stmt* top = leaf;
  while (const auto* conjunction = llvm::dyn_cast_or_null<clang::BinaryOperator>(parentOf(top))) {
    if (conjunction->getOpcode() != clang::BO_LAnd) break;
    top = conjunction;
  }
  if (top == leaf) return std::nullopt;
  FlowState::Conditions all;
  std::vector<const clang::Expr*> operands = {llvm::cast<clang::Expr>(top)};
  while (!operands.empty()) {
    const clang::Expr* operand = operands.back()->IgnoreParenImpCasts();
    operands.pop_back();
    if (const auto* conjunction = llvm::dyn_cast<clang::BinaryOperator>(operand);
        conjunction && conjunction->getOpcode() == clang::BO_LAnd) {
      operands.push_back(conjunction->getLHS());
      operands.push_back(conjunction->getRHS());
      continue;
    }
    const std::optional<BooleanBranch> literal = conditionOf(operand, state, frame);
    if (!literal) return std::nullopt;
    auto [slot, inserted] = all.try_emplace(literal->condition, !literal->negated);
    if (!inserted && slot->second != !literal->negated) return std::nullopt;
  }
  return all;
}

namespace {

bool allHold(const FlowState::Conditions& exclusion, const FlowState::Conditions& known) {
  return std::all_of(exclusion.begin(), exclusion.end(), [&](const auto& literal) {
    auto found = known.find(literal.first);
    return found != known.end() && found->second == literal.second;
  });
}

} // namespace

void FlowEngine::Walk::assume(const Condition& condition, bool value, FlowState& state) {
  if (auto known = state.conditions->find(condition); known != state.conditions->end()) {
    if (known->second != value) state.unreachable = true;
    return;
  }
  setEntry(state.conditions, condition, value);
  auto nowHolds = [&](const FlowState::Conditions& exclusion) {
    auto literal = exclusion.find(condition);
    return literal != exclusion.end() && literal->second == value &&
           allHold(exclusion, *state.conditions);
  };
  if (std::any_of(state.exclusions->begin(), state.exclusions->end(), nowHolds)) {
    state.unreachable = true;
    return;
  }
  std::vector<AccessRecord> impossible;
  for (const auto& [record, conditions] : *state.recordConditions)
    if (auto made = conditions.find(condition); made != conditions.end() && made->second != value)
      impossible.push_back(record);
  for (const auto& [record, exclusions] : *state.recordExclusions)
    if (std::any_of(exclusions.begin(), exclusions.end(), nowHolds)) impossible.push_back(record);
  for (const AccessRecord& record : impossible)
    eraseEntry(state.pending, record);
}

void FlowEngine::Walk::exclude(FlowState::Conditions conjunction, FlowState& state) {
  if (!state.exclusions->contains(conjunction))
    state.exclusions.edit().insert(std::move(conjunction));
}

void FlowEngine::Walk::forgetConditionsIf(llvm::function_ref<bool(const clang::ValueDecl*)> changed,
                                          FlowState& state) {
  // A parameter given a new value is no longer the caller's variable, nor is one whose caller's
  // variable changed: it keeps the value it was given.
  if (std::any_of(state.conditionAliases->begin(), state.conditionAliases->end(),
                  [&](const auto& alias) { return changed(alias.first) || changed(alias.second); }))
    std::erase_if(state.conditionAliases.edit(),
                  [&](const auto& alias) { return changed(alias.first) || changed(alias.second); });
  auto about = [&](const auto& known) { return changed(known.first.variable); };
  auto mentions = [&](const FlowState::Conditions& conditions) {
    return std::any_of(conditions.begin(), conditions.end(), about);
  };
  if (mentions(*state.conditions)) std::erase_if(state.conditions.edit(), about);
  if (std::any_of(state.exclusions->begin(), state.exclusions->end(), mentions))
    std::erase_if(state.exclusions.edit(), mentions);
  if (std::any_of(state.recordConditions->begin(), state.recordConditions->end(),
                  [&](const auto& entry) { return mentions(entry.second); }))
    for (auto& [record, conditions] : state.recordConditions.edit())
      std::erase_if(conditions, about);
  if (std::any_of(state.recordExclusions->begin(), state.recordExclusions->end(),
                  [&](const auto& entry) {
                    return std::any_of(entry.second.begin(), entry.second.end(), mentions);
                  }))
    for (auto& [record, exclusions] : state.recordExclusions.edit())
      std::erase_if(exclusions, mentions);
}

void FlowEngine::Walk::forgetCondition(const clang::ValueDecl* variable, FlowState& state) {
  forgetConditionsIf([&](const clang::ValueDecl* known) { return known == variable; }, state);
}

bool FlowEngine::Walk::isLibraryFunction(const clang::FunctionDecl* callee) const {
  return callee &&
         (context_.getSourceManager().isInSystemHeader(callee->getLocation()) ||
          callee->isInStdNamespace() ||
          (callee->getDeclName().isIdentifier() &&
           (callee->getName().starts_with("cuda") || callee->getName().starts_with("__cuda") ||
            callee->getName().starts_with("nccl"))));
}

void FlowEngine::Walk::forgetGlobalConditions(const clang::FunctionDecl* callee,
                                              FlowState& state) const {
  if (isLibraryFunction(callee)) return;
  forgetConditionsIf(
      [](const clang::ValueDecl* known) {
        const auto* variable = llvm::dyn_cast<clang::VarDecl>(known);
        return variable && !variable->hasLocalStorage();
      },
      state);
}

void FlowEngine::Walk::forgetFieldsGiven(const clang::CallExpr& call, FlowState& state,
                                         const Frame& frame) const {
  if (isLibraryFunction(call.getDirectCallee()) ||
      std::none_of(state.conditions->begin(), state.conditions->end(),
                   [](const auto& known) { return !known.first.object.empty(); }))
    return;
  // What a call can change is what it is given a pointer or reference to; a pointer names what it
  // points to, so a field is reached from an argument whose key its object's key starts with.
  std::vector<std::string> given;
  for (const clang::Expr* argument : call.arguments()) {
    const clang::QualType type = argument->IgnoreParenImpCasts()->getType();
    if (!type->isPointerType() && !type->isArrayType() && !argument->isGLValue()) continue;
    if (std::optional<std::string> key = keyOf(argument, state, frame)) given.push_back(*key);
  }
  if (const auto* member = llvm::dyn_cast<clang::CXXMemberCallExpr>(&call))
    if (std::optional<std::string> key = keyOf(member->getImplicitObjectArgument(), state, frame))
      given.push_back(*key);
  std::set<const clang::ValueDecl*> changed;
  for (const auto& [known, value] : *state.conditions)
    if (!known.object.empty() &&
        std::any_of(given.begin(), given.end(),
                    [&](const std::string& key) { return isRootedAt(known.object, key); }))
      changed.insert(known.variable);
  forgetConditionsIf([&](const clang::ValueDecl* known) { return changed.contains(known); }, state);
}

Condition FlowEngine::Walk::enteredWhen(const LoopEntry& entry) {
  Condition entered;
  entered.variable = entry.variable;
  entered.threshold = entry.threshold;
  return entered;
}

std::optional<FlowState> FlowEngine::Walk::loopExit(
    const clang::CFGBlock& condition, const clang::ForStmt& loop, const LoopEntry& entry,
    const std::map<const clang::ForStmt*, FlowState>& entries,
    const std::map<const clang::ForStmt*, FlowState>& iterations, const Frame& quiet) {
  std::optional<FlowState> exit;
  auto add = [&](FlowState state) {
    transferBlock(condition, state, quiet);
    if (state.unreachable) return;
    exit = exit ? join(*exit, state) : std::move(state);
  };
  if (auto iterated = iterations.find(&loop); iterated != iterations.end()) add(iterated->second);
  if (auto before = entries.find(&loop); entry.variable && before != entries.end()) {
    FlowState skipped = before->second;
    assume(enteredWhen(entry), !entry.above, skipped);
    add(std::move(skipped));
  }
  return exit;
}

void FlowEngine::Walk::noteConditions(const AccessRecord& record, FlowState& state) {
  if (state.conditions->empty())
    eraseEntry(state.recordConditions, record);
  else
    setEntry(state.recordConditions, record, *state.conditions);
  if (state.exclusions->empty())
    eraseEntry(state.recordExclusions, record);
  else
    setEntry(state.recordExclusions, record, *state.exclusions);
}

FlowState FlowEngine::Walk::withoutLaterIterations(
    FlowState state, const FirstIterationBranch& branch,
    const std::map<const clang::ForStmt*, FlowState>& loopEntries) const {
  const clang::SourceManager& sources = context_.getSourceManager();
  const clang::SourceLocation loopEnd = sources.getExpansionLoc(branch.loop->getEndLoc());
  const clang::SourceLocation guardEnd = sources.getExpansionLoc(branch.guardEnd);
  auto afterGuard = [&](const clang::Stmt* call) {
    if (!call) return false;
    const clang::SourceLocation at = sources.getExpansionLoc(callLocation(*call));
    return sources.isBeforeInTranslationUnit(guardEnd, at) &&
           !sources.isBeforeInTranslationUnit(loopEnd, at);
  };
  auto entry = loopEntries.find(branch.loop);
  eraseIf(state.pending, [&](const auto& pending) {
    const AccessRecord& record = pending.first;
    if (entry != loopEntries.end() && entry->second.pending->contains(record)) return false;
    auto detail = details_.find(record);
    if (detail == details_.end()) return false;
    return afterGuard(detail->second.call) ||
           std::any_of(detail->second.chain.begin(), detail->second.chain.end(),
                       [&](const CallStep& step) { return afterGuard(step.call); });
  });
  return state;
}

bool FlowEngine::Walk::neverReturns(const clang::FunctionDecl& definition) {
  auto [slot, inserted] = neverReturns_.try_emplace(&definition, false);
  if (!inserted) return slot->second;
  const FunctionCfg* functionCfg = cfgFor(definition);
  if (!functionCfg) return false;
  const clang::CFGBlock& exit = functionCfg->cfg->getExit();
  slot->second =
      exit.pred_size() > 0 &&
      std::all_of(exit.pred_begin(), exit.pred_end(), [](const auto& predecessor) {
        return !predecessor.isReachable() || predecessor.getReachableBlock()->hasNoReturnElement();
      });
  return slot->second;
}

void FlowEngine::Walk::transferBlock(const clang::CFGBlock& block, FlowState& state,
                                     const Frame& frame) {
  for (const clang::CFGElement& element : block) {
    if (state.unreachable) return;
    if (std::optional<clang::CFGStmt> statement = element.getAs<clang::CFGStmt>())
      transferStatement(statement->getStmt(), state, frame);
    else if (std::optional<clang::CFGInitializer> initializer =
                 element.getAs<clang::CFGInitializer>())
      initializeField(*initializer->getInitializer(), state, frame);
    else if (std::optional<clang::CFGAutomaticObjDtor> destructor =
                 element.getAs<clang::CFGAutomaticObjDtor>())
      runDestructor(*destructor->getVarDecl(), *destructor->getTriggerStmt(), state, frame);
    else if (std::optional<clang::CFGLifetimeEnds> ends = element.getAs<clang::CFGLifetimeEnds>())
      endLifetime(ends->getVarDecl(), state, frame);
  }
}

void FlowEngine::Walk::transferStatement(const clang::Stmt* stmt, FlowState& state,
                                         const Frame& frame) {
  if (const auto* declaration = llvm::dyn_cast<clang::DeclStmt>(stmt)) {
    for (const clang::Decl* decl : declaration->decls())
      if (const auto* var = llvm::dyn_cast<clang::VarDecl>(decl)) {
        forgetCondition(var, state);
        // A loop body's declaration runs again each iteration: the old value is gone.
        if (isIndexVariable(var)) {
          forgetIndexVariable(var, state);
          eraseEntry(state.integers, var);
          if (const clang::ForStmt* loop = loopStartedBy(declaration, frame);
              loop && var->getInit())
            rebaseIndexVariable(var, var->getInit(), *loop, state, frame);
          else if (var->getInit())
            bindNeighbourIndex(*var, *declaration, state, frame);
        }
        noteOwnedHostMemory(*var, state);
        if (const clang::Expr* init = var->getInit()) {
          bindVariable(var, init, state, frame);
          runConstructor(*var, *init, state, frame);
          initializeFields(*var, *init, state, frame);
          adoptReturnedLocal(*var, *init, state);
        }
      }
    return;
  }
  if (const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(stmt)) {
    if (const auto* reference =
            llvm::dyn_cast<clang::DeclRefExpr>(binary->getLHS()->IgnoreParenImpCasts());
        reference && binary->isAssignmentOp())
      forgetCondition(reference->getDecl(), state);
    if (const clang::ValueDecl* index = indexVariable(binary->getLHS());
        index && binary->isAssignmentOp()) {
      const std::optional<int64_t> step = constantValue(binary->getRHS(), context_);
      if (step && binary->getOpcode() == clang::BO_AddAssign)
        shiftIndexVariable(index, *step, state);
      else if (step && binary->getOpcode() == clang::BO_SubAssign)
        shiftIndexVariable(index, -*step, state);
      else
        forgetIndexVariable(index, state);
      if (const clang::ForStmt* loop = loopStartedBy(binary, frame);
          loop && binary->getOpcode() == clang::BO_Assign)
        rebaseIndexVariable(index, binary->getRHS(), *loop, state, frame);
      return;
    }
    const clang::Expr* target = binary->getLHS()->IgnoreParenImpCasts();
    if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(target);
        member && binary->isAssignmentOp())
      assignField(*member, binary->getOpcode() == clang::BO_Assign ? binary->getRHS() : nullptr,
                  state, frame);
    if (binary->getOpcode() != clang::BO_Assign) return;
    if (const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(target))
      if (const auto* var = llvm::dyn_cast<clang::VarDecl>(reference->getDecl()))
        bindVariable(var, binary->getRHS(), state, frame);
    if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(target);
        member && member->getType()->isPointerType())
      if (std::optional<std::string> field = keys_.fieldKeyOf(*member, state, frame.thisKey))
        bindField(*field, binary->getRHS(), state, frame);
    return;
  }
  if (const auto* call = llvm::dyn_cast<clang::CallExpr>(stmt)) {
    handleCall(*call, state, frame);
    return;
  }
  if (const auto* directive = llvm::dyn_cast<clang::OMPExecutableDirective>(stmt)) {
    if (!runsInPlace(*directive))
      remarks_.remark(RemarkKind::OpenMPConstruct, directive->getBeginLoc(),
                      "OpenMP '" +
                          llvm::omp::getOpenMPDirectiveName(directive->getDirectiveKind()).str() +
                          "' is analysed as if its body ran here, once");
    return;
  }
  if (const auto* deletion = llvm::dyn_cast<clang::CXXDeleteExpr>(stmt)) {
    if (std::optional<std::string> buffer = keyOf(deletion->getArgument(), state, frame))
      freeOnHost(*buffer, deletion->isArrayForm() ? "delete[]" : "delete", deletion, state, frame);
    return;
  }
  if (const auto* subscript = llvm::dyn_cast<clang::ArraySubscriptExpr>(stmt)) {
    if (subscript->getType()->isPointerType() || !subscript->getBase()->getType()->isPointerType())
      return;
    hostElementAccess(subscript, subscript->getBase(), state, frame);
    return;
  }
  if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(stmt)) {
    if (const clang::ValueDecl* index = indexVariable(unary->getSubExpr());
        index && unary->isIncrementDecrementOp())
      shiftIndexVariable(index, unary->isIncrementOp() ? 1 : -1, state);
    if (const auto* reference =
            llvm::dyn_cast<clang::DeclRefExpr>(unary->getSubExpr()->IgnoreParenImpCasts());
        reference && unary->isIncrementDecrementOp())
      forgetCondition(reference->getDecl(), state);
    if (const auto* member =
            llvm::dyn_cast<clang::MemberExpr>(unary->getSubExpr()->IgnoreParenImpCasts());
        member && unary->isIncrementDecrementOp())
      assignField(*member, nullptr, state, frame);
    if (unary->getOpcode() == clang::UO_Deref && !unary->getType()->isPointerType())
      hostElementAccess(unary, unary->getSubExpr(), state, frame);
  }
}

void FlowEngine::Walk::endLifetime(const clang::VarDecl* var, FlowState& state,
                                   const Frame& frame) {
  if (isIndexVariable(var)) {
    forgetIndexVariable(var, state);
    eraseEntry(state.integers, var);
    return;
  }
  // The root function's parameter names its caller's storage (what a pointer points to, an
  // object's fields' buffers): its end at a `return` leaves that storage, and the work pending on
  // it, to the caller. (A callee's parameter names the caller's storage through its alias.)
  if (var->getType()->isReferenceType() || state.aliases->contains(var) ||
      (llvm::isa<clang::ParmVarDecl>(var) && !frame.caller))
    return;
  const std::string root = variableKey(var);
  auto rooted = [&](llvm::StringRef key) { return isRootedAt(key, root); };
  // Still named through a pointer or reference bound to it: kept.
  for (const auto& [alias, target] : *state.aliases)
    if (rooted(target)) return;
  eraseIf(state.pending, [&](const auto& entry) { return rooted(entry.first.buffer); });
  eraseIf(state.memory, [&](const auto& entry) { return rooted(entry.first); });
  eraseIf(state.fieldAliases,
          [&](const auto& entry) { return rooted(entry.first) || rooted(entry.second); });
}
FlowEngine::FlowEngine(clang::ASTContext& context, const AnalysisOptions& options,
                       std::vector<std::unique_ptr<Check>> checks, RemarkSink& remarks,
                       const std::vector<const clang::FunctionDecl*>& functions,
                       const std::vector<const clang::FunctionDecl*>& project)
    : walk_(std::make_unique<Walk>(context, options, std::move(checks), remarks, functions,
                                   project)) {}

FlowEngine::~FlowEngine() = default;

void FlowEngine::analyzeFunction(const clang::FunctionDecl& function) {
  walk_->analyzeFunction(function);
}

const HostFacts& FlowEngine::hostFacts() const {
  return walk_->hostFacts();
}

} // namespace streamrace::analyzer
