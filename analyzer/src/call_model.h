// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What one call in host code does to streams, events and buffers: the built-in CUDA/NCCL API
// model, the user's wrapper models and the kernel summaries, folded into one description.
#pragma once

#include "byte_range.h"
#include "streamrace/analyzer/kernel_summary.h"
#include "streamrace/analyzer/user_model.h"
#include "streamrace/api_model/api_model.h"

#include <optional>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class CallExpr;
class Expr;
} // namespace clang

namespace streamrace::analyzer {

enum class CallEffectKind {
  Enqueue,          // stream-ordered work (copy, set, kernel, collective, host function, graph)
  EventRecord,      // event, stream
  StreamWait,       // stream, event
  StreamSync,       // stream
  EventSync,        // event
  DeviceSync,       // everything the device has
  StreamQuery,      // stream: a host wait only where the caller polls it to success
  EventQuery,       // event: likewise
  FreeAsync,        // buffers[0] freed in stream order
  HostFree,         // buffers[0] freed by the host (free, delete)
  Alloc,            // allocation: outPointer
  HostRegister,     // buffers[0] becomes pinned host memory
  CaptureBegin,     // stream: later work on it is recorded into a graph, not run
  CaptureEnd,       // stream: capture ends; outPointer: the graph it made
  GraphInstantiate, // outPointer: an executable of graph
  StreamCreate,     // outPointer, flags
  EventCreate,      // outPointer
  GroupStart,       // ncclGroupStart: NCCL calls until the outermost end form one group
  GroupEnd,         // ncclGroupEnd
  BindStream,       // handle: a library handle's work runs on stream from now on (null: legacy)
  HoldBuffers,      // outPointer: a library descriptor holds buffers, each under its `field`
  NoWork,           // a call the model knows enqueues nothing (CUB's temporary-storage size query)
};

enum class MemoryKind { Unknown, Device, Pinned, Pageable, Managed };

// How many bytes a buffer argument's access spans, as the call says it; nothing known: to the end
// of the allocation (a kernel's pointer argument).
struct Extent {
  const clang::Expr* bytes = nullptr;    // a byte count (copies, sets), in units of unitBytes
  std::int64_t unitBytes = 1;            // a kernel's count of elements (kernel_summary.h)
  const clang::Expr* elements = nullptr; // an element count of `datatype` (NCCL)
  const clang::Expr* datatype = nullptr;
  const clang::Expr* width = nullptr; // rows (2D copies and sets): (height - 1) * pitch + width
  const clang::Expr* height = nullptr;
  const clang::Expr* pitch = nullptr;
  // A kernel's rows of a 2-D grid (ParamExtent::Kind::Rows): from row firstRow - rowsBefore up
  // to endRow + rowsAfter, rowWidth elements of unitBytes each.
  const clang::Expr* firstRow = nullptr;
  const clang::Expr* endRow = nullptr;
  const clang::Expr* rowWidth = nullptr;
  std::int64_t rowsBefore = 0;
  std::int64_t rowsAfter = 0;
};

struct BufferUse {
  const clang::Expr* expr = nullptr;
  bool read = false;
  bool write = false;
  Extent extent;
  bool atomic = false; // only atomic read-modify-writes (kernel summaries)
  // A kernel's `volatile` pointer parameter: a flag it polls or raises to hand over to the host
  // or another stream (p2pBandwidthLatencyTest's delay kernel), synchronization rather than data.
  bool handshake = false;
  // The memory a pointer field of the struct `expr` points to (".name"): a host function's
  // accesses through its user data (host_callback.h).
  std::string field{};
  // The argument a kernel tests before touching this memory (KernelSummary::paramGuard): made
  // only where it is true.
  const clang::Expr* onlyIf = nullptr;
  // A member of a library descriptor (a sparse matrix's offsets): accessed only where the
  // descriptor's creation bound it; a descriptor holds no memory under a member never bound.
  bool boundMemberOnly = false;
  // A function whose body is elsewhere: the part of the buffer its other arguments choose.
  std::optional<ChosenPart> part{};
};

struct CallEffect {
  CallEffectKind kind = CallEffectKind::Enqueue;
  std::string operation; // how messages name the call: "cudaMemcpyAsync", "kernel 'scale'"
  std::vector<BufferUse> buffers;
  const clang::Expr* stream = nullptr; // null: the default stream
  // A library handle (library_api.h): the work runs on the stream last bound to it instead.
  const clang::Expr* handle = nullptr;
  // The host waits for the work's stream before the call returns (a thrust algorithm on a
  // synchronous policy, a BLAS reduction into host memory).
  bool waitsForItsStream = false;
  bool perThreadDefaultStream = false; // a _ptsz/_ptds call: stream 0 is per-thread
  const clang::Expr* event = nullptr;
  // Events a function of the program is given with its stream (external_launchers.h): its stream
  // waits on each before the work, and each is recorded on it after.
  std::vector<const clang::Expr*> events;
  const clang::Expr* graph = nullptr;        // a graph, or the executable graph a launch runs
  const clang::Expr* communicator = nullptr; // an NCCL call's
  const clang::Expr* outPointer = nullptr;
  const clang::Expr* flags = nullptr;
  MemoryKind allocatedMemory = MemoryKind::Unknown;
  bool isCopy = false;
  // A copy or set without a stream argument (cudaMemcpy, cudaMemset): whether the host waits for
  // it depends on the memory on each side (synchronous_api.h).
  bool synchronousApi = false;
  // A copy's cudaMemcpyKind, when the function implies it or the argument is a constant.
  std::optional<api_model::CopyKind> copyKind;
};

// The effect of a call, or nullopt when no model covers it.
std::optional<CallEffect> classifyCall(const clang::CallExpr& call, const UserModel* userModel,
                                       const KernelSummaries& kernels, clang::ASTContext& context);

// The argument at a model table's position, or null where the call has none there.
const clang::Expr* argumentAt(const clang::CallExpr& call, std::optional<std::size_t> index);

// The integer value of an argument when it is a compile-time constant.
std::optional<int64_t> constantValue(const clang::Expr* expr, const clang::ASTContext& context);

} // namespace streamrace::analyzer
