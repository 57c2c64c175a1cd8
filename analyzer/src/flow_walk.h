// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The walk behind FlowEngine: one class, as the Clang Static Analyzer's ExprEngine is, whose
// functions are defined by concern:
//   flow_engine.cpp           the worklist over each function's CFG: paths, branches, loops,
//                             statements and lifetimes;
//   flow_index_variables.cpp  loop counters and the variables that index arrays;
//   flow_storage_names.cpp    what an expression names: storage keys, streams, byte ranges;
//   flow_calls.cpp            call and return: functions of the translation unit run in place;
//   flow_api_effects.cpp      what the API model says a call does to streams, events and memory;
//   flow_stream_contract.cpp  the stream-argument contract of a root function;
//   flow_next_call.cpp        an entry point's next call, after what its last one left;
//   flow_host_accesses.cpp    the host's own reads and writes.
#pragma once

#include "byte_range.h"
#include "call_model.h"
#include "callable_targets.h"
#include "entry_points.h"
#include "event_uses.h"
#include "field_memory.h"
#include "first_iteration.h"
#include "flow_engine.h"
#include "flow_state.h"
#include "frame.h"
#include "function_effects.h"
#include "loop_counter.h"
#include "registration_handles.h"
#include "storage_keys.h"
#include "stream_storage.h"

#include "clang/AST/ParentMap.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace streamrace::analyzer {

class FlowEngine::Walk {
public:
  Walk(clang::ASTContext& context, const AnalysisOptions& options,
       std::vector<std::unique_ptr<Check>> checks, RemarkSink& remarks,
       const std::vector<const clang::FunctionDecl*>& functions,
       const std::vector<const clang::FunctionDecl*>& project)
      : context_(context), options_(options), remarks_(remarks), keys_(context),
        kernels_(summarizeKernels(context)), callables_(functions),
        effects_(context, options.userModel, kernels_, callables_, options.externalDefinitions),
        streamStorage_(project, options.userModel, kernels_, context),
        fieldMemory_(project, options.userModel, kernels_, context),
        registrations_(project, context, options.externalDefinitions), eventUses_(project),
        entryPoints_(functions), checks_(std::move(checks)) {}

  void analyzeFunction(const clang::FunctionDecl& function);

  const HostFacts& hostFacts() const { return host_; }

private:
  struct FunctionCfg {
    std::unique_ptr<clang::CFG> cfg;
    std::unique_ptr<clang::ParentMap> parents;
  };

  // --- The path engine (flow_engine.cpp) ---------------------------------------------------------

  const FunctionCfg* cfgFor(const clang::FunctionDecl& function);

  FlowState run(const clang::FunctionDecl& function, FlowState entry, const Frame& frame);

  // Whether `block`'s last statement is a `throw` (the CFG keeps it as an element, with the
  // exit or the enclosing handler as its successor).
  static bool endsInThrow(const clang::CFGBlock& block);

  // A two-way branch on a variable (`if (overlap)`, `if (!profiling)`, `if (mode == SM)`, each
  // operand of `a && b`): its first successor is where the condition holds, unless negated. The
  // variable is a local, a parameter (as the caller's variable it was given, conditionAliases),
  // or a global, which calls the analysis does not follow may change (forgetGlobalConditions).
  struct BooleanBranch {
    Condition condition;
    bool negated = false;
  };

  std::optional<BooleanBranch> booleanBranch(const clang::CFGBlock& block, const FlowState& state,
                                             const Frame& frame) const;
  std::optional<BooleanBranch> conditionOf(const clang::Expr* condition, const FlowState& state,
                                           const Frame& frame) const;
  const clang::VarDecl* conditionVariable(const clang::Expr* expr) const;
  // A flag field (entry_points.h) of an object the analysis names (`p->primed`,
  // `this->primed`), as a condition's variable and object; nullopt for anything else.
  std::optional<Condition> fieldCondition(const clang::Expr* expr, const FlowState& state,
                                          const Frame& frame) const;
  // `flag = true` (or false) on a boolean field: the path knows the flag. Any other change of a
  // field (`value` null for `+=`, `++`) forgets what the path knew of it.
  void assignField(const clang::MemberExpr& field, const clang::Expr* value, FlowState& state,
                   const Frame& frame) const;
  // Where `block` tests one operand of `a && b && ...` whose every operand is such a branch: the
  // operands, each with the value that makes it true.
  std::optional<FlowState::Conditions> conjunctionOf(const clang::CFGBlock& block,
                                                     const clang::ParentMap& parents,
                                                     const FlowState& state,
                                                     const Frame& frame) const;

  // The path goes on knowing `condition` is `value`: work made knowing the opposite is not
  // pending on it, and a path that knew the opposite is no path.
  static void assume(const Condition& condition, bool value, FlowState& state);

  // The path knows the conditions of `conjunction` do not all hold.
  static void exclude(FlowState::Conditions conjunction, FlowState& state);

  // `variable` changed: what the path knew of it is gone.
  static void forgetCondition(const clang::ValueDecl* variable, FlowState& state);
  static void forgetConditionsIf(llvm::function_ref<bool(const clang::ValueDecl*)> changed,
                                 FlowState& state);

  // A call of code the analysis does not run (another translation unit, past the depth limit)
  // may assign any global: what the path knew of globals is gone. Not for libraries' functions
  // (declared in system headers, the CUDA and NCCL APIs), which cannot name the program's.
  void forgetGlobalConditions(const clang::FunctionDecl* callee, FlowState& state) const;
  bool isLibraryFunction(const clang::FunctionDecl* callee) const;

  // A call the analysis does not run may change the fields of the objects it is given (an
  // argument, or the object of a member call): what the path knew of them is gone.
  void forgetFieldsGiven(const clang::CallExpr& call, FlowState& state, const Frame& frame) const;

  static Condition enteredWhen(const LoopEntry& entry);

  // What leaves `loop` when its condition fails: what its iterations left, and, unless the loop
  // always runs, what flowed in before it, on the path where its first test failed (so that work
  // made in an earlier loop over the same bound is not pending there). Nullopt: no path yet.
  std::optional<FlowState> loopExit(const clang::CFGBlock& condition, const clang::ForStmt& loop,
                                    const LoopEntry& entry,
                                    const std::map<const clang::ForStmt*, FlowState>& entries,
                                    const std::map<const clang::ForStmt*, FlowState>& iterations,
                                    const Frame& quiet);

  // A record made now carries what the path knows.
  static void noteConditions(const AccessRecord& record, FlowState& state);

  // `state` on a branch only the loop's first iteration takes (first_iteration.h): what the loop
  // body does after the guard has not run yet, unless it was pending when the loop started (an
  // enclosing loop's earlier iteration).
  FlowState
  withoutLaterIterations(FlowState state, const FirstIterationBranch& branch,
                         const std::map<const clang::ForStmt*, FlowState>& loopEntries) const;

  // Whether every path through `definition` ends in a call that does not return (an error
  // helper that prints and exits, without [[noreturn]]).
  bool neverReturns(const clang::FunctionDecl& definition);

  void transferBlock(const clang::CFGBlock& block, FlowState& state, const Frame& frame);

  void transferStatement(const clang::Stmt* stmt, FlowState& state, const Frame& frame);

  // A local variable's storage is gone: what its value said about elements, and the work pending
  // on buffers only it named (a callee's local vector of device pointers, say), which nothing can
  // name any more.
  void endLifetime(const clang::VarDecl* var, FlowState& state, const Frame& frame);

  // --- Index variables (flow_index_variables.cpp; element_index.h) -------------------------------

  static bool isIndexVariable(const clang::VarDecl* var);

  void shiftIndexVariable(const clang::ValueDecl* variable, int64_t delta, FlowState& state);

  // A local integer variable that stays a loop counter's neighbour (loop_counter.h
  // neighbourIndex) while it lives: it is spelled as that neighbour, so the elements it names keep
  // their relation to the loop's after it dies (`a[top]` of one iteration is `a[dev-2]` in the
  // next, not any element).
  void bindNeighbourIndex(const clang::VarDecl& var, const clang::DeclStmt& declaration,
                          FlowState& state, const Frame& frame);

  // Whether `index` (indexKey's spelling) is a variable plus a constant.
  static bool parseableOffset(llvm::StringRef index);

  // Changes the local bindings whose index mentions `variable`; drops those `change` says are no
  // longer a variable plus a constant.
  static void rebindNeighbours(FlowState& state, const std::string& variable,
                               llvm::function_ref<bool(IntegerBinding&)> change);

  // The `for` loop whose initialization `stmt` is.
  static const clang::ForStmt* loopStartedBy(const clang::Stmt* stmt, const Frame& frame);

  // What `loop` subscripts with `variable` (plus a constant), by key.
  void collectContainers(const clang::Stmt* stmt, const clang::ValueDecl* variable,
                         const FlowState& state, const Frame& frame,
                         std::set<std::string>& containers) const;

  // Names what was touched just before a loop through its variable (element_index.h). The
  // events of an array become its one event (collapseIndices) once a variable names them.
  void rebaseIndexVariable(const clang::ValueDecl* variable, const clang::Expr* start,
                           const clang::ForStmt& loop, FlowState& state, const Frame& frame);

  void forgetIndexVariable(const clang::ValueDecl* variable, FlowState& state);

  // On a loop's way back: the work of loops that finished in this iteration is an earlier
  // iteration's in the next, where what it touched says nothing of its stream (element_index.h,
  // correlated indices).
  void forgetFinishedLoops(FlowState& state);

  // A change of an index variable, which a record's buffer and stream element follow together
  // (element_index.h, correlated indices): shifted by `delta`, or forgotten where there is none.
  struct IndexChange {
    std::string variable;
    std::optional<int64_t> delta;
  };

  // Renames storage everywhere the state names it; only keys and ranges containing `mention`
  // can change. Records that become one keep the streams both were ordered after, and the
  // details of the first.
  void rewriteKeys(FlowState& state, llvm::StringRef mention,
                   llvm::function_ref<std::string(const std::string&)> rename,
                   llvm::function_ref<ByteRange(const ByteRange&)> renameRange,
                   const IndexChange* change = nullptr);

  // --- Naming storage (flow_storage_names.cpp) ---------------------------------------------------

  std::optional<std::string> keyOf(const clang::Expr* expr, const FlowState& state,
                                   const Frame& frame) const;

  // The stream's key; storage the translation unit creates non-blocking is marked so.
  std::optional<std::string> streamKeyOf(const clang::Expr* expr, bool perThreadDefault,
                                         FlowState& state, const Frame& frame) const;

  // The stream's key with its indices (AccessRecord::streamElement); `stream`, its collapsed key,
  // where it has none.
  std::string streamElementOf(const CallEffect& effect, llvm::StringRef stream,
                              const FlowState& state, const Frame& frame) const;

  std::optional<std::string> handleKeyOf(const clang::Expr* expr, const FlowState& state,
                                         const Frame& frame) const;

  // The bytes a buffer argument touches: its offset from what its key names, the call's extent.
  ByteRange rangeOf(const BufferUse& use, const FlowState& state, const Frame& frame) const;

  // Whether a pending record and an access of `buffer`'s `range` may touch the same bytes.
  static bool sameBytes(const AccessRecord& record, const std::string& buffer,
                        const ByteRange& range);

  // The record's stream element as an access of `buffer` sees it (element_index.h, correlated
  // indices).
  static std::string recordElementFor(const AccessRecord& record, const std::string& buffer);

  // Whether two accesses of the same bytes conflict: one writes, and not both atomically.
  static bool conflicting(const AccessRecord& record, bool write, bool atomic);

  bool isBlocking(llvm::StringRef stream, const FlowState& state) const;

  // Whether the access `record` is ordered before new work on `stream`, on its `element`
  // (AccessRecord::streamElement; `stream` itself where no element is known). Work on its own
  // stream is, unless on an element of the array the analysis tells apart from the record's.
  bool orderedBefore(const AccessRecord& record, const std::set<std::string>& orderedAfter,
                     llvm::StringRef stream, llvm::StringRef element, const FlowState& state) const;

  // The same, with the record's stream element as an access of a known element resolves it
  // (element_index.h resolveCorrelated).
  bool orderedBefore(const AccessRecord& record, llvm::StringRef recordElement,
                     const std::set<std::string>& orderedAfter, llvm::StringRef stream,
                     llvm::StringRef element, const FlowState& state) const;

  // Host memory a local variable owns is pageable, which rule 7 tells from pinned memory: a
  // local array, or the buffer of a standard container with the standard allocator (a custom
  // allocator may pin it). cudaHostRegister later makes it pinned.
  void noteOwnedHostMemory(const clang::VarDecl& var, FlowState& state);

  void bindVariable(const clang::VarDecl* var, const clang::Expr* init, FlowState& state,
                    const Frame& frame);

  // Keeps the byte offset an alias was bound with (none: no entry).
  static void bindOffset(const clang::ValueDecl* var, const std::optional<Polynomial>& offset,
                         FlowState& state);

  // The storage an out-parameter (`&ptr`, `(void**)&this->buf`) names; the variable is re-bound.
  std::optional<std::string> outParameterKey(const clang::Expr* out, FlowState& state,
                                             const Frame& frame) const;

  // `Entry entry{buffer, n, event}`: the aggregate's pointer and handle fields bound.
  void initializeFields(const clang::VarDecl& var, const clang::Expr& init, FlowState& state,
                        const Frame& frame);

  // A member initializer of the constructor being run: a pointer or handle field bound.
  void initializeField(const clang::CXXCtorInitializer& initializer, FlowState& state,
                       const Frame& frame);

  // `field` holds what `value` names, when that is a whole storage (an offset into one stays the
  // field's own name: its bytes are not known).
  void bindField(const std::string& field, const clang::Expr* value, FlowState& state,
                 const Frame& frame) const;

  void dropRecordsOf(const std::string& buffer, FlowState& state) const;

  // --- Call and return (flow_calls.cpp) ----------------------------------------------------------

  void handleCall(const clang::CallExpr& call, FlowState& state, const Frame& frame);
  // The work of a function that takes a stream and whose body is elsewhere
  // (external_launchers.h), on the memory it is given that is not known to be the host's.
  void enqueueDeviceWork(CallEffect launch, const clang::CallExpr& call, FlowState& state,
                         const Frame& frame);

  bool inlineCall(const clang::CallExpr& call, const clang::FunctionDecl& callee, FlowState& state,
                  const Frame& frame);

  // A call through a `std::function` (callable_targets.h): each lambda the translation unit
  // stores in that type runs in place, and the paths join. Only lambdas made by a function being
  // analyzed run: the variables they capture are that function's, named as it names them (from
  // any other root they would be strangers). False when none can run.
  bool runCallableTargets(const clang::CXXOperatorCallExpr& call, FlowState& state,
                          const Frame& frame);

  // `Type name(arguments)`: the constructor's body runs in place on `name`.
  void runConstructor(const clang::VarDecl& var, const clang::Expr& init, FlowState& state,
                      const Frame& frame);

  // `Work work = make_work(...)`, where make_work returns its local `Work result`: what the call
  // did to `result` (an event recorded in it, a buffer stored in it) is `work`'s now.
  void adoptReturnedLocal(const clang::VarDecl& var, const clang::Expr& init, FlowState& state);

  // The object `expr` copies or moves (before C++17's elision, and `return local;`), or itself.
  static const clang::Expr* withoutCopy(const clang::Expr* expr);

  // The one local object every `return` of `function` returns by value, or null.
  const clang::VarDecl* returnedLocal(const clang::FunctionDecl& function);

  static const clang::VarDecl* findReturnedLocal(const clang::FunctionDecl& function);

  // A local object's destructor, where `scopeEnd` ends its scope.
  void runDestructor(const clang::VarDecl& var, const clang::Stmt& scopeEnd, FlowState& state,
                     const Frame& frame);

  // Runs `callee`'s body in place with its parameters bound to `arguments` and, for a method,
  // `this` naming `object` (unnamed: as "this"). False when it cannot be analyzed.
  bool inlineFunction(const clang::Stmt& call, const clang::FunctionDecl& callee,
                      const std::optional<std::string>& object,
                      const std::vector<const clang::Expr*>& arguments, FlowState& state,
                      const Frame& frame, bool callableTarget = false);

  // Whether running a stream-inert function (function_effects.h) from this state could change
  // what the caller sees: a host access it reports, or a loop of it renaming the caller's keys.
  bool inertCallObservable(
      const clang::FunctionDecl& definition,
      const std::vector<std::pair<const clang::ParmVarDecl*, std::optional<std::string>>>& bindings,
      const std::string& thisKey, const FlowState& state, const Frame& frame);

  // --- API effects (flow_api_effects.cpp) --------------------------------------------------------

  void applyEffect(const CallEffect& effect, const clang::CallExpr& call, FlowState& state,
                   const Frame& frame);
  void applyHostWait(const CallEffect& effect, const clang::CallExpr& call, FlowState& state,
                     const Frame& frame);
  // What a host wait completed, for the advice on waits an event edge could replace.
  void noteHostWait(const clang::CallExpr& call, const PendingAccesses& before,
                    const FlowState& after);
  // Whether a copy's `use` is of host memory: the host side its kind names (both sides when the
  // kind is not given or is cudaMemcpyDefault).
  static bool onHostSide(const CallEffect& effect, const BufferUse& use);

  // `while (cudaStreamQuery(s) != cudaSuccess) {}`: the loop only exits once the work is done.
  bool isPolledToCompletion(const clang::CallExpr& call, const Frame& frame) const;

  // Whether `stream` is `streams[i]`, subscripted by the counter of a `for` loop around `call`:
  // `for (i = 0; i < n; ++i) cudaStreamSynchronize(streams[i])` is how programs wait for every
  // stream of an array, and is read so.
  bool sweptByItsLoop(const clang::Expr* stream, const clang::CallExpr& call,
                      const Frame& frame) const;

  // Work on any element of the array whose element `stream` ("streams[*]") is completes.
  void completeElements(llvm::StringRef stream, FlowState& state) const;

  // What is ordered before work on `element` of `stream` (orderedBefore) has completed.
  void completeStream(llvm::StringRef stream, llvm::StringRef element, FlowState& state) const;

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
                                          const Frame& frame) const;

  // A kernel's access made only where its flag argument is true (BufferUse::onlyIf): none where
  // the path knows the flag is false; else, for a local boolean the path can test, the condition
  // its record is made under, so that a branch on the flag that orders the work only when it is
  // true leaves nothing pending on the other.
  struct FlagGuard {
    bool never = false;
    std::optional<Condition> when;
  };

  FlagGuard flagGuard(const BufferUse& use, const FlowState& state) const;

  // The stream work runs on, as its key and its element (AccessRecord::streamElement): the
  // call's stream argument, or the stream last bound to its library handle (library_handles.h);
  // nullopt where the analysis cannot name it.
  std::optional<std::pair<std::string, std::string>>
  workStream(const CallEffect& effect, FlowState& state, const Frame& frame) const;

  void enqueue(const CallEffect& effect, const clang::CallExpr& call, FlowState& state,
               const Frame& frame);

  // cudaMallocAsync on `stream`: the pointer names new memory, pending as if `stream` wrote all
  // of it, so work on another stream not ordered after the allocation is reported.
  void allocateInStreamOrder(const CallEffect& effect, const clang::CallExpr& call,
                             const std::string& stream, const std::string& element,
                             FlowState& state, const Frame& frame);

  // The outermost ncclGroupStart (docs/semantics.md rule 13): NCCL posts the group's calls at its
  // end, each ordered after the earlier work of every stream the group uses on its communicator.
  // The calls that follow in the same block up to the matching ncclGroupEnd (in loops and
  // branches there too) are joined here, so the group's first call is ordered after a stream only
  // a later call brings in. Calls made inside a helper the group calls join as they are met
  // (joinGroup).
  void joinGroupAhead(const clang::CallExpr& start, FlowState& state, const Frame& frame);

  // Adds the communicator and stream of each NCCL call in `stmt`, in the order they run, while
  // the group `depth` counts is open; false once it has ended.
  bool collectGroupCalls(const clang::Stmt* stmt, int& depth,
                         std::map<std::string, std::set<std::string>>& streams, FlowState& state,
                         const Frame& frame) const;

  // An NCCL call on `stream` inside a group (docs/semantics.md rule 13): the streams the group
  // uses on the call's communicator join each other's earlier work (those joinGroupAhead found
  // already have).
  void joinGroup(const CallEffect& effect, const std::string& stream, FlowState& state,
                 const Frame& frame) const;

  // Work ordered before any of `streams` becomes ordered before all of them.
  void joinStreams(const std::set<std::string>& streams, FlowState& state) const;

  // Rule 7 (synchronous_api.h) with the memory of the call's source and destination.
  static bool waitsOnReturn(const CallEffect& effect, const std::vector<ResolvedUse>& buffers,
                            const FlowState& state);

  // `access` by work on `element` of `stream` against what is pending.
  void checkCrossStream(const ResolvedUse& access, const std::string& stream,
                        const std::string& element, const CallEffect& effect,
                        const clang::CallExpr& call, const FlowState& state, const Frame& frame);

  // --- The stream-argument contract (flow_stream_contract.cpp) -----------------------------------

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
    // The memory the method's object hands out (FieldMemory::handedOutFields): the caller may
    // have filled it before the call. At return it is not held: the object's later methods, or a
    // device-side hand-off (counters an atomic GEMM on the caller's stream polls), may order it.
    std::vector<std::string> handedOutMemory;
    AccessRecord callersWork; // pending on entry
  };

  // The contract of a function with exactly one stream parameter. With two, which stream the
  // caller's work on a buffer is on is not known, so neither carries one.
  std::optional<StreamContract> streamContract(const clang::FunctionDecl& function,
                                               llvm::StringRef thisKey) const;

  // The caller's earlier work on the stream parameter, writing what it handed in.
  void expectCallersWork(const StreamContract& contract, const clang::FunctionDecl& function,
                         FlowState& entry);

  // Memory the caller handed in: a parameter's, or reached from one.
  // Whether `buffer` is among `contract`'s callersMemory, or, `onEntry`, its handedOutMemory.
  static bool reachesCaller(const StreamContract& contract, llvm::StringRef buffer,
                            bool onEntry = false);

  // A stream the function created, so never the one the caller passed; with a defaulted stream
  // parameter, only a non-blocking one, which the legacy default stream does not order.
  bool isOwnStream(const StreamContract& contract, const std::string& stream,
                   const FlowState& state) const;

  // Entry: the caller's memory touched on the function's own stream before that stream waited
  // for the parameter. Memory the function allocated again (state.memory knows it) is its own.
  void checkCallersWork(const ResolvedUse& access, const std::string& stream,
                        const std::string& element, const CallEffect& effect,
                        const clang::CallExpr& call, const FlowState& state, const Frame& frame);

  // Return: the function's own streams' work on the caller's memory that the stream parameter
  // is not ordered after.
  void checkReturn(const StreamContract& contract, const FlowState& exit,
                   const clang::FunctionDecl& function);

  // Return of an entry point that takes no stream and hands none out (a backend's buffer
  // callback, `memset_tensor`): work still pending on the caller's memory on the per-thread
  // default stream, that no event kept past the call orders. The function's signature promises
  // its callers nothing to wait on, and their own streams are not ordered after that one.
  void checkReturnWithoutStream(const clang::FunctionDecl& function, const FlowState& exit,
                                const Frame& frame);

  // Return of an entry point: work that went into an event the translation unit waits for
  // nowhere (event_uses.h), still pending and ordered before no other stream, on memory that
  // outlives the call. The record shows work meant to be waited for; nothing does.
  void checkUnwaitedEvents(const clang::FunctionDecl& function, const FlowState& exit,
                           const Frame& frame);

  // --- The next call of an entry point (flow_next_call.cpp) -------------------------------------

  // `function` (an entry point, entry_points.h) called again, when it shows it is written for
  // that: it waits for an event that it records itself only later, so the wait is for its
  // previous call's work. The next call starts from `entry`, its own first state, with the work
  // the last call left pending in `exit` on storage that outlives a call, and the events,
  // streams, field bindings and field flags that call left there. Findings name that work as the
  // previous call's.
  void runNextCall(const clang::FunctionDecl& function, FlowState entry, const FlowState& exit,
                   const Frame& frame);

  void waitOnEvent(const CallEffect& effect, const clang::CallExpr& call, FlowState& state,
                   const Frame& frame);

  // `event` now stands for the work `stream` has so far (effect.stream, its element).
  void recordEvent(const std::string& event, const std::optional<std::string>& stream,
                   const CallEffect& effect, const clang::CallExpr& call, FlowState& state,
                   const Frame& frame) const;

  void freeInStreamOrder(const CallEffect& effect, const clang::CallExpr& call, FlowState& state,
                         const Frame& frame);

  // --- The host's own accesses (flow_host_accesses.cpp) ------------------------------------------

  void hostElementAccess(const clang::Expr* element, const clang::Expr* pointer, FlowState& state,
                         const Frame& frame);

  void hostAccess(const std::string& buffer, const ByteRange& range, bool writes,
                  const clang::Stmt* access, const FlowState& state, const Frame& frame);

  void freeOnHost(const std::string& buffer, llvm::StringRef operation, const clang::Stmt* call,
                  FlowState& state, const Frame& frame);

  static bool hostWaitMayHang(const AccessRecord& record, const FlowState& state);
  // Both accesses inside one call of this call's callee: the callee's own analysis reports the
  // pair, once. Not the previous call's work, which only this caller's next call meets.
  static bool reportedByTheCallee(const AccessRecord& record, const Frame& frame);

  void notify(const UnorderedAccess& pair) const;

  clang::ASTContext& context_;
  const AnalysisOptions& options_;
  RemarkSink& remarks_;
  StorageKeys keys_;
  KernelSummaries kernels_;
  CallableTargets callables_;
  FunctionEffects effects_;
  StreamStorage streamStorage_;
  FieldMemory fieldMemory_;
  RegistrationHandles registrations_;
  EventUses eventUses_;
  // This function's records of events the translation unit waits for nowhere, by event key.
  std::map<std::string, const clang::CallExpr*> unwaitedRecords_;
  EntryPoints entryPoints_;
  std::map<const clang::FunctionDecl*, FunctionCfg> cfgs_;
  std::map<const clang::FunctionDecl*, bool> neverReturns_;
  std::map<const clang::FunctionDecl*, const clang::VarDecl*> returnedLocals_;
  // Per call: what a launcher whose body is elsewhere enqueues (nullopt: no launcher).
  std::map<const clang::CallExpr*, std::optional<CallEffect>> launches_;
  std::vector<std::unique_ptr<Check>> checks_;
  std::map<AccessRecord, AccessDetail> details_;
  std::optional<StreamContract> contract_; // of the root function being analysed
  const clang::FunctionDecl* root_ = nullptr;
  HostFacts host_; // for the advice on host waits (sync_advice.h)
  // Events the root function waits for where nothing in this call recorded them yet, and where
  // it records them: by event, the first such place in its text (flow_next_call.cpp).
  // A place is where each call from the root down to it is in its function's text, outermost
  // first: places compare in the order the text unrolled at its calls shows them.
  using TextPlace = std::vector<clang::SourceLocation>;
  std::map<std::string, TextPlace> awaitedBeforeRecorded_;
  std::map<std::string, TextPlace> firstRecorded_;
  TextPlace textPlace(const clang::Stmt& call, const Frame& frame) const;
  bool comesBefore(const TextPlace& first, const TextPlace& second) const;
  // Keeps the first of `place` and what `places` holds for `event`.
  void noteFirst(std::map<std::string, TextPlace>& places, const std::string& event,
                 TextPlace place) const;
};

} // namespace streamrace::analyzer
