// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The checks, Clang Static Analyzer style: the flow engine (flow_engine.h) walks host code and
// decides what is ordered; each check subscribes to the events it reports on and turns them into
// findings with notes and fix-its. A check never changes the flow state.
#pragma once

#include "flow_state.h"
#include "frame.h"

#include <memory>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class CallExpr;
class FunctionDecl;
class Stmt;
} // namespace clang

namespace streamrace::analyzer {

class FindingSink;

// What comes after a pending access.
enum class LaterAccess {
  StreamWork, // work enqueued on a stream (copy, set, kernel, collective)
  HostAccess, // the host reads or writes the buffer (pinned memory)
  StreamFree, // cudaFreeAsync on a stream
  HostFree,   // free, delete, cudaFreeHost... of pinned memory
};

// A pending access and a later access of the same bytes, one of them writing, with nothing
// ordering the two on some path.
struct UnorderedAccess {
  LaterAccess kind;
  const AccessRecord& earlier;
  const AccessDetail& earlierDetail;
  const std::string& buffer; // as the later access names it
  const std::string& stream; // the later access's stream (StreamWork, StreamFree)
  bool read = false;         // what the later access does
  bool write = false;
  const std::string& operation; // how messages name the later access's call or host operation
  const clang::Stmt& at;        // the later access in its own function
  const Frame& frame;
  // The earlier access's stream runs a kernel waiting for a flag the host may set later: a fix-it
  // that makes the host wait for that stream could hang the program.
  bool hostWaitMayHang = false;
};

// cudaStreamWaitEvent on an event recorded on no path before the wait.
struct UnrecordedWait {
  const std::string& stream;
  const std::string& event;
  const EventState& waited;
  const std::string& operation;
  const clang::CallExpr& call;
  const Frame& frame;
};

// Work on memory that outlives the call, still pending when the function returns on a stream
// the caller's later work is not ordered after: a stream the function created, that the stream
// parameter does not wait for (the stream-argument contract); in a function that takes no
// stream, the per-thread default stream (checkReturnWithoutStream); or a stream whose work went
// into an event the translation unit waits for nowhere (checkUnwaitedEvents).
struct PendingAtReturn {
  const AccessRecord& record;
  const AccessDetail& detail;
  std::optional<std::string> parameterStream; // the stream parameter's key, when there is one
  const clang::FunctionDecl& function;
  const clang::CallExpr* unwaitedRecord; // the event's record, when the work went into one
  std::string event;                     // that event's key
};

class Check {
public:
  Check(clang::ASTContext& context, FindingSink& sink) : context_(context), sink_(sink) {}
  virtual ~Check() = default;

  virtual void onUnorderedAccess(const UnorderedAccess&) {}
  virtual void onUnrecordedWait(const UnrecordedWait&) {}
  virtual void onPendingAtReturn(const PendingAtReturn&) {}

protected:
  clang::ASTContext& context_;
  FindingSink& sink_;
};

// Every check of the module, reporting into `sink`.
std::vector<std::unique_ptr<Check>> makeChecks(clang::ASTContext& context, FindingSink& sink);

} // namespace streamrace::analyzer
