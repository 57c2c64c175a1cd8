// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The event vocabulary: every front end (CUPTI callbacks, NCCL interposition, NVTX injection,
// trace replay, unit tests) describes what a program did in exactly these terms, and the engine
// knows nothing else. No CUDA types appear here: handles are the program's own pointer values
// widened to integers, so a trace written on a GPU machine replays anywhere.
#pragma once

#include "streamrace/api_model/collectives.h"
#include "streamrace/api_model/copy_kind.h"

#include <cstdint>
#include <variant>
#include <vector>

namespace streamrace {

// Every payload lists its fields once, in order, so that trace files and tests can walk them
// without a second description that could drift.
#define STREAMRACE_FIELDS(...)                                                                     \
  template <typename Visitor> void fields(Visitor&& visit) {                                       \
    visit(__VA_ARGS__);                                                                            \
  }                                                                                                \
  template <typename Visitor> void fields(Visitor&& visit) const {                                 \
    visit(__VA_ARGS__);                                                                            \
  }

using RankId = std::uint32_t;       // a process (or a thread driving a device) in a job
using ThreadId = std::uint64_t;     // host thread id, unique within its rank
using DeviceId = std::int32_t;      // CUDA ordinal within the rank's process
using StreamHandle = std::uint64_t; // cudaStream_t value, unique within its rank
using EventHandle = std::uint64_t;  // cudaEvent_t value, unique within its rank
using CommHandle = std::uint64_t;   // ncclComm_t value, unique within its rank
using CommKey = std::uint64_t;      // names one communicator on all of its ranks
using GraphHandle = std::uint64_t;  // cudaGraph_t / cudaGraphExec_t value
using Address = std::uint64_t;      // a byte address in the rank's (unified) address space
using CallSiteId = std::uint32_t;   // index into the front end's call-site table; 0 = unknown
using NameId = std::uint32_t;       // index into the front end's string table; 0 = no name

// Stream handles with fixed meanings, as in cuda_runtime_api.h. Handle 0 means the legacy
// default stream unless the call came through a per-thread-default-stream entry point, in
// which case the front end passes kPerThreadStream.
inline constexpr StreamHandle kNullStream = 0;
inline constexpr StreamHandle kLegacyStream = 1;
inline constexpr StreamHandle kPerThreadStream = 2;

inline constexpr DeviceId kCurrentDevice = -1;

// A graph built node by node reaches the engine as a capture (rule 11) on streams and events a
// front end makes up, with handles in this range, which no pointer reaches. The capture's first
// stream says the graph was built so: its other events are the program's own (event record and
// wait nodes), where a captured graph's events are all its own.
inline constexpr std::uint64_t kHandBuiltGraphHandleBase = 1ull << 61;
constexpr bool is_hand_built_graph_handle(std::uint64_t handle) {
  return handle >> 61 == 1;
}

enum class StreamKind : std::uint8_t { Blocking, NonBlocking, LegacyDefault, PerThreadDefault };

enum class MemoryKind : std::uint8_t {
  Pageable,      // ordinary host memory the runtime does not know
  Device,        // cudaMalloc
  PinnedHost,    // cudaMallocHost / cudaHostAlloc / cudaHostRegister
  Managed,       // cudaMallocManaged
  StreamOrdered, // cudaMallocAsync, from a memory pool
  CachingBlock,  // a block a caching allocator (PyTorch's) handed out of device memory
};

enum class AccessMode : std::uint8_t { Read, Write, ReadWrite };

// Whether an access's byte range is known (copies, sets, collectives, annotated kernels) or a
// guess (a kernel pointer argument with no summary: from the pointer to its allocation's end).
enum class Extent : std::uint8_t { Exact, Approximate };

struct Access {
  Address begin = 0;
  std::uint64_t size = 0;
  AccessMode mode = AccessMode::Read;
  Extent extent = Extent::Exact;
  STREAMRACE_FIELDS(begin, size, mode, extent)
};

// What cudaMemcpyKind says, with its values (copy_kind.h); trace files store them.
using api_model::CopyKind;

// Named once for the API tables, the reports and the emulator alike (collectives.inc); its
// values are the bytes trace files store.
using CollectiveKind = api_model::CollectiveKind;

enum class FreeApi : std::uint8_t {
  Free,           // cudaFree: waits for the device unless the memory came from a pool
  FreeHost,       // cudaFreeHost: waits for the device
  FreeAsync,      // cudaFreeAsync: ordered on a stream
  HostUnregister, // cudaHostUnregister: the memory stays, it stops being pinned
};

// ---- Payloads. Each names the stream it is enqueued on where it has one. ----

struct StreamCreate {
  StreamHandle stream = 0;
  DeviceId device = kCurrentDevice;
  StreamKind kind = StreamKind::Blocking;
  int priority = 0;
  STREAMRACE_FIELDS(stream, device, kind, priority)
};
struct StreamDestroy {
  StreamHandle stream = 0;
  STREAMRACE_FIELDS(stream)
};
struct EventCreate {
  EventHandle event = 0;
  STREAMRACE_FIELDS(event)
};
struct EventDestroy {
  EventHandle event = 0;
  STREAMRACE_FIELDS(event)
};
struct EventRecord {
  EventHandle event = 0;
  StreamHandle stream = 0;
  STREAMRACE_FIELDS(event, stream)
};
struct StreamWaitEvent {
  StreamHandle stream = 0;
  EventHandle event = 0;
  STREAMRACE_FIELDS(stream, event)
};

// Host waits. A query that returned "not ready" is passed with completed = false: it orders
// nothing, but keeps the call in traces. `waited_ns` is how long the call held the host, from
// its entry to its return (0 where unknown): what a synchronization costs (sync_advice.h).
struct StreamSynchronize {
  StreamHandle stream = 0;
  bool completed = true;
  std::uint64_t waited_ns = 0;
  STREAMRACE_FIELDS(stream, completed, waited_ns)
};
struct EventSynchronize {
  EventHandle event = 0;
  bool completed = true;
  std::uint64_t waited_ns = 0;
  STREAMRACE_FIELDS(event, completed, waited_ns)
};
struct DeviceSynchronize {
  DeviceId device = kCurrentDevice;
  std::uint64_t waited_ns = 0;
  STREAMRACE_FIELDS(device, waited_ns)
};
struct SetDevice {
  DeviceId device = 0;
  STREAMRACE_FIELDS(device)
};

struct Alloc {
  Address base = 0;
  std::uint64_t size = 0;
  MemoryKind kind = MemoryKind::Device;
  DeviceId device = kCurrentDevice;
  StreamHandle stream = 0; // only for MemoryKind::StreamOrdered
  STREAMRACE_FIELDS(base, size, kind, device, stream)
};
struct Free {
  Address base = 0;
  FreeApi api = FreeApi::Free;
  StreamHandle stream = 0; // only for FreeApi::FreeAsync
  STREAMRACE_FIELDS(base, api, stream)
};

// A copy of `depth` slices of `height` rows of `width` bytes; rows start `pitch` bytes apart,
// slices `slice_pitch` bytes apart (1D: height 1; 1D and 2D: depth 1). Peer copies name both
// devices; the addresses already tell which memory they touch.
struct Copy {
  StreamHandle stream = 0;
  Address dst = 0;
  Address src = 0;
  std::uint64_t width = 0;
  std::uint64_t height = 1;
  std::uint64_t dst_pitch = 0;
  std::uint64_t src_pitch = 0;
  CopyKind direction = CopyKind::Default;
  bool synchronous_api = false; // cudaMemcpy rather than cudaMemcpyAsync
  std::uint64_t depth = 1;
  std::uint64_t dst_slice_pitch = 0;
  std::uint64_t src_slice_pitch = 0;
  STREAMRACE_FIELDS(stream, dst, src, width, height, dst_pitch, src_pitch, direction,
                    synchronous_api, depth, dst_slice_pitch, src_slice_pitch)
};
struct Set {
  StreamHandle stream = 0;
  Address dst = 0;
  std::uint64_t width = 0;
  std::uint64_t height = 1;
  std::uint64_t pitch = 0;
  bool synchronous_api = false; // cudaMemset rather than cudaMemsetAsync
  std::uint64_t depth = 1;
  std::uint64_t slice_pitch = 0;
  STREAMRACE_FIELDS(stream, dst, width, height, pitch, synchronous_api, depth, slice_pitch)
};
struct KernelLaunch {
  StreamHandle stream = 0;
  NameId kernel = 0;
  std::vector<Access> accesses;
  STREAMRACE_FIELDS(stream, kernel, accesses)
};
// cudaLaunchHostFunc / cudaStreamAddCallback. Accesses are what the function is known (by
// annotation) to touch; usually none. `node`: a graph's host node (captured or added by hand), as
// the runtime names it, when a front end watches what its runs touch (HostNodeAccess); else 0.
// `run`: when not 0, the function had not run when its launch was taken, and what it released
// and acquired comes later, in HostRelease and HostAcquire events naming this run, then a
// HostFunctionEnd (unique within the process). Until then the stream's later work waits for the
// run as for a meeting (rule 14).
struct HostFunction {
  StreamHandle stream = 0;
  NameId function = 0;
  std::vector<Access> accesses;
  std::uint64_t node = 0;
  std::uint64_t run = 0;
  STREAMRACE_FIELDS(stream, function, accesses, node, run)
};
// The host thread itself touches memory (annotations, or a front end that sees host code).
struct HostAccess {
  std::vector<Access> accesses;
  STREAMRACE_FIELDS(accesses)
};

struct CommInit {
  CommHandle comm = 0;
  CommKey key = 0; // the same on every rank of the communicator
  std::int32_t nranks = 1;
  std::int32_t comm_rank = 0;
  DeviceId device = kCurrentDevice;
  STREAMRACE_FIELDS(comm, key, nranks, comm_rank, device)
};
struct CommDestroy {
  CommHandle comm = 0;
  STREAMRACE_FIELDS(comm)
};
struct Collective {
  StreamHandle stream = 0;
  CommHandle comm = 0;
  CollectiveKind kind = CollectiveKind::AllReduce;
  Address send = 0;
  Address recv = 0;
  std::uint64_t count = 0; // as passed to NCCL (sendcount for AllGather, recvcount for RS)
  std::uint32_t element_size = 1;
  std::int32_t root = 0;
  std::uint8_t datatype = 0;  // ncclDataType_t value, compared across ranks
  std::uint8_t reduce_op = 0; // ncclRedOp_t value, compared across ranks
  STREAMRACE_FIELDS(stream, comm, kind, send, recv, count, element_size, root, datatype, reduce_op)
};
struct PointToPoint {
  StreamHandle stream = 0;
  CommHandle comm = 0;
  bool is_send = true;
  Address buffer = 0;
  std::uint64_t count = 0;
  std::uint32_t element_size = 1;
  std::int32_t peer = 0;
  std::uint8_t datatype = 0;
  STREAMRACE_FIELDS(stream, comm, is_send, buffer, count, element_size, peer, datatype)
};
struct GroupStart {
  STREAMRACE_FIELDS()
};
struct GroupEnd {
  STREAMRACE_FIELDS()
};

struct CaptureBegin {
  StreamHandle stream = 0;
  STREAMRACE_FIELDS(stream)
};
struct CaptureEnd {
  StreamHandle stream = 0;
  GraphHandle graph = 0;
  STREAMRACE_FIELDS(stream, graph)
};
// `update`: the executable exists and now runs `graph` (cudaGraphExecUpdate, or a node's
// parameters set in the executable); its launches stay ordered behind its earlier ones.
struct GraphInstantiate {
  GraphHandle graph = 0;
  GraphHandle exec = 0;
  bool update = false;
  STREAMRACE_FIELDS(graph, exec, update)
};
// The executable is destroyed: its handle launches nothing more, and may name another one later.
struct GraphExecDestroy {
  GraphHandle exec = 0;
  STREAMRACE_FIELDS(exec)
};
struct GraphLaunch {
  GraphHandle exec = 0;
  StreamHandle stream = 0;
  STREAMRACE_FIELDS(exec, stream)
};
// What host node `node` of executable `exec` touched when the runtime ran it for the
// executable's next launch (docs/semantics.md rule 11): given before that launch, by the thread
// that ran the function, and checked at the node's place in it, after the node's predecessors and
// before its successors.
struct HostNodeAccess {
  GraphHandle exec = 0;
  std::uint64_t node = 0;
  std::vector<Access> accesses;
  STREAMRACE_FIELDS(exec, node, accesses)
};

// Host threads handing work to each other (docs/semantics.md rule 16): a thread releases a
// synchronization object (unlocks a mutex, signals a condition variable, posts a semaphore,
// creates a thread, ends) and another acquires it (locks the mutex, returns from the wait or the
// semaphore, starts, joins the ended thread). What the first did before the release is ordered
// before what the second does after the acquire. `object` is the object's address (a thread's
// id for creation and joining), unique within the process. Made by a host function
// (`host_function`), the release or acquire is its stream's, at the function's place in it: what
// the stream did before a releasing function is ordered before what another stream does after
// the acquiring one.
// A host function's hand-off reaches the engine at the function's place, not when it ran, so a
// release can arrive after the acquire it enabled. `sequence` pairs them: each release is
// numbered in the order the process made it (0: unnumbered), and an acquire names the last
// release of its object it followed. An acquire that arrives before that release waits for it
// as a stream waits for a collective's meeting (rule 14).
// `run`: the host function run (HostFunction::run) whose hand-off this is, placed where the
// function was launched; 0: at the stream's current place.
struct HostRelease {
  std::uint64_t object = 0;
  bool host_function = false;
  StreamHandle stream = 0;
  std::uint64_t sequence = 0;
  std::uint64_t run = 0;
  STREAMRACE_FIELDS(object, host_function, stream, sequence, run)
};
struct HostAcquire {
  std::uint64_t object = 0;
  bool host_function = false;
  StreamHandle stream = 0;
  std::uint64_t sequence = 0; // the release it followed
  std::uint64_t run = 0;
  STREAMRACE_FIELDS(object, host_function, stream, sequence, run)
};
// Every hand-off of a host function run that came after its launch (HostFunction::run) is in:
// the stream's work after the function waits no longer.
struct HostFunctionEnd {
  StreamHandle stream = 0;
  std::uint64_t run = 0;
  STREAMRACE_FIELDS(stream, run)
};

struct NvtxRangePush {
  NameId name = 0;
  STREAMRACE_FIELDS(name)
};
struct NvtxRangePop {
  STREAMRACE_FIELDS()
};
struct NameStream {
  StreamHandle stream = 0;
  NameId name = 0;
  STREAMRACE_FIELDS(stream, name)
};
struct NameEvent {
  EventHandle event = 0;
  NameId name = 0;
  STREAMRACE_FIELDS(event, name)
};
struct NameMemory {
  Address base = 0;
  std::uint64_t size = 0;
  NameId name = 0;
  STREAMRACE_FIELDS(base, size, name)
};

// A caching allocator's blocks (PyTorch's), inside device memory the program allocated. A block
// is handed out for use on a stream: like a stream-ordered allocation, its life starts at that
// point of the stream, and the cache may hand it out again on that stream as soon as it is
// freed. A block used on other streams must be recorded as such (torch's record_stream): its
// free then waits for those streams' work up to the free.
struct BlockAlloc {
  Address base = 0;
  std::uint64_t size = 0;
  DeviceId device = kCurrentDevice;
  StreamHandle stream = 0;
  STREAMRACE_FIELDS(base, size, device, stream)
};
struct BlockStreamUse {
  Address base = 0;
  StreamHandle stream = 0;
  STREAMRACE_FIELDS(base, stream)
};
struct BlockFree {
  Address base = 0;
  STREAMRACE_FIELDS(base)
};

// A front end that fell behind the program stopped having accesses checked (docs/semantics.md,
// "Memory, findings and fixes"): from a pause to the next resume, the ops of this address space
// keep ordering everything as ever, but their accesses are neither checked nor remembered.
// A resume also says how long the program's calls waited, in all, for the front end during the
// window (its overflow of queued calls was full), in ns.
struct AccessChecks {
  bool paused = false;
  std::uint64_t caller_wait_ns = 0;
  STREAMRACE_FIELDS(paused, caller_wait_ns)
};

// The device a rank stands for: a front end gives each device a process uses a rank of its own,
// and says so once, before the rank's first event, so that reports can name the device by the
// CUDA ordinal the program used rather than by a rank number it never chose.
struct RankDevice {
  RankId process_rank = 0; // the process's own rank (its launcher's), whatever its devices
  DeviceId device = 0;
  STREAMRACE_FIELDS(process_rank, device)
};

using Payload =
    std::variant<StreamCreate, StreamDestroy, EventCreate, EventDestroy, EventRecord,
                 StreamWaitEvent, StreamSynchronize, EventSynchronize, DeviceSynchronize, SetDevice,
                 Alloc, Free, Copy, Set, KernelLaunch, HostFunction, HostAccess, CommInit,
                 CommDestroy, Collective, PointToPoint, GroupStart, GroupEnd, CaptureBegin,
                 CaptureEnd, GraphInstantiate, GraphLaunch, NvtxRangePush, NvtxRangePop, NameStream,
                 NameEvent, NameMemory, BlockAlloc, BlockStreamUse, BlockFree, HostRelease,
                 HostAcquire, AccessChecks, HostNodeAccess, RankDevice, GraphExecDestroy,
                 HostFunctionEnd>;

// Who did it, where in the program, and when. Ranks that share a process share an address
// space: `address_space` tells the engine which accesses can touch the same bytes.
struct EventHeader {
  RankId rank = 0;
  ThreadId thread = 0;
  CallSiteId site = 0;
  std::uint32_t address_space = 0;
  std::uint64_t time_ns = 0;
};

struct Event {
  EventHeader header;
  Payload payload;
};

} // namespace streamrace
