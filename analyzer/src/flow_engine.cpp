// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "flow_engine.h"

#include "byte_range.h"
#include "call_model.h"
#include "callable_targets.h"
#include "element_index.h"
#include "field_memory.h"
#include "first_iteration.h"
#include "flow_state.h"
#include "frame.h"
#include "function_effects.h"
#include "graph_capture.h"
#include "library_handles.h"
#include "loop_counter.h"
#include "storage_keys.h"
#include "stream_storage.h"
#include "sub_statements.h"
#include "synchronous_api.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/StmtOpenMP.h"
#include "clang/Analysis/CFG.h"
#include "clang/Basic/SourceManager.h"

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <set>

namespace streamrace::analyzer {
namespace {

constexpr unsigned kMaxInlineDepth = 4;
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

struct FunctionCfg {
  std::unique_ptr<clang::CFG> cfg;
  std::unique_ptr<clang::ParentMap> parents;
};

} // namespace

class FlowEngine::Walk {
public:
  Walk(clang::ASTContext& context, const AnalysisOptions& options,
       std::vector<std::unique_ptr<Check>> checks, RemarkSink& remarks,
       const std::vector<const clang::FunctionDecl*>& functions)
      : context_(context), options_(options), remarks_(remarks), keys_(context),
        kernels_(summarizeKernels(context)), callables_(functions),
        effects_(context, options.userModel, kernels_, callables_, options.externalDefinitions),
        streamStorage_(functions, options.userModel, kernels_, context),
        fieldMemory_(functions, options.userModel, kernels_, context), checks_(std::move(checks)) {}

  void analyzeFunction(const clang::FunctionDecl& function) {
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
    // What the class's other functions allocated into its fields (field_memory.h).
    if (const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(&function);
        method && method->isInstance())
      for (const clang::FieldDecl* field : fieldMemory_.pinnedFields(*method->getParent()))
        setEntry(entry.memory, frame.thisKey + "." + field->getNameAsString(), MemoryKind::Pinned);
    contract_ = streamContract(function);
    if (contract_) expectCallersWork(function, entry);
    const FlowState exit = run(function, std::move(entry), frame);
    if (contract_ && !exit.unreachable) checkReturn(exit, function);
    contract_.reset();
  }

private:
  const FunctionCfg* cfgFor(const clang::FunctionDecl& function) {
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

  FlowState run(const clang::FunctionDecl& function, FlowState entry, const Frame& frame) {
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
      const std::optional<BooleanBranch> branch = booleanBranch(*block);
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
          if (FlowState joined = join(slot->second, state);
              !inserted && !(joined == slot->second)) {
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
        if (branch && index < 2)
          assume(branch->condition, (index == 0) != branch->negated, leaving);
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

  // Whether `block`'s last statement is a `throw` (the CFG keeps it as an element, with the
  // exit or the enclosing handler as its successor).
  static bool endsInThrow(const clang::CFGBlock& block) {
    for (auto element = block.rbegin(); element != block.rend(); ++element)
      if (std::optional<clang::CFGStmt> statement = element->getAs<clang::CFGStmt>())
        return llvm::isa<clang::CXXThrowExpr>(statement->getStmt());
    return false;
  }

  // A two-way branch on a boolean variable (`if (overlap)`, `if (!profiling)`, each operand of
  // `a && b`): its first successor is where the variable is true, unless negated.
  struct BooleanBranch {
    Condition condition; // the variable above 0
    bool negated = false;
  };

  static std::optional<BooleanBranch> booleanBranch(const clang::CFGBlock& block) {
    if (block.succ_size() != 2) return std::nullopt;
    const clang::Expr* condition = block.getLastCondition();
    if (!condition) return std::nullopt;
    BooleanBranch branch;
    condition = condition->IgnoreParenImpCasts();
    while (const auto* negation = llvm::dyn_cast<clang::UnaryOperator>(condition)) {
      if (negation->getOpcode() != clang::UO_LNot) return std::nullopt;
      branch.negated = !branch.negated;
      condition = negation->getSubExpr()->IgnoreParenImpCasts();
    }
    const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(condition);
    const auto* variable =
        reference ? llvm::dyn_cast<clang::VarDecl>(reference->getDecl()) : nullptr;
    if (!variable || !variable->hasLocalStorage() || !variable->getType()->isBooleanType())
      return std::nullopt;
    branch.condition.variable = variable;
    return branch;
  }

  // The path goes on knowing `condition` is `value`: work made knowing the opposite is not
  // pending on it, and a path that knew the opposite is no path.
  static void assume(const Condition& condition, bool value, FlowState& state) {
    if (auto known = state.conditions->find(condition); known != state.conditions->end()) {
      if (known->second != value) state.unreachable = true;
      return;
    }
    setEntry(state.conditions, condition, value);
    std::vector<AccessRecord> impossible;
    for (const auto& [record, conditions] : *state.recordConditions)
      if (auto made = conditions.find(condition); made != conditions.end() && made->second != value)
        impossible.push_back(record);
    for (const AccessRecord& record : impossible)
      eraseEntry(state.pending, record);
  }

  // `variable` changed: what the path knew of it is gone.
  static void forgetCondition(const clang::ValueDecl* variable, FlowState& state) {
    auto about = [&](const auto& known) { return known.first.variable == variable; };
    auto mentions = [&](const FlowState::Conditions& conditions) {
      return std::any_of(conditions.begin(), conditions.end(), about);
    };
    if (mentions(*state.conditions)) std::erase_if(state.conditions.edit(), about);
    if (std::none_of(state.recordConditions->begin(), state.recordConditions->end(),
                     [&](const auto& entry) { return mentions(entry.second); }))
      return;
    for (auto& [record, conditions] : state.recordConditions.edit())
      std::erase_if(conditions, about);
  }

  static Condition enteredWhen(const LoopEntry& entry) {
    return Condition{entry.variable, entry.threshold};
  }

  // What leaves `loop` when its condition fails: what its iterations left, and, unless the loop
  // always runs, what flowed in before it, on the path where its first test failed (so that work
  // made in an earlier loop over the same bound is not pending there). Nullopt: no path yet.
  std::optional<FlowState> loopExit(const clang::CFGBlock& condition, const clang::ForStmt& loop,
                                    const LoopEntry& entry,
                                    const std::map<const clang::ForStmt*, FlowState>& entries,
                                    const std::map<const clang::ForStmt*, FlowState>& iterations,
                                    const Frame& quiet) {
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

  // A record made now carries what the path knows.
  static void noteConditions(const AccessRecord& record, FlowState& state) {
    if (state.conditions->empty())
      eraseEntry(state.recordConditions, record);
    else
      setEntry(state.recordConditions, record, *state.conditions);
  }

  // `state` on a branch only the loop's first iteration takes (first_iteration.h): what the loop
  // body does after the guard has not run yet, unless it was pending when the loop started (an
  // enclosing loop's earlier iteration).
  FlowState
  withoutLaterIterations(FlowState state, const FirstIterationBranch& branch,
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

  // Whether every path through `definition` ends in a call that does not return (an error
  // helper that prints and exits, without [[noreturn]]).
  bool neverReturns(const clang::FunctionDecl& definition) {
    auto [slot, inserted] = neverReturns_.try_emplace(&definition, false);
    if (!inserted) return slot->second;
    const FunctionCfg* functionCfg = cfgFor(definition);
    if (!functionCfg) return false;
    const clang::CFGBlock& exit = functionCfg->cfg->getExit();
    slot->second = exit.pred_size() > 0 &&
                   std::all_of(exit.pred_begin(), exit.pred_end(), [](const auto& predecessor) {
                     return !predecessor.isReachable() ||
                            predecessor.getReachableBlock()->hasNoReturnElement();
                   });
    return slot->second;
  }

  void transferBlock(const clang::CFGBlock& block, FlowState& state, const Frame& frame) {
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
        endLifetime(ends->getVarDecl(), state);
    }
  }

  void transferStatement(const clang::Stmt* stmt, FlowState& state, const Frame& frame) {
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
        freeOnHost(*buffer, deletion->isArrayForm() ? "delete[]" : "delete", deletion, state,
                   frame);
      return;
    }
    if (const auto* subscript = llvm::dyn_cast<clang::ArraySubscriptExpr>(stmt)) {
      if (subscript->getType()->isPointerType() ||
          !subscript->getBase()->getType()->isPointerType())
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
      if (unary->getOpcode() == clang::UO_Deref && !unary->getType()->isPointerType())
        hostElementAccess(unary, unary->getSubExpr(), state, frame);
    }
  }

  // A local variable's storage is gone: what its value said about elements, and the work pending
  // on buffers only it named (a callee's local vector of device pointers, say), which nothing can
  // name any more.
  void endLifetime(const clang::VarDecl* var, FlowState& state) {
    if (isIndexVariable(var)) {
      forgetIndexVariable(var, state);
      eraseEntry(state.integers, var);
      return;
    }
    if (var->getType()->isReferenceType() || state.aliases->contains(var)) return;
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

  // --- Index variables (element_index.h) --------------------------------------------------

  static bool isIndexVariable(const clang::VarDecl* var) {
    return var->hasLocalStorage() && var->getType()->isIntegerType();
  }

  void shiftIndexVariable(const clang::ValueDecl* variable, int64_t delta, FlowState& state) {
    const std::string name = variableKey(variable);
    const IndexChange change{name, delta};
    rewriteKeys(
        state, name, [&](const std::string& key) { return shiftIndices(key, name, delta); },
        [&](const ByteRange& range) {
          return range.shifted(name, delta, [&](const std::string& atom) {
            return shiftIndices(atom, name, delta);
          });
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

  // A local integer variable that stays a loop counter's neighbour (loop_counter.h
  // neighbourIndex) while it lives: it is spelled as that neighbour, so the elements it names keep
  // their relation to the loop's after it dies (`a[top]` of one iteration is `a[dev-2]` in the
  // next, not any element).
  void bindNeighbourIndex(const clang::VarDecl& var, const clang::DeclStmt& declaration,
                          FlowState& state, const Frame& frame) {
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

  // Whether `index` (indexKey's spelling) is a variable plus a constant.
  static bool parseableOffset(llvm::StringRef index) {
    return index.contains('@') && !index.ends_with("*");
  }

  // Changes the local bindings whose index mentions `variable`; drops those `change` says are no
  // longer a variable plus a constant.
  template <class Change>
  static void rebindNeighbours(FlowState& state, const std::string& variable, Change change) {
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

  // The `for` loop whose initialization `stmt` is.
  static const clang::ForStmt* loopStartedBy(const clang::Stmt* stmt, const Frame& frame) {
    const auto* loop = llvm::dyn_cast_or_null<clang::ForStmt>(
        frame.parents->getParent(const_cast<clang::Stmt*>(stmt)));
    return loop && loop->getInit() == stmt ? loop : nullptr;
  }

  // What `loop` subscripts with `variable` (plus a constant), by key.
  void collectContainers(const clang::Stmt* stmt, const clang::ValueDecl* variable,
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

  // Names what was touched just before a loop through its variable (element_index.h). The
  // events of an array become its one event (collapseIndices) once a variable names them.
  void rebaseIndexVariable(const clang::ValueDecl* variable, const clang::Expr* start,
                           const clang::ForStmt& loop, FlowState& state, const Frame& frame) {
    std::set<std::string> containers;
    collectContainers(&loop, variable, state, frame, containers);
    if (containers.empty()) return;
    const std::string name = variableKey(variable);
    const std::string value = keys_.indexKeyOf(start, state);
    auto rebase = [&](const std::string& key) {
      return rebaseIndices(key, name, value, containers);
    };
    rewriteKeys(state, "[", rebase, [](const ByteRange& range) { return range; });
    std::map<std::string, EventState> events;
    for (const auto& [event, recorded] : *state.events) {
      auto [slot, inserted] = events.emplace(collapseIndices(rebase(event)), recorded);
      if (inserted) continue;
      // Two events became one: it orders only what both captured.
      EventState& merged = slot->second;
      if (merged.status != recorded.status) merged.status = RecordedStatus::OnSomePaths;
      std::erase_if(merged.snapshot, [&](const AccessRecord& record) {
        return !recorded.snapshot.contains(record);
      });
    }
    if (events != *state.events) state.events.assign(std::move(events));
  }

  void forgetIndexVariable(const clang::ValueDecl* variable, FlowState& state) {
    const std::string name = variableKey(variable);
    const IndexChange change{name, std::nullopt};
    rewriteKeys(
        state, name, [&](const std::string& key) { return forgetIndices(key, name); },
        [&](const ByteRange& range) { return range.forgetting(name); }, &change);
    rebindNeighbours(state, name, [](IntegerBinding&) { return false; });
  }

  // On a loop's way back: the work of loops that finished in this iteration is an earlier
  // iteration's in the next, where what it touched says nothing of its stream (element_index.h,
  // correlated indices).
  void forgetFinishedLoops(FlowState& state) {
    rewriteKeys(
        state, "~", [](const std::string& key) { return forgetCorrelated(key); },
        [](const ByteRange& range) { return range; });
  }

  // A change of an index variable, which a record's buffer and stream element follow together
  // (element_index.h, correlated indices): shifted by `delta`, or forgotten where there is none.
  struct IndexChange {
    std::string variable;
    std::optional<int64_t> delta;
  };

  // Renames storage everywhere the state names it; only keys and ranges containing `mention`
  // can change. Records that become one keep the streams both were ordered after, and the
  // details of the first.
  template <class RenameKey, class RenameRange>
  void rewriteKeys(FlowState& state, llvm::StringRef mention, RenameKey rename,
                   RenameRange renameRange, const IndexChange* change = nullptr) {
    auto mentioned = [&](llvm::StringRef key) { return key.contains(mention); };
    auto recordMentioned = [&](const AccessRecord& record) {
      return mentioned(record.buffer) || mentioned(record.streamElement) ||
             record.range.mentions(mention.str());
    };
    bool pendingMentioned = false;
    for (const auto& [record, orderedAfter] : *state.pending)
      pendingMentioned = pendingMentioned || recordMentioned(record);
    bool eventsMentioned = false;
    for (const auto& [name, event] : *state.events)
      for (const AccessRecord& record : event.snapshot)
        eventsMentioned = eventsMentioned || recordMentioned(record);
    bool aliasesMentioned = false;
    for (const auto& [variable, target] : *state.aliases)
      aliasesMentioned = aliasesMentioned || mentioned(target);
    bool offsetsMentioned = false;
    for (const auto& [variable, offset] : *state.aliasOffsets)
      offsetsMentioned = offsetsMentioned || (offset && offset->mentions(mention.str()));
    bool memoryMentioned = false;
    for (const auto& [buffer, kind] : *state.memory)
      memoryMentioned = memoryMentioned || mentioned(buffer);
    bool fieldsMentioned = false;
    for (const auto& [field, target] : *state.fieldAliases)
      fieldsMentioned = fieldsMentioned || mentioned(field) || mentioned(target);
    // Only the parts that name the storage are rebuilt; the others stay shared.
    auto renameRecord = [&](const AccessRecord& record) {
      AccessRecord renamed = record;
      if (!recordMentioned(record)) return renamed;
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
    if (pendingMentioned && !state.recordConditions->empty()) {
      // A renamed record keeps what its path knew when it was made; records that become one keep
      // what both knew (nothing, where one knew nothing).
      std::map<AccessRecord, FlowState::Conditions> conditions;
      std::set<AccessRecord> unconditional;
      for (const auto& [record, orderedAfter] : *state.pending) {
        const AccessRecord renamed = renameRecord(record);
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
    if (pendingMentioned) {
      PendingAccesses pending;
      for (const auto& [record, orderedAfter] : *state.pending) {
        auto [slot, inserted] = pending.emplace(renameRecord(record), orderedAfter);
        if (inserted) continue;
        std::set<std::string> common;
        for (const std::string& stream : slot->second)
          if (orderedAfter.contains(stream)) common.insert(stream);
        slot->second = std::move(common);
      }
      state.pending.assign(std::move(pending));
    }
    if (eventsMentioned)
      for (auto& [name, event] : state.events.edit()) {
        std::set<AccessRecord> snapshot;
        for (const AccessRecord& record : event.snapshot)
          snapshot.insert(renameRecord(record));
        event.snapshot = std::move(snapshot);
      }
    if (aliasesMentioned)
      for (auto& [variable, target] : state.aliases.edit())
        if (mentioned(target)) target = rename(target);
    if (offsetsMentioned)
      for (auto& [variable, offset] : state.aliasOffsets.edit())
        if (offset && offset->mentions(mention.str()))
          offset = renameRange(ByteRange{offset, std::nullopt, {}}).offset;
    if (memoryMentioned) {
      std::map<std::string, MemoryKind> memory;
      for (const auto& [buffer, kind] : *state.memory)
        if (auto [slot, inserted] =
                memory.emplace(mentioned(buffer) ? rename(buffer) : buffer, kind);
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

  // --- Naming storage ---------------------------------------------------------------------

  std::optional<std::string> keyOf(const clang::Expr* expr, const FlowState& state,
                                   const Frame& frame) const {
    return keys_.keyOf(expr, state, frame.thisKey);
  }

  // The stream's key; storage the translation unit creates non-blocking is marked so.
  std::optional<std::string> streamKeyOf(const clang::Expr* expr, bool perThreadDefault,
                                         FlowState& state, const Frame& frame) const {
    std::optional<std::string> key =
        keys_.streamKeyOf(expr, perThreadDefault, state, frame.thisKey);
    if (key && streamStorage_.createdNonBlocking(expr)) insertEntry(state.nonBlockingStreams, *key);
    return key;
  }

  // The stream's key with its indices (AccessRecord::streamElement); `stream`, its collapsed key,
  // where it has none.
  std::string streamElementOf(const CallEffect& effect, llvm::StringRef stream,
                              const FlowState& state, const Frame& frame) const {
    return keys_.streamElementOf(effect.stream, effect.perThreadDefaultStream, state, frame.thisKey)
        .value_or(stream.str());
  }

  std::optional<std::string> handleKeyOf(const clang::Expr* expr, const FlowState& state,
                                         const Frame& frame) const {
    return keys_.handleKeyOf(expr, state, frame.thisKey);
  }

  // The bytes a buffer argument touches: its offset from what its key names, the call's extent.
  ByteRange rangeOf(const BufferUse& use, const FlowState& state, const Frame& frame) const {
    ByteRange range;
    range.offset = keys_.byteOffsetOf(use.expr, state, frame.thisKey);
    const Extent& extent = use.extent;
    if (extent.bytes) {
      if (std::optional<Polynomial> count = keys_.valueOf(extent.bytes, state, frame.thisKey))
        range.length = count->scaled(extent.unitBytes);
    } else if (extent.elements) {
      const std::optional<int64_t> datatype = constantValue(extent.datatype, context_);
      const std::optional<std::size_t> size =
          datatype ? api_model::ncclDataTypeSize(static_cast<int>(*datatype)) : std::nullopt;
      if (std::optional<Polynomial> count = keys_.valueOf(extent.elements, state, frame.thisKey);
          count && size)
        range.length = count->scaled(static_cast<std::int64_t>(*size));
    } else if (extent.width && extent.height && extent.pitch) {
      std::optional<Polynomial> width = keys_.valueOf(extent.width, state, frame.thisKey);
      std::optional<Polynomial> height = keys_.valueOf(extent.height, state, frame.thisKey);
      std::optional<Polynomial> pitch = keys_.valueOf(extent.pitch, state, frame.thisKey);
      if (width && height && pitch)
        range.length = (*height - Polynomial::constant(1)) * *pitch + *width;
    } else if (extent.firstRow && extent.endRow && extent.rowWidth) {
      std::optional<Polynomial> first = keys_.valueOf(extent.firstRow, state, frame.thisKey);
      std::optional<Polynomial> end = keys_.valueOf(extent.endRow, state, frame.thisKey);
      std::optional<Polynomial> width = keys_.valueOf(extent.rowWidth, state, frame.thisKey);
      if (first && end && width && range.offset) {
        const Polynomial rowBytes = width->scaled(extent.unitBytes);
        *range.offset =
            *range.offset + (*first - Polynomial::constant(extent.rowsBefore)) * rowBytes;
        range.length =
            (*end - *first + Polynomial::constant(extent.rowsBefore + extent.rowsAfter)) * rowBytes;
      }
    }
    return range;
  }

  // Whether a pending record and an access of `buffer`'s `range` may touch the same bytes.
  static bool sameBytes(const AccessRecord& record, const std::string& buffer,
                        const ByteRange& range) {
    return mayAlias(record.buffer, buffer) && mayOverlap(record.range, range);
  }

  // The record's stream element as an access of `buffer` sees it (element_index.h, correlated
  // indices).
  static std::string recordElementFor(const AccessRecord& record, const std::string& buffer) {
    if (!llvm::StringRef(record.streamElement).contains('~')) return record.streamElement;
    return resolveCorrelated(record.streamElement, record.buffer, buffer);
  }

  // Whether two accesses of the same bytes conflict: one writes, and not both atomically.
  static bool conflicting(const AccessRecord& record, bool write, bool atomic) {
    return (record.write || write) && !(record.atomic && atomic);
  }

  bool isBlocking(llvm::StringRef stream, const FlowState& state) const {
    return !state.nonBlockingStreams->contains(stream.str()) &&
           !state.nonBlockingStreams->contains(anyElement(stream));
  }

  // Whether the access `record` is ordered before new work on `stream`, on its `element`
  // (AccessRecord::streamElement; `stream` itself where no element is known). Work on its own
  // stream is, unless on an element of the array the analysis tells apart from the record's.
  bool orderedBefore(const AccessRecord& record, const std::set<std::string>& orderedAfter,
                     llvm::StringRef stream, llvm::StringRef element,
                     const FlowState& state) const {
    return orderedBefore(record, record.streamElement, orderedAfter, stream, element, state);
  }

  // The same, with the record's stream element as an access of a known element resolves it
  // (element_index.h resolveCorrelated).
  bool orderedBefore(const AccessRecord& record, llvm::StringRef recordElement,
                     const std::set<std::string>& orderedAfter, llvm::StringRef stream,
                     llvm::StringRef element, const FlowState& state) const {
    if (orderedAfter.contains(stream.str())) return true;
    if (record.stream == stream && mayBeSameHandle(recordElement, element)) return true;
    const bool blocking = isBlocking(stream, state);
    if (stream == kLegacyStream && isBlocking(record.stream, state)) return true;
    return blocking && orderedAfter.contains(kEveryBlockingStream.str());
  }

  // Host memory a local variable owns is pageable, which rule 7 tells from pinned memory: a
  // local array, or the buffer of a standard container with the standard allocator (a custom
  // allocator may pin it). cudaHostRegister later makes it pinned.
  void noteOwnedHostMemory(const clang::VarDecl& var, FlowState& state) {
    if (!var.hasLocalStorage() || var.getType()->isReferenceType()) return;
    const std::string key = variableKey(&var);
    if (context_.getAsConstantArrayType(var.getType()))
      setEntry(state.memory, key, MemoryKind::Pageable);
    else if (ownsPageableBuffer(var.getType()))
      setEntry(state.memory, methodResultKey(key, "data"), MemoryKind::Pageable);
  }

  void bindVariable(const clang::VarDecl* var, const clang::Expr* init, FlowState& state,
                    const Frame& frame) {
    const clang::QualType type = var->getType();
    if (!type->isPointerType() && !type->isReferenceType()) return;
    std::optional<std::string> target = keyOf(init, state, frame);
    if (target) {
      bindOffset(var, keys_.byteOffsetOf(init, state, frame.thisKey), state);
      setEntry(state.aliases, var, *target);
      return;
    }
    eraseEntry(state.aliases, var);
    eraseEntry(state.aliasOffsets, var);
    const clang::Expr* bare = init->IgnoreParenCasts();
    bool hostAllocation = llvm::isa<clang::CXXNewExpr>(bare);
    if (const auto* call = llvm::dyn_cast<clang::CallExpr>(bare))
      if (std::optional<CallEffect> effect =
              classifyCall(*call, options_.userModel, kernels_, context_))
        hostAllocation = effect->kind == CallEffectKind::Alloc &&
                         effect->allocatedMemory == MemoryKind::Pageable;
    const std::string key = variableKey(var);
    dropRecordsOf(key, state);
    if (hostAllocation)
      setEntry(state.memory, key, MemoryKind::Pageable);
    else
      eraseEntry(state.memory, key);
  }

  // Keeps the byte offset an alias was bound with (none: no entry).
  static void bindOffset(const clang::ValueDecl* var, const std::optional<Polynomial>& offset,
                         FlowState& state) {
    if (offset && *offset == Polynomial())
      eraseEntry(state.aliasOffsets, var);
    else
      setEntry(state.aliasOffsets, var, offset);
  }

  // The storage an out-parameter (`&ptr`, `(void**)&this->buf`) names; the variable is re-bound.
  std::optional<std::string> outParameterKey(const clang::Expr* out, FlowState& state,
                                             const Frame& frame) const {
    if (!out) return std::nullopt;
    const auto* address = llvm::dyn_cast<clang::UnaryOperator>(out->IgnoreParenCasts());
    if (!address || address->getOpcode() != clang::UO_AddrOf) return std::nullopt;
    const clang::Expr* target = address->getSubExpr()->IgnoreParenCasts();
    if (const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(target))
      if (llvm::isa<clang::VarDecl>(reference->getDecl()) &&
          !reference->getDecl()->getType()->isReferenceType()) {
        eraseEntry(state.aliases, reference->getDecl());
        eraseEntry(state.aliasOffsets, reference->getDecl());
        return variableKey(reference->getDecl());
      }
    if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(target)) {
      std::optional<std::string> field = keys_.fieldKeyOf(*member, state, frame.thisKey);
      if (field) eraseEntry(state.fieldAliases, *field);
      return field;
    }
    return keyOf(target, state, frame);
  }

  // `Entry entry{buffer, n, event}`: the aggregate's pointer and handle fields bound.
  void initializeFields(const clang::VarDecl& var, const clang::Expr& init, FlowState& state,
                        const Frame& frame) {
    const auto* list = llvm::dyn_cast<clang::InitListExpr>(init.IgnoreImplicit());
    const clang::RecordDecl* record = var.getType()->getAsRecordDecl();
    if (!list || !record || var.getType()->isReferenceType()) return;
    unsigned index = 0;
    for (const clang::FieldDecl* field : record->fields()) {
      if (index >= list->getNumInits()) break;
      const clang::Expr* value = list->getInit(index++);
      if (field->getType()->isPointerType())
        bindField(variableKey(&var) + "." + field->getNameAsString(), value, state, frame);
    }
  }

  // A member initializer of the constructor being run: a pointer or handle field bound.
  void initializeField(const clang::CXXCtorInitializer& initializer, FlowState& state,
                       const Frame& frame) {
    const clang::FieldDecl* field = initializer.getMember();
    if (field && field->getType()->isPointerType() && initializer.getInit())
      bindField(frame.thisKey + "." + field->getNameAsString(), initializer.getInit(), state,
                frame);
  }

  // `field` holds what `value` names, when that is a whole storage (an offset into one stays the
  // field's own name: its bytes are not known).
  void bindField(const std::string& field, const clang::Expr* value, FlowState& state,
                 const Frame& frame) const {
    std::optional<std::string> target = keyOf(value, state, frame);
    const std::optional<Polynomial> offset = keys_.byteOffsetOf(value, state, frame.thisKey);
    if (target && *target != field && offset && *offset == Polynomial())
      setEntry(state.fieldAliases, field, std::move(*target));
    else
      eraseEntry(state.fieldAliases, field);
  }

  void dropRecordsOf(const std::string& buffer, FlowState& state) const {
    eraseIf(state.pending, [&](const auto& entry) { return entry.first.buffer == buffer; });
  }

  // --- Calls ------------------------------------------------------------------------------

  void handleCall(const clang::CallExpr& call, FlowState& state, const Frame& frame) {
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
    if (const clang::FunctionDecl* definition =
            callee ? analyzableDefinition(*callee, context_.getSourceManager(),
                                          options_.externalDefinitions)
                   : nullptr;
        definition && neverReturns(*definition)) {
      state.unreachable = true;
      return;
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
      hostAccess(*buffer, range, writes, &call, state, frame);
    }
  }

  bool inlineCall(const clang::CallExpr& call, const clang::FunctionDecl& callee, FlowState& state,
                  const Frame& frame) {
    std::optional<std::string> object;
    unsigned firstArgument = 0;
    if (const auto* memberCall = llvm::dyn_cast<clang::CXXMemberCallExpr>(&call)) {
      object = keyOf(memberCall->getImplicitObjectArgument(), state, frame);
    } else if (llvm::isa<clang::CXXOperatorCallExpr>(call) &&
               llvm::isa<clang::CXXMethodDecl>(callee)) {
      object = keyOf(call.getArg(0), state, frame);
      firstArgument = 1;
    }
    const std::vector<const clang::Expr*> arguments(call.arg_begin() + firstArgument,
                                                    call.arg_end());
    return inlineFunction(call, callee, object, arguments, state, frame);
  }

  // A call through a `std::function` (callable_targets.h): each lambda the translation unit
  // stores in that type runs in place, and the paths join. Only lambdas made by a function being
  // analyzed run: the variables they capture are that function's, named as it names them (from
  // any other root they would be strangers). False when none can run.
  bool runCallableTargets(const clang::CXXOperatorCallExpr& call, FlowState& state,
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

  // `Type name(arguments)`: the constructor's body runs in place on `name`.
  void runConstructor(const clang::VarDecl& var, const clang::Expr& init, FlowState& state,
                      const Frame& frame) {
    const auto* construction = llvm::dyn_cast<clang::CXXConstructExpr>(init.IgnoreImplicit());
    if (!construction) return;
    const std::vector<const clang::Expr*> arguments(construction->arg_begin(),
                                                    construction->arg_end());
    inlineFunction(*construction, *construction->getConstructor(), variableKey(&var), arguments,
                   state, frame);
  }

  // `Work work = make_work(...)`, where make_work returns its local `Work result`: what the call
  // did to `result` (an event recorded in it, a buffer stored in it) is `work`'s now.
  void adoptReturnedLocal(const clang::VarDecl& var, const clang::Expr& init, FlowState& state) {
    const auto* call = llvm::dyn_cast<clang::CallExpr>(withoutCopy(&init));
    const clang::FunctionDecl* callee = call ? call->getDirectCallee() : nullptr;
    const clang::FunctionDecl* definition =
        callee ? analyzableDefinition(*callee, context_.getSourceManager(),
                                      options_.externalDefinitions)
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

  // The object `expr` copies or moves (before C++17's elision, and `return local;`), or itself.
  static const clang::Expr* withoutCopy(const clang::Expr* expr) {
    if (!expr) return nullptr;
    expr = expr->IgnoreImplicit();
    if (const auto* copy = llvm::dyn_cast<clang::CXXConstructExpr>(expr);
        copy && copy->getNumArgs() == 1 && copy->getConstructor()->isCopyOrMoveConstructor())
      return copy->getArg(0)->IgnoreImplicit();
    return expr;
  }

  // The one local object every `return` of `function` returns by value, or null.
  const clang::VarDecl* returnedLocal(const clang::FunctionDecl& function) {
    auto [slot, inserted] = returnedLocals_.try_emplace(&function, nullptr);
    if (inserted) slot->second = findReturnedLocal(function);
    return slot->second;
  }

  static const clang::VarDecl* findReturnedLocal(const clang::FunctionDecl& function) {
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
        const auto* var =
            reference ? llvm::dyn_cast<clang::VarDecl>(reference->getDecl()) : nullptr;
        single = var && var->hasLocalStorage() && !llvm::isa<clang::ParmVarDecl>(var) &&
                 (!local || local == var);
        local = var;
        continue;
      }
      statements.insert(statements.end(), statement->child_begin(), statement->child_end());
    }
    return single ? local : nullptr;
  }

  // A local object's destructor, where `scopeEnd` ends its scope.
  void runDestructor(const clang::VarDecl& var, const clang::Stmt& scopeEnd, FlowState& state,
                     const Frame& frame) {
    const clang::CXXRecordDecl* type = var.getType()->getAsCXXRecordDecl();
    if (const clang::CXXDestructorDecl* destructor = type ? type->getDestructor() : nullptr)
      inlineFunction(scopeEnd, *destructor, variableKey(&var), {}, state, frame);
  }

  // Runs `callee`'s body in place with its parameters bound to `arguments` and, for a method,
  // `this` naming `object` (unnamed: as "this"). False when it cannot be analyzed.
  bool inlineFunction(const clang::Stmt& call, const clang::FunctionDecl& callee,
                      const std::optional<std::string>& object,
                      const std::vector<const clang::Expr*>& arguments, FlowState& state,
                      const Frame& frame, bool callableTarget = false) {
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
      return true;
    }

    const FunctionCfg* calleeCfg = cfgFor(*definition);
    if (!calleeCfg) return false;
    inner.parents = calleeCfg->parents.get();
    for (const auto& [parameter, argument] : integers)
      setEntry(state.integers, parameter, IntegerBinding{argument.first, argument.second});
    for (auto& [parameter, value] : bindings) {
      // Another call of the same function: what an earlier one's branches knew is gone.
      forgetCondition(parameter, state);
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

  // Whether running a stream-inert function (function_effects.h) from this state could change
  // what the caller sees: a host access it reports, or a loop of it renaming the caller's keys.
  bool inertCallObservable(
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

  void applyEffect(const CallEffect& effect, const clang::CallExpr& call, FlowState& state,
                   const Frame& frame) {
    switch (effect.kind) {
    case CallEffectKind::Enqueue:
      enqueue(effect, call, state, frame);
      return;
    case CallEffectKind::EventRecord: {
      std::optional<std::string> event = handleKeyOf(effect.event, state, frame);
      std::optional<std::string> stream =
          streamKeyOf(effect.stream, effect.perThreadDefaultStream, state, frame);
      if (!event || (stream && recordInCapture(state, *event, *stream))) return;
      EventState recorded;
      if (auto found = state.events->find(*event); found != state.events->end())
        recorded.created = found->second.created;
      recorded.status = RecordedStatus::Recorded;
      if (stream) {
        const std::string element = streamElementOf(effect, *stream, state, frame);
        for (const auto& [record, orderedAfter] : *state.pending)
          if (orderedBefore(record, orderedAfter, *stream, element, state))
            recorded.snapshot.insert(record);
      }
      setEntry(state.events, *event, std::move(recorded));
      return;
    }
    case CallEffectKind::StreamWait:
      waitOnEvent(effect, call, state, frame);
      return;
    case CallEffectKind::StreamQuery:
      if (!isPolledToCompletion(call, frame)) return;
      [[fallthrough]];
    case CallEffectKind::StreamSync:
      if (std::optional<std::string> stream =
              streamKeyOf(effect.stream, effect.perThreadDefaultStream, state, frame)) {
        completeStream(*stream, streamElementOf(effect, *stream, state, frame), state);
        if (sweptByItsLoop(effect.stream, call, frame)) completeElements(*stream, state);
      }
      return;
    case CallEffectKind::EventQuery:
      if (!isPolledToCompletion(call, frame)) return;
      [[fallthrough]];
    case CallEffectKind::EventSync:
      if (std::optional<std::string> event = handleKeyOf(effect.event, state, frame))
        if (auto found = state.events->find(*event); found != state.events->end())
          for (const AccessRecord& record : found->second.snapshot)
            eraseEntry(state.pending, record);
      return;
    case CallEffectKind::DeviceSync:
      if (!state.pending->empty()) state.pending.edit().clear();
      if (!state.spinningStreams->empty()) state.spinningStreams.edit().clear();
      if (std::optional<std::string> buffer = outParameterKey(effect.outPointer, state, frame))
        setEntry(state.memory, *buffer, effect.allocatedMemory);
      return;
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
      if (state.groupDepth == 0 || --state.groupDepth > 0) return;
      // After the group, each of its streams is ordered after all of its calls.
      for (const auto& [communicator, streams] : *state.groupStreams)
        joinStreams(streams, state);
      if (!state.groupStreams->empty()) state.groupStreams.edit().clear();
      return;
    }
  }

  // `while (cudaStreamQuery(s) != cudaSuccess) {}`: the loop only exits once the work is done.
  bool isPolledToCompletion(const clang::CallExpr& call, const Frame& frame) const {
    const clang::Stmt* current = &call;
    while (const clang::Stmt* parent =
               frame.parents->getParent(const_cast<clang::Stmt*>(current))) {
      if (const auto* loop = llvm::dyn_cast<clang::WhileStmt>(parent))
        return loop->getCond() == current;
      if (const auto* loop = llvm::dyn_cast<clang::DoStmt>(parent))
        return loop->getCond() == current;
      if (const auto* loop = llvm::dyn_cast<clang::ForStmt>(parent))
        return loop->getCond() == current;
      if (!llvm::isa<clang::Expr>(parent)) return false;
      current = parent;
    }
    return false;
  }

  // Whether `stream` is `streams[i]`, subscripted by the counter of a `for` loop around `call`:
  // `for (i = 0; i < n; ++i) cudaStreamSynchronize(streams[i])` is how programs wait for every
  // stream of an array, and is read so.
  bool sweptByItsLoop(const clang::Expr* stream, const clang::CallExpr& call,
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

  // Work on any element of the array whose element `stream` ("streams[*]") is completes.
  void completeElements(llvm::StringRef stream, FlowState& state) const {
    if (!stream.ends_with("[*]")) return;
    const llvm::StringRef array = stream.drop_back(2);
    std::set<std::string> elements;
    for (const auto& [record, orderedAfter] : *state.pending)
      if (llvm::StringRef(record.stream).starts_with(array)) elements.insert(record.stream);
    for (const std::string& element : elements)
      completeStream(element, element, state);
  }

  // What is ordered before work on `element` of `stream` (orderedBefore) has completed.
  void completeStream(llvm::StringRef stream, llvm::StringRef element, FlowState& state) const {
    eraseIf(state.pending, [&](const auto& entry) {
      return orderedBefore(entry.first, entry.second, stream, element, state);
    });
    eraseEntry(state.spinningStreams, stream.str());
  }

  // A buffer argument as the state names it: its storage and the bytes it touches.
  struct ResolvedUse {
    BufferUse use;
    std::string buffer;
    ByteRange range;
  };

  // The call's buffer arguments by storage; arguments naming overlapping bytes of one storage are
  // one access that reads and writes (an in-place collective: `ncclAllReduce(buf, buf, ...)`, or
  // an AllGather whose send buffer is its own chunk of the receive buffer), so one race with an
  // earlier access is one finding, not one per argument.
  std::vector<ResolvedUse> resolveBuffers(const CallEffect& effect, const FlowState& state,
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

  // A kernel's access made only where its flag argument is true (BufferUse::onlyIf): none where
  // the path knows the flag is false; else, for a local boolean the path can test, the condition
  // its record is made under, so that a branch on the flag that orders the work only when it is
  // true leaves nothing pending on the other.
  struct FlagGuard {
    bool never = false;
    std::optional<Condition> when;
  };
  FlagGuard flagGuard(const BufferUse& use, const FlowState& state) const {
    FlagGuard guard;
    if (!use.onlyIf) return guard;
    if (std::optional<int64_t> value = constantValue(use.onlyIf, context_)) {
      guard.never = *value == 0;
      return guard;
    }
    const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(use.onlyIf->IgnoreParenImpCasts());
    const auto* variable =
        reference ? llvm::dyn_cast<clang::VarDecl>(reference->getDecl()) : nullptr;
    if (!variable || !variable->hasLocalStorage() || !variable->getType()->isBooleanType())
      return guard;
    const Condition flag{variable, 0};
    if (auto known = state.conditions->find(flag); known != state.conditions->end())
      guard.never = !known->second;
    else
      guard.when = flag;
    return guard;
  }

  // The stream work runs on, as its key and its element (AccessRecord::streamElement): the
  // call's stream argument, or the stream last bound to its library handle (library_handles.h);
  // nullopt where the analysis cannot name it.
  std::optional<std::pair<std::string, std::string>>
  workStream(const CallEffect& effect, FlowState& state, const Frame& frame) const {
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

  void enqueue(const CallEffect& effect, const clang::CallExpr& call, FlowState& state,
               const Frame& frame) {
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
      if (onlyWhen[i]) {
        FlowState::Conditions made = *state.conditions;
        made[*onlyWhen[i]] = true;
        setEntry(state.recordConditions, record, std::move(made));
      }
      AccessDetail& detail = details_[record];
      detail.operation = effect.operation;
      detail.read |= access.use.read;
      detail.write |= access.use.write;
      detail.call = &call;
      detail.chain = callChain(frame);
    }
    if (effect.waitsForItsStream || waitsOnReturn(effect, buffers, state))
      completeStream(*stream, element, state);
  }

  // cudaMallocAsync on `stream`: the pointer names new memory, pending as if `stream` wrote all
  // of it, so work on another stream not ordered after the allocation is reported.
  void allocateInStreamOrder(const CallEffect& effect, const clang::CallExpr& call,
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

  // The outermost ncclGroupStart (docs/semantics.md rule 13): NCCL posts the group's calls at its
  // end, each ordered after the earlier work of every stream the group uses on its communicator.
  // The calls that follow in the same block up to the matching ncclGroupEnd (in loops and
  // branches there too) are joined here, so the group's first call is ordered after a stream only
  // a later call brings in. Calls made inside a helper the group calls join as they are met
  // (joinGroup).
  void joinGroupAhead(const clang::CallExpr& start, FlowState& state, const Frame& frame) {
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

  // Adds the communicator and stream of each NCCL call in `stmt`, in the order they run, while
  // the group `depth` counts is open; false once it has ended.
  bool collectGroupCalls(const clang::Stmt* stmt, int& depth,
                         std::map<std::string, std::set<std::string>>& streams, FlowState& state,
                         const Frame& frame) const {
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

  // An NCCL call on `stream` inside a group (docs/semantics.md rule 13): the streams the group
  // uses on the call's communicator join each other's earlier work (those joinGroupAhead found
  // already have).
  void joinGroup(const CallEffect& effect, const std::string& stream, FlowState& state,
                 const Frame& frame) const {
    const std::string communicator =
        handleKeyOf(effect.communicator, state, frame).value_or("<communicator>");
    std::set<std::string> streams;
    if (auto found = state.groupStreams->find(communicator); found != state.groupStreams->end())
      streams = found->second;
    streams.insert(stream);
    joinStreams(streams, state);
    setEntry(state.groupStreams, communicator, std::move(streams));
  }

  // Work ordered before any of `streams` becomes ordered before all of them.
  void joinStreams(const std::set<std::string>& streams, FlowState& state) const {
    auto beforeAny = [&](const AccessRecord& record, const std::set<std::string>& orderedAfter) {
      return std::any_of(streams.begin(), streams.end(), [&](const std::string& stream) {
        return orderedBefore(record, orderedAfter, stream, stream, state);
      });
    };
    bool changes = false;
    for (const auto& [record, orderedAfter] : *state.pending)
      changes = changes || (beforeAny(record, orderedAfter) &&
                            !std::includes(orderedAfter.begin(), orderedAfter.end(),
                                           streams.begin(), streams.end()));
    if (!changes) return;
    for (auto& [record, orderedAfter] : state.pending.edit())
      if (beforeAny(record, orderedAfter)) orderedAfter.insert(streams.begin(), streams.end());
  }

  // Rule 7 (synchronous_api.h) with the memory of the call's source and destination.
  static bool waitsOnReturn(const CallEffect& effect, const std::vector<ResolvedUse>& buffers,
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

  // `access` by work on `element` of `stream` against what is pending.
  void checkCrossStream(const ResolvedUse& access, const std::string& stream,
                        const std::string& element, const CallEffect& effect,
                        const clang::CallExpr& call, const FlowState& state, const Frame& frame) {
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
      // Both accesses inside one call: the callee's own analysis reports it, once.
      if (frame.site && record.site == frame.site && !frame.throughCallable) continue;
      notify({LaterAccess::StreamWork, record, details_[record], access.buffer, stream, use.read,
              use.write, effect.operation, call, frame, hostWaitMayHang(record, state)});
      return;
    }
    checkCallersWork(access, stream, element, effect, call, state, frame);
  }

  // --- The stream-argument contract ---------------------------------------------------------
  // A function that takes one stream promises its caller that its work runs after the caller's
  // earlier work on that stream and before the caller's later work on it, as every CUDA library
  // does. Analysed on its own (a root), the function starts with the caller's work on the stream
  // pending on everything the caller handed in, and ends with the caller's later work waiting on
  // the stream: work on a stream the function created that touches the caller's memory must wait
  // for the parameter first, and be joined back into it before the function returns.

  struct StreamContract {
    std::string stream; // the stream parameter's key
    // A `= 0` default lets callers leave the legacy default stream there, which a blocking side
    // stream is ordered with anyway.
    bool defaulted = false;
    std::vector<std::string> callersMemory; // the other parameters' keys
    AccessRecord callersWork;               // pending on entry
  };

  static bool isStreamType(clang::QualType type) {
    const auto* pointer = type.getCanonicalType()->getAs<clang::PointerType>();
    const clang::RecordDecl* record =
        pointer ? pointer->getPointeeType()->getAsRecordDecl() : nullptr;
    return record && record->getName() == "CUstream_st";
  }

  // The contract of a function with exactly one stream parameter. With two, which stream the
  // caller's work on a buffer is on is not known, so neither carries one.
  static std::optional<StreamContract> streamContract(const clang::FunctionDecl& function) {
    std::optional<StreamContract> contract;
    const clang::ParmVarDecl* stream = nullptr;
    for (const clang::ParmVarDecl* parameter : function.parameters())
      if (isStreamType(parameter->getType())) {
        if (stream) return std::nullopt;
        stream = parameter;
      }
    if (!stream || !function.getBody()) return std::nullopt;
    contract.emplace();
    contract->stream = variableKey(stream);
    contract->defaulted = stream->hasDefaultArg();
    for (const clang::ParmVarDecl* parameter : function.parameters())
      if (parameter != stream) contract->callersMemory.push_back(variableKey(parameter));
    contract->callersWork = {kCallersMemory.str(), contract->stream, true,
                             function.getBody(),   ByteRange{},      false,
                             contract->stream};
    return contract;
  }

  // The caller's earlier work on the stream parameter, writing what it handed in.
  void expectCallersWork(const clang::FunctionDecl& function, FlowState& entry) {
    setEntry(entry.pending, contract_->callersWork, std::set<std::string>{});
    AccessDetail& detail = details_[contract_->callersWork];
    detail.operation = "the caller's work before the call to '" + function.getNameAsString() + "'";
    detail.write = true;
  }

  // Memory the caller handed in: a parameter's, or reached from one.
  bool reachesCaller(llvm::StringRef buffer) const {
    return std::any_of(contract_->callersMemory.begin(), contract_->callersMemory.end(),
                       [&](const std::string& parameter) { return isRootedAt(buffer, parameter); });
  }

  // A stream the function created, so never the one the caller passed; with a defaulted stream
  // parameter, only a non-blocking one, which the legacy default stream does not order.
  bool isOwnStream(const std::string& stream, const FlowState& state) const {
    return state.createdStreams->contains(stream) &&
           (!contract_->defaulted || !isBlocking(stream, state));
  }

  // Entry: the caller's memory touched on the function's own stream before that stream waited
  // for the parameter. Memory the function allocated again (state.memory knows it) is its own.
  void checkCallersWork(const ResolvedUse& access, const std::string& stream,
                        const std::string& element, const CallEffect& effect,
                        const clang::CallExpr& call, const FlowState& state, const Frame& frame) {
    if (!contract_ || !reachesCaller(access.buffer) || state.memory->contains(access.buffer) ||
        !isOwnStream(stream, state))
      return;
    auto callers = state.pending->find(contract_->callersWork);
    if (callers == state.pending->end() ||
        orderedBefore(callers->first, callers->second, stream, element, state))
      return;
    notify({LaterAccess::StreamWork, callers->first, details_[callers->first], access.buffer,
            stream, access.use.read, access.use.write, effect.operation, call, frame, false});
  }

  // Return: the function's own streams' work on the caller's memory that the stream parameter
  // is not ordered after.
  void checkReturn(const FlowState& exit, const clang::FunctionDecl& function) {
    for (const auto& [record, orderedAfter] : *exit.pending) {
      if (record.buffer == kCallersMemory || !reachesCaller(record.buffer) ||
          !isOwnStream(record.stream, exit) ||
          orderedBefore(record, orderedAfter, contract_->stream, contract_->stream, exit))
        continue;
      auto detail = details_.find(record);
      if (detail == details_.end() || !detail->second.call) continue;
      for (const std::unique_ptr<Check>& check : checks_)
        check->onPendingAtReturn({record, detail->second, contract_->stream, function});
    }
  }

  void waitOnEvent(const CallEffect& effect, const clang::CallExpr& call, FlowState& state,
                   const Frame& frame) {
    std::optional<std::string> stream =
        streamKeyOf(effect.stream, effect.perThreadDefaultStream, state, frame);
    std::optional<std::string> event = handleKeyOf(effect.event, state, frame);
    if (!stream || !event || joinCaptureThroughEvent(state, *stream, *event)) return;
    auto found = state.events->find(*event);
    if (found == state.events->end()) return;
    const EventState& waited = found->second;
    // A wait on an event recorded on some paths only is a no-op on the others; whether that
    // leaves an access unordered is the cross-stream check's question. Never recorded on any
    // path, the wait is a no-op wherever it runs.
    if (waited.status == RecordedStatus::Unrecorded && frame.reporting)
      for (const std::unique_ptr<Check>& check : checks_)
        check->onUnrecordedWait({*stream, *event, waited, effect.operation, call, frame});
    auto ordersMore = [&](const AccessRecord& record) {
      auto pending = state.pending->find(record);
      return pending != state.pending->end() && !pending->second.contains(*stream);
    };
    if (std::none_of(waited.snapshot.begin(), waited.snapshot.end(), ordersMore)) return;
    PendingAccesses& pending = state.pending.edit();
    for (const AccessRecord& record : waited.snapshot)
      if (auto access = pending.find(record); access != pending.end())
        access->second.insert(*stream);
  }

  void freeInStreamOrder(const CallEffect& effect, const clang::CallExpr& call, FlowState& state,
                         const Frame& frame) {
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
        if (frame.site && record.site == frame.site && !frame.throughCallable) continue;
        notify({LaterAccess::StreamFree, record, details_[record], *buffer, *stream, false, true,
                effect.operation, call, frame, hostWaitMayHang(record, state)});
        break;
      }
    dropRecordsOf(*buffer, state);
  }

  // --- The host's own accesses -------------------------------------------------------------

  void hostElementAccess(const clang::Expr* element, const clang::Expr* pointer, FlowState& state,
                         const Frame& frame) {
    std::optional<std::string> buffer = keyOf(pointer, state, frame);
    if (!buffer) return;
    const clang::Stmt* current = element;
    const clang::Stmt* parent = frame.parents->getParent(const_cast<clang::Stmt*>(current));
    while (parent && llvm::isa<clang::ParenExpr, clang::MemberExpr>(parent)) {
      current = parent;
      parent = frame.parents->getParent(const_cast<clang::Stmt*>(current));
    }
    bool writes = false;
    if (const auto* binary = llvm::dyn_cast_or_null<clang::BinaryOperator>(parent))
      writes = binary->isAssignmentOp() && binary->getLHS() == current;
    if (const auto* unary = llvm::dyn_cast_or_null<clang::UnaryOperator>(parent)) {
      if (unary->getOpcode() == clang::UO_AddrOf) return; // an address, not an access
      writes = unary->isIncrementDecrementOp();
    }
    ByteRange range;
    range.offset = keys_.byteOffsetOf(pointer, state, frame.thisKey);
    if (const auto* subscript = llvm::dyn_cast<clang::ArraySubscriptExpr>(element)) {
      std::optional<Polynomial> index = keys_.valueOf(subscript->getIdx(), state, frame.thisKey);
      range.offset =
          range.offset && index
              ? std::optional(*range.offset + index->scaled(keys_.sizeOf(element->getType())))
              : std::nullopt;
    }
    range.length = Polynomial::constant(keys_.sizeOf(element->getType()));
    hostAccess(*buffer, range, writes, element, state, frame);
  }

  void hostAccess(const std::string& buffer, const ByteRange& range, bool writes,
                  const clang::Stmt* access, const FlowState& state, const Frame& frame) {
    if (!frame.reporting) return;
    auto memory = state.memory->find(buffer);
    if (memory == state.memory->end() || memory->second != MemoryKind::Pinned) return;
    for (const auto& [record, orderedAfter] : *state.pending) {
      if (!sameBytes(record, buffer, range) || !conflicting(record, writes, false)) continue;
      const std::string operation = writes ? "write" : "read";
      notify({LaterAccess::HostAccess, record, details_[record], buffer, record.stream, !writes,
              writes, operation, *access, frame, hostWaitMayHang(record, state)});
      return;
    }
  }

  void freeOnHost(const std::string& buffer, llvm::StringRef operation, const clang::Stmt* call,
                  FlowState& state, const Frame& frame) {
    auto memory = state.memory->find(buffer);
    const bool pinned = memory != state.memory->end() && memory->second == MemoryKind::Pinned;
    if (frame.reporting && pinned)
      for (const auto& [record, orderedAfter] : *state.pending) {
        if (!mayAlias(record.buffer, buffer)) continue;
        notify({LaterAccess::HostFree, record, details_[record], buffer, record.stream, false, true,
                operation.str(), *call, frame, hostWaitMayHang(record, state)});
        break;
      }
    dropRecordsOf(buffer, state);
    eraseEntry(state.memory, buffer);
  }

  static bool hostWaitMayHang(const AccessRecord& record, const FlowState& state) {
    return state.spinningStreams->contains(record.stream);
  }

  void notify(const UnorderedAccess& pair) const {
    for (const std::unique_ptr<Check>& check : checks_)
      check->onUnorderedAccess(pair);
  }

  clang::ASTContext& context_;
  const AnalysisOptions& options_;
  RemarkSink& remarks_;
  StorageKeys keys_;
  KernelSummaries kernels_;
  CallableTargets callables_;
  FunctionEffects effects_;
  StreamStorage streamStorage_;
  FieldMemory fieldMemory_;
  std::map<const clang::FunctionDecl*, FunctionCfg> cfgs_;
  std::map<const clang::FunctionDecl*, bool> neverReturns_;
  std::map<const clang::FunctionDecl*, const clang::VarDecl*> returnedLocals_;
  std::vector<std::unique_ptr<Check>> checks_;
  std::map<AccessRecord, AccessDetail> details_;
  std::optional<StreamContract> contract_; // of the root function being analysed
};

FlowEngine::FlowEngine(clang::ASTContext& context, const AnalysisOptions& options,
                       std::vector<std::unique_ptr<Check>> checks, RemarkSink& remarks,
                       const std::vector<const clang::FunctionDecl*>& functions)
    : walk_(std::make_unique<Walk>(context, options, std::move(checks), remarks, functions)) {}

FlowEngine::~FlowEngine() = default;

void FlowEngine::analyzeFunction(const clang::FunctionDecl& function) {
  walk_->analyzeFunction(function);
}

} // namespace streamrace::analyzer
