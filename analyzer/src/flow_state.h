// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The flow analysis's abstract state at one program point, and how two paths join.
//
// The state holds the stream-ordered accesses that may still be pending (one record per access
// site, buffer, stream and kind), for each the set of other streams already ordered after it;
// events as the set of records their last record captured; aliases of locals and parameters; stream
// flags and what memory a buffer is. Joins keep a record pending if it is pending on any path and
// ordered only if ordered on every path, which is what "no ordering on some path" needs.
#pragma once

#include "byte_range.h"
#include "call_model.h"
#include "copy_on_write.h"
#include "frame.h"

#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace clang {
class Expr;
class FunctionDecl;
class Stmt;
class ValueDecl;
} // namespace clang

namespace streamrace::analyzer {

// Stream keys of the default streams (storage_keys.h names every other stream).
inline constexpr llvm::StringLiteral kLegacyStream = "<legacy>";
inline constexpr llvm::StringLiteral kPerThreadStream = "<per-thread>";
// In a record's ordered-after set: every blocking stream (a legacy-stream op came after it).
inline constexpr llvm::StringLiteral kEveryBlockingStream = "<every-blocking-stream>";
// In a record's ordered-after set, this followed by a stream array's key with every index "[*]"
// (anyElement): each of the array's streams, constant elements too (a wait in a loop over the
// array by its counter).
inline constexpr llvm::StringLiteral kEveryElementOf = "<every-element-of>";
// The buffer of the record that stands for the caller's work on a function's stream parameter
// (the stream-argument contract, flow_engine.cpp): it meets every buffer the caller handed in.
inline constexpr llvm::StringLiteral kCallersMemory = "<caller's memory>";

struct AccessRecord {
  std::string buffer;
  std::string stream; // as events, flags and orderings name it: indices collapsed
  bool write = false;
  const clang::Stmt* site = nullptr; // the statement of the analyzed function that caused it
  ByteRange range;                   // which bytes of `buffer` (byte_range.h)
  bool atomic = false;               // atomic read-modify-writes, which do not race each other
  // The stream with its indices (`streams[i]`), so later work on an element the analysis can
  // tell apart (`streams[1 - i]`) is on another stream (element_index.h mayBeSameHandle).
  std::string streamElement;
  // Made by the previous call of the entry point being analysed (entry_points.h), so apart from
  // what the same statement makes in this call.
  bool previousCall = false;
  auto operator<=>(const AccessRecord&) const = default;
};

// What messages say about a record's access; kept beside the state, not in it.
struct AccessDetail {
  std::string operation;
  bool read = false;
  bool write = false;
  bool allocates = false;            // cudaMallocAsync: the memory exists once it has run
  const clang::Expr* call = nullptr; // where the access is, possibly inside an inlined callee
  std::vector<CallStep> chain;       // the calls from the root down to it, innermost first
};

// An access a captured graph makes each time it is launched (graph_capture.h).
struct GraphAccess {
  std::string buffer;
  ByteRange range;
  bool read = false;
  bool write = false;
  bool atomic = false;
  auto operator<=>(const GraphAccess&) const = default;
};

enum class RecordedStatus { Unrecorded, OnSomePaths, Recorded };

struct EventState {
  RecordedStatus status = RecordedStatus::Recorded;
  std::set<AccessRecord> snapshot;
  clang::SourceLocation created;
  bool operator==(const EventState&) const = default;
};

using PendingAccesses = std::map<AccessRecord, std::set<std::string>>;

struct IntegerBinding {
  std::string index;
  std::optional<Polynomial> value;
  bool operator==(const IntegerBinding&) const = default;
};

// What a path can know of a variable: whether it is above a threshold, or equal to it. A
// boolean is above 0 when true; the body of `for (int i = 0; i < n; ++i)` runs only where n is
// above 0 (loop_counter.h); `if (mode == SM)` tests equality with SM's value. The variable may be
// a field of the object `object` names (`p->gathered_once`, a flag a function sets for its next
// call).
struct Condition {
  const clang::ValueDecl* variable = nullptr;
  std::int64_t threshold = 0;
  bool equals = false;
  std::string object{}; // the object's storage key, for a field
  auto operator<=>(const Condition&) const = default;
};

// Each part is shared with the state it was copied from until a statement changes it.
struct FlowState {
  CopyOnWrite<PendingAccesses> pending; // record -> streams ordered after it
  CopyOnWrite<std::map<std::string, EventState>> events;
  CopyOnWrite<std::map<const clang::ValueDecl*, std::string>> aliases;
  // For an alias bound to `p + n`: the byte offset from what it names (absent: none; nullopt:
  // unknown).
  CopyOnWrite<std::map<const clang::ValueDecl*, std::optional<Polynomial>>> aliasOffsets;
  // Fields holding a pointer or handle bound to what the code that set them named (a
  // constructor's `stream_(stream)`, `buffer_ = buffer;`): the field's key -> that key.
  CopyOnWrite<std::map<std::string, std::string>> fieldAliases;
  CopyOnWrite<std::set<std::string>> nonBlockingStreams;
  // Streams this path created (on every path that reaches here): not a stream the caller passed.
  CopyOnWrite<std::set<std::string>> createdStreams;
  // Member streams that only creations fill (stream_storage.h), named on any path: as little a
  // stream the caller passed as one the path created.
  CopyOnWrite<std::set<std::string>> programStreams;
  // Stream capture (graph_capture.h): each capturing stream -> the stream whose BeginCapture
  // started its capture; events recorded in a capture -> that stream; the work a capture
  // recorded, under its capture's key, then its graph's and its executables' keys.
  CopyOnWrite<std::map<std::string, std::string>> capturingStreams;
  CopyOnWrite<std::map<std::string, std::string>> capturedEvents;
  CopyOnWrite<std::map<std::string, std::set<GraphAccess>>> graphWork;
  // Streams running a kernel that waits for a handshake flag (call_model.h BufferUse) the host
  // may set later: a host wait for them before that could never return.
  CopyOnWrite<std::set<std::string>> spinningStreams;
  CopyOnWrite<std::map<std::string, MemoryKind>> memory;
  // Integer parameters of a call analyzed in place, bound to the caller's argument, and local
  // neighbours of a loop counter (loop_counter.h neighbourIndex), bound to that neighbour: as an
  // index (indexKey's spelling, in the caller's or the counter's variables) and as a value (byte
  // ranges).
  CopyOnWrite<std::map<const clang::ValueDecl*, IntegerBinding>> integers;
  // Correlated conditions: what this path knows of variables it branched on, and the pending
  // records made while the path knew some (a record made under `overlap` is not pending on a path
  // where `overlap` is false; one made in a loop over n devices, not where n is 0).
  using Conditions = std::map<Condition, bool>;
  CopyOnWrite<Conditions> conditions;
  CopyOnWrite<std::map<AccessRecord, Conditions>> recordConditions;
  // Sets of conditions the path knows do not all hold (in the else of `if (mode == SM && access)`,
  // not both do), and those the path knew when it made each pending record: a path that comes to
  // know all of one such set is no path, and a record made knowing it is not pending there.
  using Exclusions = std::set<Conditions>;
  CopyOnWrite<Exclusions> exclusions;
  CopyOnWrite<std::map<AccessRecord, Exclusions>> recordExclusions;
  // A parameter of a call analysed in place bound to the caller's variable it was given
  // (`copy(..., access)`): a branch on the parameter is a branch on that variable, so two calls
  // given the same variable take the same way.
  CopyOnWrite<std::map<const clang::ValueDecl*, const clang::ValueDecl*>> conditionAliases;
  // Inside ncclGroupStart/End (docs/semantics.md rule 13): how deep, and per communicator the
  // streams the group's calls used so far.
  int groupDepth = 0;
  CopyOnWrite<std::map<std::string, std::set<std::string>>> groupStreams;
  // No path reaches here: a call on the way never returns (exit, abort, an error helper that
  // always ends in one). The join's neutral element.
  bool unreachable = false;
  bool operator==(const FlowState&) const = default;
};

FlowState join(const FlowState& a, const FlowState& b);

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

} // namespace streamrace::analyzer
