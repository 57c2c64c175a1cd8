// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The flow-sensitive core: a worklist over clang::CFG with a small abstract state per function.
//
// The state holds the stream-ordered accesses that may still be pending (one record per access
// site, buffer, stream and kind), for each the set of streams already ordered after it; events
// as the set of records their last record captured; aliases of locals and parameters; stream
// flags and what memory a buffer is. Joins keep a record pending if it is pending on any path and
// ordered only if ordered on every path, which is what "no ordering on some path" needs. Calls to
// functions of the same translation unit are analyzed in place with their parameters bound to the
// caller's values (a summary computed per call site), so wrappers are understood without models.
#include "streamrace/analyzer/analysis.h"

#include "call_model.h"
#include "copy_on_write.h"
#include "element_index.h"
#include "fix_its.h"
#include "function_effects.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Analysis/CFG.h"
#include "clang/Basic/SourceManager.h"

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <tuple>

namespace streamrace::analyzer {
namespace {

constexpr llvm::StringLiteral kLegacyStream = "<legacy>";
constexpr llvm::StringLiteral kPerThreadStream = "<per-thread>";
// In a record's ordered-after set: every blocking stream (a legacy-stream op came after it).
constexpr llvm::StringLiteral kEveryBlockingStream = "<every-blocking-stream>";
constexpr unsigned kMaxInlineDepth = 4;
constexpr unsigned kMaxVisitsPerBlock = 32;

struct AccessRecord {
  std::string buffer;
  std::string stream;
  bool write = false;
  const clang::Stmt* site = nullptr; // the statement of the analyzed function that caused it
  auto operator<=>(const AccessRecord&) const = default;
};

struct AccessDetail {
  std::string operation;
  bool read = false;
  bool write = false;
  const clang::Expr* call = nullptr; // where the access is, possibly inside an inlined callee
  const clang::FunctionDecl* function = nullptr;
};

enum class RecordedStatus { Unrecorded, OnSomePaths, Recorded };

struct EventState {
  RecordedStatus status = RecordedStatus::Recorded;
  std::set<AccessRecord> snapshot;
  clang::SourceLocation created;
  bool operator==(const EventState&) const = default;
};

using PendingAccesses = std::map<AccessRecord, std::set<std::string>>;

// Each part is shared with the state it was copied from until a statement changes it.
struct FlowState {
  CopyOnWrite<PendingAccesses> pending; // record -> streams ordered after it
  CopyOnWrite<std::map<std::string, EventState>> events;
  CopyOnWrite<std::map<const clang::ValueDecl*, std::string>> aliases;
  CopyOnWrite<std::set<std::string>> nonBlockingStreams;
  CopyOnWrite<std::set<std::string>> capturingStreams;
  CopyOnWrite<std::map<std::string, MemoryKind>> memory;
  bool operator==(const FlowState&) const = default;
};

// Changes that leave a part shared when they change nothing.
template <class Map, class Key, class Value>
void setEntry(CopyOnWrite<Map>& part, const Key& key, Value value) {
  if (auto found = part->find(key); found != part->end() && found->second == value) return;
  part.edit()[key] = std::move(value);
}

template <class Container, class Key>
void eraseEntry(CopyOnWrite<Container>& part, const Key& key) {
  if (part->contains(key)) part.edit().erase(key);
}

template <class Set, class Key> void insertEntry(CopyOnWrite<Set>& part, const Key& key) {
  if (!part->contains(key)) part.edit().insert(key);
}

template <class Container, class Predicate>
void eraseIf(CopyOnWrite<Container>& part, Predicate predicate) {
  if (std::any_of(part->begin(), part->end(), predicate)) std::erase_if(part.edit(), predicate);
}

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

FlowState join(const FlowState& a, const FlowState& b) {
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
  joined.memory = joinPart(a.memory, b.memory, [](const auto& memoryA, const auto& memoryB) {
    return joinEqualEntries(memoryA, memoryB);
  });
  joined.nonBlockingStreams =
      joinPart(a.nonBlockingStreams, b.nonBlockingStreams,
               [](const std::set<std::string>& streamsA, const std::set<std::string>& streamsB) {
                 std::set<std::string> common;
                 for (const std::string& stream : streamsA)
                   if (streamsB.contains(stream)) common.insert(stream);
                 return common;
               });
  // Work captured on any path is not run then; reporting it would be a guess either way.
  joined.capturingStreams =
      joinPart(a.capturingStreams, b.capturingStreams,
               [](const std::set<std::string>& streamsA, const std::set<std::string>& streamsB) {
                 std::set<std::string> either = streamsA;
                 either.insert(streamsB.begin(), streamsB.end());
                 return either;
               });
  return joined;
}

// Keys name storage: "name@id" for a variable, then ".field", "->field", "[3]", "[*]", ".m()".
std::string displayName(llvm::StringRef key) {
  std::string shown;
  for (std::size_t i = 0; i < key.size(); ++i) {
    if (key[i] != '@') {
      shown += key[i];
      continue;
    }
    while (i + 1 < key.size() && llvm::isHexDigit(key[i + 1]))
      ++i;
  }
  return shown;
}

std::string streamDisplayName(llvm::StringRef key) {
  if (key == kLegacyStream) return "the legacy default stream";
  if (key == kPerThreadStream) return "the per-thread default stream";
  return "stream '" + displayName(key) + "'";
}

// The stream as code can name it in a fix-it.
std::string streamSpelling(llvm::StringRef key) {
  if (key == kLegacyStream) return "cudaStreamLegacy";
  if (key == kPerThreadStream) return "cudaStreamPerThread";
  return displayName(key);
}

std::string accessVerb(bool read, bool write) {
  if (read && write) return "read and written";
  return write ? "written" : "read";
}

// How notes name a function: lambdas have no useful name of their own.
std::string describeFunction(const clang::FunctionDecl& function) {
  if (const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(&function))
    if (method->getParent()->isLambda()) return "the lambda";
  return "'" + function.getNameAsString() + "'";
}

struct Frame {
  const clang::FunctionDecl* function = nullptr;
  std::string thisKey = "this";
  const clang::Stmt* site = nullptr; // the call in the analyzed function this frame serves
  const Frame* caller = nullptr;
  unsigned depth = 0;
  const clang::ParentMap* parents = nullptr;
  const clang::ParentMap* rootParents = nullptr;
  bool reporting = false;
};

struct FunctionCfg {
  std::unique_ptr<clang::CFG> cfg;
  std::unique_ptr<clang::ParentMap> parents;
};

class TranslationUnitAnalysis {
public:
  TranslationUnitAnalysis(clang::ASTContext& context, const AnalysisOptions& options)
      : context_(context), options_(options), kernels_(summarizeKernels(context)),
        effects_(context, options.userModel, kernels_) {}

  void analyzeFunction(const clang::FunctionDecl& function) {
    // Starting from nothing, a function that does no stream work has nothing to report.
    if (!effects_.mayTouchStreams(function)) return;
    const FunctionCfg* cfg = cfgFor(function);
    if (!cfg) return;
    Frame frame;
    frame.function = &function;
    frame.parents = cfg->parents.get();
    frame.rootParents = cfg->parents.get();
    frame.reporting = true;
    run(function, FlowState{}, frame);
  }

  std::vector<Finding> takeFindings() {
    for (auto index = superseded_.rbegin(); index != superseded_.rend(); ++index)
      findings_.erase(findings_.begin() + static_cast<std::ptrdiff_t>(*index));
    superseded_.clear();
    const clang::SourceManager& sources = context_.getSourceManager();
    std::stable_sort(findings_.begin(), findings_.end(), [&](const Finding& a, const Finding& b) {
      return sources.isBeforeInTranslationUnit(a.location, b.location);
    });
    return std::move(findings_);
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
    slot->second.cfg = clang::CFG::buildCFG(&function, body, &context_, options);
    if (!slot->second.cfg) return nullptr;
    slot->second.parents = std::make_unique<clang::ParentMap>(body);
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
    while (!worklist.empty()) {
      const clang::CFGBlock* block = worklist.front();
      worklist.pop_front();
      FlowState state = *in[block->getBlockID()];
      transferBlock(*block, state, quiet);
      for (const clang::CFGBlock::AdjacentBlock& successor : block->succs()) {
        const clang::CFGBlock* next = successor.getReachableBlock();
        if (!next) continue;
        std::optional<FlowState>& target = in[next->getBlockID()];
        FlowState updated = target ? join(*target, state) : state;
        if (target && *target == updated) continue;
        if (++visits[next->getBlockID()] > kMaxVisitsPerBlock) continue;
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
    return exit ? *exit : FlowState{};
  }

  void transferBlock(const clang::CFGBlock& block, FlowState& state, const Frame& frame) {
    for (const clang::CFGElement& element : block)
      if (std::optional<clang::CFGStmt> statement = element.getAs<clang::CFGStmt>())
        transferStatement(statement->getStmt(), state, frame);
  }

  void transferStatement(const clang::Stmt* stmt, FlowState& state, const Frame& frame) {
    if (const auto* declaration = llvm::dyn_cast<clang::DeclStmt>(stmt)) {
      for (const clang::Decl* decl : declaration->decls())
        if (const auto* var = llvm::dyn_cast<clang::VarDecl>(decl)) {
          // A loop body's declaration runs again each iteration: the old value is gone.
          if (isIndexVariable(var)) {
            forgetIndexVariable(var, state);
            if (const clang::ForStmt* loop = loopStartedBy(declaration, frame);
                loop && var->getInit())
              rebaseIndexVariable(var, var->getInit(), *loop, state, frame);
          }
          if (const clang::Expr* init = var->getInit()) bindVariable(var, init, state, frame);
        }
      return;
    }
    if (const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(stmt)) {
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
      if (binary->getOpcode() == clang::BO_Assign)
        if (const auto* target =
                llvm::dyn_cast<clang::DeclRefExpr>(binary->getLHS()->IgnoreParenImpCasts()))
          if (const auto* var = llvm::dyn_cast<clang::VarDecl>(target->getDecl()))
            bindVariable(var, binary->getRHS(), state, frame);
      return;
    }
    if (const auto* call = llvm::dyn_cast<clang::CallExpr>(stmt)) {
      handleCall(*call, state, frame);
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
      if (unary->getOpcode() == clang::UO_Deref && !unary->getType()->isPointerType())
        hostElementAccess(unary, unary->getSubExpr(), state, frame);
    }
  }

  // --- Index variables (element_index.h) --------------------------------------------------

  static bool isIndexVariable(const clang::VarDecl* var) {
    return var->hasLocalStorage() && var->getType()->isIntegerType();
  }

  void shiftIndexVariable(const clang::ValueDecl* variable, int64_t delta, FlowState& state) {
    const std::string name = variableKey(variable);
    rewriteKeys(state, name,
                [&](const std::string& key) { return shiftIndices(key, name, delta); });
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
    for (const clang::Stmt* child : stmt->children())
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
    const std::string value = indexKey(start, context_);
    auto rebase = [&](const std::string& key) {
      return rebaseIndices(key, name, value, containers);
    };
    rewriteKeys(state, "[", rebase);
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
    rewriteKeys(state, name, [&](const std::string& key) { return forgetIndices(key, name); });
  }

  // Renames storage everywhere the state names it; only keys containing `mention` can change.
  // Records that become one keep the streams both were ordered after, and the details of the
  // first.
  template <class Rename>
  void rewriteKeys(FlowState& state, llvm::StringRef mention, Rename rename) {
    auto mentioned = [&](llvm::StringRef key) { return key.contains(mention); };
    bool pendingMentioned = false;
    for (const auto& [record, orderedAfter] : *state.pending)
      pendingMentioned = pendingMentioned || mentioned(record.buffer);
    bool eventsMentioned = false;
    for (const auto& [name, event] : *state.events)
      for (const AccessRecord& record : event.snapshot)
        eventsMentioned = eventsMentioned || mentioned(record.buffer);
    bool aliasesMentioned = false;
    for (const auto& [variable, target] : *state.aliases)
      aliasesMentioned = aliasesMentioned || mentioned(target);
    bool memoryMentioned = false;
    for (const auto& [buffer, kind] : *state.memory)
      memoryMentioned = memoryMentioned || mentioned(buffer);
    // Only the parts that name the storage are rebuilt; the others stay shared.
    auto renameRecord = [&](const AccessRecord& record) {
      AccessRecord renamed = record;
      if (!mentioned(record.buffer)) return renamed;
      renamed.buffer = rename(record.buffer);
      if (renamed.buffer != record.buffer)
        if (auto detail = details_.find(record); detail != details_.end())
          details_.try_emplace(renamed, detail->second);
      return renamed;
    };
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
    if (memoryMentioned) {
      std::map<std::string, MemoryKind> memory;
      for (const auto& [buffer, kind] : *state.memory)
        if (auto [slot, inserted] =
                memory.emplace(mentioned(buffer) ? rename(buffer) : buffer, kind);
            !inserted && slot->second != kind)
          slot->second = MemoryKind::Unknown;
      state.memory.assign(std::move(memory));
    }
  }

  // --- Naming storage ---------------------------------------------------------------------

  std::optional<std::string> keyOf(const clang::Expr* expr, const FlowState& state,
                                   const Frame& frame) const {
    if (!expr) return std::nullopt;
    expr = expr->IgnoreParenCasts();
    if (const auto* defaulted = llvm::dyn_cast<clang::CXXDefaultArgExpr>(expr))
      return keyOf(defaulted->getExpr(), state, frame);
    if (const auto* temporary = llvm::dyn_cast<clang::MaterializeTemporaryExpr>(expr))
      return keyOf(temporary->getSubExpr(), state, frame);
    if (const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(expr)) {
      const clang::ValueDecl* decl = reference->getDecl();
      if (!llvm::isa<clang::VarDecl>(decl)) return std::nullopt;
      if (auto alias = state.aliases->find(decl); alias != state.aliases->end())
        return alias->second;
      return variableKey(decl);
    }
    if (llvm::isa<clang::CXXThisExpr>(expr)) return frame.thisKey;
    if (const auto* member = llvm::dyn_cast<clang::MemberExpr>(expr)) {
      std::optional<std::string> base = keyOf(member->getBase(), state, frame);
      if (!base) return std::nullopt;
      return *base + (member->isArrow() ? "->" : ".") + member->getMemberDecl()->getNameAsString();
    }
    if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(expr)) {
      if (unary->getOpcode() == clang::UO_AddrOf) {
        const clang::Expr* operand = unary->getSubExpr()->IgnoreParenCasts();
        if (const auto* subscript = llvm::dyn_cast<clang::ArraySubscriptExpr>(operand))
          if (!subscript->getType()->isPointerType())
            return keyOf(subscript->getBase(), state, frame);
        return keyOf(operand, state, frame);
      }
      if (unary->getOpcode() == clang::UO_Deref) {
        std::optional<std::string> base = keyOf(unary->getSubExpr(), state, frame);
        return base ? std::optional(*base + "[0]") : std::nullopt;
      }
      return std::nullopt;
    }
    if (const auto* binary = llvm::dyn_cast<clang::BinaryOperator>(expr)) {
      if (!binary->isAdditiveOp()) return std::nullopt;
      const clang::Expr* pointer =
          binary->getLHS()->getType()->isPointerType() ? binary->getLHS() : binary->getRHS();
      return pointer->getType()->isPointerType() ? keyOf(pointer, state, frame) : std::nullopt;
    }
    if (const auto* subscript = llvm::dyn_cast<clang::ArraySubscriptExpr>(expr))
      return elementKey(subscript->getBase(), subscript->getIdx(), state, frame);
    if (const auto* operatorCall = llvm::dyn_cast<clang::CXXOperatorCallExpr>(expr)) {
      if (operatorCall->getOperator() == clang::OO_Subscript && operatorCall->getNumArgs() == 2)
        return elementKey(operatorCall->getArg(0), operatorCall->getArg(1), state, frame);
      return std::nullopt;
    }
    if (const auto* memberCall = llvm::dyn_cast<clang::CXXMemberCallExpr>(expr)) {
      const clang::CXXMethodDecl* method = memberCall->getMethodDecl();
      std::optional<std::string> object =
          keyOf(memberCall->getImplicitObjectArgument(), state, frame);
      if (!method || !object || memberCall->getNumArgs() != 0) return std::nullopt;
      return *object + "." + method->getNameAsString() + "()";
    }
    return std::nullopt;
  }

  std::optional<std::string> elementKey(const clang::Expr* base, const clang::Expr* index,
                                        const FlowState& state, const Frame& frame) const {
    std::optional<std::string> container = keyOf(base, state, frame);
    if (!container) return std::nullopt;
    return *container + "[" + indexKey(index, context_) + "]";
  }

  std::optional<std::string> streamKeyOf(const clang::Expr* expr, bool perThreadDefault,
                                         const FlowState& state, const Frame& frame) const {
    const llvm::StringRef defaultStream = perThreadDefault ? kPerThreadStream : kLegacyStream;
    if (!expr) return defaultStream.str();
    const clang::Expr* bare = expr->IgnoreParenCasts();
    if (const auto* defaulted = llvm::dyn_cast<clang::CXXDefaultArgExpr>(bare))
      return streamKeyOf(defaulted->getExpr(), perThreadDefault, state, frame);
    if (bare->isNullPointerConstant(context_, clang::Expr::NPC_ValueDependentIsNotNull))
      return defaultStream.str();
    if (const auto* literal = llvm::dyn_cast<clang::IntegerLiteral>(bare)) {
      const uint64_t value = literal->getValue().getZExtValue();
      if (value == api_model::kLegacyStreamHandle) return kLegacyStream.str();
      if (value == api_model::kPerThreadStreamHandle) return kPerThreadStream.str();
      return std::nullopt;
    }
    return handleKeyOf(expr, state, frame);
  }

  // Streams and events are named with collapsed indices (element_index.h).
  std::optional<std::string> handleKeyOf(const clang::Expr* expr, const FlowState& state,
                                         const Frame& frame) const {
    std::optional<std::string> key = keyOf(expr, state, frame);
    return key ? std::optional(collapseIndices(*key)) : std::nullopt;
  }

  bool isBlocking(llvm::StringRef stream, const FlowState& state) const {
    return !state.nonBlockingStreams->contains(stream.str());
  }

  // Whether the access `record` is ordered before new work on `stream`.
  bool orderedBefore(const AccessRecord& record, const std::set<std::string>& orderedAfter,
                     llvm::StringRef stream, const FlowState& state) const {
    if (record.stream == stream || orderedAfter.contains(stream.str())) return true;
    const bool blocking = isBlocking(stream, state);
    if (stream == kLegacyStream && isBlocking(record.stream, state)) return true;
    return blocking && orderedAfter.contains(kEveryBlockingStream.str());
  }

  void bindVariable(const clang::VarDecl* var, const clang::Expr* init, FlowState& state,
                    const Frame& frame) {
    const clang::QualType type = var->getType();
    if (!type->isPointerType() && !type->isReferenceType()) return;
    std::optional<std::string> target = keyOf(init, state, frame);
    if (target) {
      setEntry(state.aliases, var, *target);
      return;
    }
    eraseEntry(state.aliases, var);
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
        return variableKey(reference->getDecl());
      }
    return keyOf(target, state, frame);
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
    if (callee && inlineCall(call, *callee, state, frame)) return;
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
      hostAccess(*buffer, writes, &call, state, frame);
    }
  }

  bool inlineCall(const clang::CallExpr& call, const clang::FunctionDecl& callee, FlowState& state,
                  const Frame& frame) {
    const clang::FunctionDecl* definition =
        analyzableDefinition(callee, context_.getSourceManager());
    if (!definition || frame.depth >= kMaxInlineDepth) return false;
    for (const Frame* active = &frame; active; active = active->caller)
      if (active->function == definition) return false;

    Frame inner;
    inner.function = definition;
    inner.site = frame.site ? frame.site : &call;
    inner.caller = &frame;
    inner.depth = frame.depth + 1;
    inner.rootParents = frame.rootParents;
    inner.reporting = frame.reporting;

    unsigned firstArgument = 0;
    if (const auto* memberCall = llvm::dyn_cast<clang::CXXMemberCallExpr>(&call)) {
      if (auto object = keyOf(memberCall->getImplicitObjectArgument(), state, frame))
        inner.thisKey = *object;
    } else if (llvm::isa<clang::CXXOperatorCallExpr>(call) &&
               llvm::isa<clang::CXXMethodDecl>(definition)) {
      if (auto object = keyOf(call.getArg(0), state, frame)) inner.thisKey = *object;
      firstArgument = 1;
    }
    std::vector<std::pair<const clang::ParmVarDecl*, std::optional<std::string>>> bindings;
    for (unsigned i = 0; i < definition->getNumParams(); ++i) {
      const clang::ParmVarDecl* parameter = definition->getParamDecl(i);
      std::optional<std::string> value;
      if (i + firstArgument < call.getNumArgs()) {
        const clang::Expr* argument = call.getArg(i + firstArgument);
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
        !inertCallObservable(*definition, bindings, inner.thisKey, state, frame))
      return true;

    const FunctionCfg* calleeCfg = cfgFor(*definition);
    if (!calleeCfg) return false;
    inner.parents = calleeCfg->parents.get();
    for (auto& [parameter, value] : bindings) {
      eraseEntry(state.aliases, parameter);
      if (isIndexVariable(parameter)) forgetIndexVariable(parameter, state);
      if (value) setEntry(state.aliases, parameter, std::move(*value));
    }
    state = run(*definition, std::move(state), inner);
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
    for (const auto& [record, orderedAfter] : *state.pending)
      if (mentioned(record.buffer)) return true;
    for (const auto& [name, event] : *state.events) {
      if (mentioned(name)) return true;
      for (const AccessRecord& record : event.snapshot)
        if (mentioned(record.buffer)) return true;
    }
    for (const auto& [variable, target] : *state.aliases)
      if (mentioned(target)) return true;
    for (const auto& [buffer, kind] : *state.memory)
      if (mentioned(buffer)) return true;
    return false;
  }

  const clang::Stmt* siteOf(const clang::Stmt& stmt, const Frame& frame) const {
    return frame.site ? frame.site : &stmt;
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
      if (!event) return;
      EventState recorded;
      if (auto found = state.events->find(*event); found != state.events->end())
        recorded.created = found->second.created;
      recorded.status = RecordedStatus::Recorded;
      if (stream)
        for (const auto& [record, orderedAfter] : *state.pending)
          if (orderedBefore(record, orderedAfter, *stream, state)) recorded.snapshot.insert(record);
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
              streamKeyOf(effect.stream, effect.perThreadDefaultStream, state, frame))
        completeStream(*stream, state);
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
    case CallEffectKind::CaptureEnd:
      if (std::optional<std::string> stream =
              streamKeyOf(effect.stream, effect.perThreadDefaultStream, state, frame)) {
        if (effect.kind == CallEffectKind::CaptureBegin)
          insertEntry(state.capturingStreams, *stream);
        else
          eraseEntry(state.capturingStreams, *stream);
      }
      return;
    case CallEffectKind::HostRegister:
      if (!effect.buffers.empty())
        if (std::optional<std::string> buffer = keyOf(effect.buffers.front().expr, state, frame))
          setEntry(state.memory, *buffer, MemoryKind::Pinned);
      return;
    case CallEffectKind::StreamCreate:
      if (std::optional<std::string> stream = outParameterKey(effect.outPointer, state, frame)) {
        const std::string key = collapseIndices(*stream);
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

  void completeStream(llvm::StringRef stream, FlowState& state) const {
    eraseIf(state.pending, [&](const auto& entry) {
      return orderedBefore(entry.first, entry.second, stream, state);
    });
  }

  void enqueue(const CallEffect& effect, const clang::CallExpr& call, FlowState& state,
               const Frame& frame) {
    std::optional<std::string> stream =
        streamKeyOf(effect.stream, effect.perThreadDefaultStream, state, frame);
    // Work enqueued on a capturing stream goes into a graph; it runs when the graph is launched.
    if (!stream || state.capturingStreams->contains(*stream)) return;
    for (const BufferUse& use : effect.buffers) {
      std::optional<std::string> buffer = keyOf(use.expr, state, frame);
      if (!buffer) continue;
      checkCrossStream(*buffer, *stream, use, effect, call, state, frame);
    }
    if (*stream == kLegacyStream)
      for (auto& [record, orderedAfter] : state.pending.edit())
        if (orderedBefore(record, orderedAfter, *stream, state))
          orderedAfter.insert(kEveryBlockingStream.str());
    for (const BufferUse& use : effect.buffers) {
      std::optional<std::string> buffer = keyOf(use.expr, state, frame);
      if (!buffer) continue;
      AccessRecord record{*buffer, *stream, use.write, siteOf(call, frame)};
      std::set<std::string> orderedAfter{*stream};
      if (*stream == kLegacyStream) orderedAfter.insert(kEveryBlockingStream.str());
      state.pending.edit()[record] = std::move(orderedAfter);
      AccessDetail& detail = details_[record];
      detail.operation = effect.operation;
      detail.read |= use.read;
      detail.write |= use.write;
      detail.call = &call;
      detail.function = frame.function;
    }
    if (effect.hostWaitsOnReturn) completeStream(*stream, state);
  }

  void checkCrossStream(const std::string& buffer, const std::string& stream, const BufferUse& use,
                        const CallEffect& effect, const clang::CallExpr& call,
                        const FlowState& state, const Frame& frame) {
    if (!frame.reporting) return;
    for (const auto& [record, orderedAfter] : *state.pending) {
      if (!mayAlias(record.buffer, buffer) || !(record.write || use.write) ||
          orderedBefore(record, orderedAfter, stream, state))
        continue;
      // Both accesses inside one call: the callee's own analysis reports it, once.
      if (frame.site && record.site == frame.site) continue;
      const AccessDetail& earlier = details_[record];
      Finding finding;
      finding.check = kCrossStreamCheck;
      const clang::Stmt* site = siteOf(call, frame);
      finding.location = site->getBeginLoc();
      finding.message = "'" + displayName(buffer) + "' is " + accessVerb(use.read, use.write) +
                        " by " + effect.operation + " on " + streamDisplayName(stream) + " while " +
                        earlier.operation + " on " + streamDisplayName(record.stream) +
                        " may still be " + (record.write ? "writing" : "reading") +
                        " it; no event or synchronization orders the two streams";
      addAccessNotes(finding, record, earlier, buffer);
      addInnerNote(finding, call, frame, effect.operation);
      finding.fixes = orderStreamsFix(record.site, site, streamSpelling(record.stream),
                                      streamSpelling(stream), *frame.rootParents, context_);
      reportFirstConsumer(std::move(finding), buffer, {record.site, record.stream, stream});
      return;
    }
  }

  void addAccessNotes(Finding& finding, const AccessRecord& record, const AccessDetail& earlier,
                      const std::string& buffer) const {
    finding.notes.push_back(
        {record.site->getBeginLoc(), earlier.operation + " " +
                                         (earlier.read && earlier.write ? "reads and writes"
                                          : earlier.write               ? "writes"
                                                                        : "reads") +
                                         " '" + displayName(buffer) + "' on " +
                                         streamDisplayName(record.stream) + " here"});
    if (earlier.call && earlier.call != record.site && earlier.function)
      finding.notes.push_back(
          {earlier.call->getBeginLoc(),
           "the access is made here, inside " + describeFunction(*earlier.function)});
    const clang::SourceLocation eventPoint = locationAfterStatement(record.site, context_);
    if (eventPoint.isValid())
      finding.notes.push_back({eventPoint, "an event recorded on " +
                                               streamDisplayName(record.stream) +
                                               " here, and waited on before the later access, "
                                               "would order the two"});
  }

  void addInnerNote(Finding& finding, const clang::CallExpr& call, const Frame& frame,
                    const std::string& operation) const {
    if (!frame.site) return;
    finding.notes.push_back({call.getBeginLoc(), "the later access is " + operation +
                                                     " here, inside " +
                                                     describeFunction(*frame.function)});
  }

  void waitOnEvent(const CallEffect& effect, const clang::CallExpr& call, FlowState& state,
                   const Frame& frame) {
    std::optional<std::string> stream =
        streamKeyOf(effect.stream, effect.perThreadDefaultStream, state, frame);
    std::optional<std::string> event = handleKeyOf(effect.event, state, frame);
    if (!stream || !event) return;
    auto found = state.events->find(*event);
    if (found == state.events->end()) return;
    const EventState& waited = found->second;
    if (waited.status != RecordedStatus::Recorded && frame.reporting) {
      Finding finding;
      finding.check = kUnrecordedEventCheck;
      finding.location = siteOf(call, frame)->getBeginLoc();
      finding.message =
          streamDisplayName(*stream) + " waits on event '" + displayName(*event) +
          "', which is not recorded " +
          (waited.status == RecordedStatus::Unrecorded ? "before this wait"
                                                       : "on every path to this wait") +
          "; the wait orders nothing";
      if (waited.created.isValid())
        finding.notes.push_back(
            {waited.created, "event '" + displayName(*event) + "' is created here"});
      addInnerNote(finding, call, frame, effect.operation);
      report(std::move(finding), *event);
    }
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
    if (frame.reporting)
      for (const auto& [record, orderedAfter] : *state.pending) {
        if (!mayAlias(record.buffer, *buffer) ||
            orderedBefore(record, orderedAfter, *stream, state))
          continue;
        if (frame.site && record.site == frame.site) continue;
        const AccessDetail& earlier = details_[record];
        Finding finding;
        finding.check = kFreeWhilePendingCheck;
        const clang::Stmt* site = siteOf(call, frame);
        finding.location = site->getBeginLoc();
        finding.message = "'" + displayName(*buffer) + "' is freed by " + effect.operation +
                          " on " + streamDisplayName(*stream) + " while " + earlier.operation +
                          " on " + streamDisplayName(record.stream) + " may still be " +
                          (record.write ? "writing" : "reading") + " it";
        addAccessNotes(finding, record, earlier, *buffer);
        addInnerNote(finding, call, frame, effect.operation);
        finding.fixes = orderStreamsFix(record.site, site, streamSpelling(record.stream),
                                        streamSpelling(*stream), *frame.rootParents, context_);
        report(std::move(finding), *buffer);
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
    hostAccess(*buffer, writes, element, state, frame);
  }

  void hostAccess(const std::string& buffer, bool writes, const clang::Stmt* access,
                  const FlowState& state, const Frame& frame) {
    if (!frame.reporting) return;
    auto memory = state.memory->find(buffer);
    if (memory == state.memory->end() || memory->second != MemoryKind::Pinned) return;
    for (const auto& [record, orderedAfter] : *state.pending) {
      if (!mayAlias(record.buffer, buffer) || !(record.write || writes)) continue;
      const AccessDetail& earlier = details_[record];
      Finding finding;
      finding.check = kHostAccessCheck;
      const clang::Stmt* site = siteOf(*access, frame);
      finding.location = access->getBeginLoc();
      if (frame.site) finding.location = site->getBeginLoc();
      finding.message = std::string("the host ") + (writes ? "writes" : "reads") + " '" +
                        displayName(buffer) + "' while " + earlier.operation + " on " +
                        streamDisplayName(record.stream) + " may still be " +
                        (record.write ? "writing" : "reading") +
                        " it; synchronize the stream before touching the buffer";
      addAccessNotes(finding, record, earlier, buffer);
      finding.fixes =
          synchronizeBeforeFix(site, streamSpelling(record.stream), *frame.rootParents, context_);
      report(std::move(finding), buffer);
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
        const AccessDetail& earlier = details_[record];
        Finding finding;
        finding.check = kFreeWhilePendingCheck;
        const clang::Stmt* site = siteOf(*call, frame);
        finding.location = site->getBeginLoc();
        finding.message = "'" + displayName(buffer) + "' is freed by the host (" + operation.str() +
                          ") while " + earlier.operation + " on " +
                          streamDisplayName(record.stream) + " may still be " +
                          (record.write ? "writing" : "reading") + " it";
        addAccessNotes(finding, record, earlier, buffer);
        finding.fixes =
            synchronizeBeforeFix(site, streamSpelling(record.stream), *frame.rootParents, context_);
        report(std::move(finding), buffer);
        break;
      }
    dropRecordsOf(buffer, state);
    eraseEntry(state.memory, buffer);
  }

  void report(Finding finding, const std::string& subject) {
    auto identity =
        std::make_tuple(finding.check, finding.location.getRawEncoding(), displayName(subject));
    if (!reported_.insert(identity).second) return;
    findings_.push_back(std::move(finding));
  }

  // Work on one stream racing with later work on another is reported at the later access first
  // in the source only: its fix-it makes that stream wait for the producer, which orders the
  // producer before everything enqueued on the stream after the wait as well. (Several buffers
  // of one producer and one consumer are several findings there.)
  using ProducerAndConsumer = std::tuple<const clang::Stmt*, std::string, std::string>;
  struct FirstConsumer {
    clang::SourceLocation location;
    std::vector<std::size_t> findings;
  };
  void reportFirstConsumer(Finding finding, const std::string& subject,
                           const ProducerAndConsumer& streams) {
    auto [slot, inserted] = firstConsumers_.try_emplace(streams);
    FirstConsumer& first = slot->second;
    if (!inserted && first.location != finding.location) {
      if (!context_.getSourceManager().isBeforeInTranslationUnit(finding.location, first.location))
        return;
      superseded_.insert(first.findings.begin(), first.findings.end());
      first.findings.clear();
    }
    first.location = finding.location;
    const std::size_t index = findings_.size();
    report(std::move(finding), subject);
    if (findings_.size() > index) first.findings.push_back(index);
  }

  clang::ASTContext& context_;
  const AnalysisOptions& options_;
  KernelSummaries kernels_;
  FunctionEffects effects_;
  std::map<const clang::FunctionDecl*, FunctionCfg> cfgs_;
  std::map<AccessRecord, AccessDetail> details_;
  std::set<std::tuple<std::string, clang::SourceLocation::UIntTy, std::string>> reported_;
  std::vector<Finding> findings_;
  std::map<ProducerAndConsumer, FirstConsumer> firstConsumers_;
  std::set<std::size_t> superseded_;
};

bool isHostCode(const clang::FunctionDecl& function) {
  if (function.hasAttr<clang::CUDAGlobalAttr>()) return false;
  return !function.hasAttr<clang::CUDADeviceAttr>() || function.hasAttr<clang::CUDAHostAttr>();
}

class HostFunctionCollector : public clang::RecursiveASTVisitor<HostFunctionCollector> {
public:
  explicit HostFunctionCollector(const clang::SourceManager& sources) : sources_(sources) {}

  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitLambdaBody() const { return true; }

  // Only the main file's functions are analyzed: skip everything declared elsewhere, except the
  // containers (namespaces, extern "C" blocks) a main-file declaration may sit in.
  bool TraverseDecl(clang::Decl* decl) {
    if (decl &&
        !llvm::isa<clang::TranslationUnitDecl, clang::NamespaceDecl, clang::LinkageSpecDecl>(
            decl) &&
        !sources_.isInMainFile(sources_.getExpansionLoc(decl->getLocation())))
      return true;
    return clang::RecursiveASTVisitor<HostFunctionCollector>::TraverseDecl(decl);
  }

  bool VisitFunctionDecl(clang::FunctionDecl* function) {
    if (function->doesThisDeclarationHaveABody() && !function->isDependentContext() &&
        !function->isImplicit() && isHostCode(*function) &&
        sources_.isInMainFile(sources_.getExpansionLoc(function->getLocation())))
      functions_.push_back(function);
    return true;
  }

  // The instantiations of a member template are listed under its declaration in the class, which
  // may sit in a header this visitor skips: take them from the main file's definition too.
  bool VisitFunctionTemplateDecl(clang::FunctionTemplateDecl* templated) {
    for (clang::FunctionDecl* specialization : templated->specializations())
      VisitFunctionDecl(specialization);
    return true;
  }

  bool VisitLambdaExpr(clang::LambdaExpr* lambda) {
    const clang::CXXMethodDecl* call = lambda->getCallOperator();
    if (call && !call->isDependentContext() && call->hasBody() &&
        sources_.isInMainFile(sources_.getExpansionLoc(call->getLocation())))
      functions_.push_back(call);
    return true;
  }

  std::vector<const clang::FunctionDecl*> functions_;

private:
  const clang::SourceManager& sources_;
};

} // namespace

std::vector<Finding> analyzeTranslationUnit(clang::ASTContext& context,
                                            const AnalysisOptions& options) {
  HostFunctionCollector collector(context.getSourceManager());
  collector.TraverseDecl(context.getTranslationUnitDecl());
  TranslationUnitAnalysis analysis(context, options);
  std::set<const clang::FunctionDecl*> analyzed;
  for (const clang::FunctionDecl* function : collector.functions_)
    if (analyzed.insert(function).second) analysis.analyzeFunction(*function);
  return analysis.takeFindings();
}

} // namespace streamrace::analyzer
