// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The CUDA/NCCL API model as constexpr tables, expanded from cuda_api.def, cuda_driver_api.def
// and nccl_api.def.
// Shared by the analyzer (matching calls in source) and the tracer (decoding calls at run time);
// it includes no CUDA header, so the numeric constants both sides need are mirrored here.
#pragma once

#include "streamrace/api_model/collectives.h"
#include "streamrace/api_model/copy_kind.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace streamrace::api_model {

enum class ApiFamily : std::uint8_t {
  Cuda,
  CudaDriver,
  Nccl,
  // The math libraries and parallel algorithms of library_api.h.
  Cublas,
  CublasLt,
  Cufft,
  Cusparse,
  Cudnn,
  Thrust,
  Cub,
};

// What a call does to streams, events and memory.
enum class ApiRole : std::uint8_t {
  Copy,
  Copy2D,
  Set,
  Set2D,
  KernelLaunch,
  HostFunc,
  EventRecord,
  StreamWait,
  StreamSync,
  EventSync,
  DeviceSync,
  StreamQuery,
  EventQuery,
  Alloc,
  AllocManaged,
  AllocHost,
  AllocAsync,
  HostRegister,
  HostUnregister,
  Free,
  FreeHost,
  FreeAsync,
  StreamCreate,
  StreamDestroy,
  EventCreate,
  EventDestroy,
  SetDevice,
  // A driver call that makes a context current: the thread's device becomes the context's, as
  // with SetDevice, but the handle does not name it (a front end asks the driver afterwards).
  SelectContext,
  CaptureBegin,
  CaptureEnd,
  GraphInstantiate,
  GraphLaunch,
  // Graphs built node by node: the graph, its nodes (each doing what its `nodeRole` says: a
  // copy, a set, a kernel, a host function, an event record or wait, a child graph launch, or
  // nothing), edges added or removed afterwards, nodes destroyed, copies and destruction.
  GraphCreate,
  GraphAddNode,
  GraphAddDependencies,
  GraphRemoveDependencies,
  GraphDestroyNode,
  GraphClone,
  // The handle of a node's copy in a clone (cudaGraphNodeFindInClone): the program's name for it.
  GraphFindInClone,
  GraphDestroy,
  // A node's parameters changed after it was added: in its graph (which later instantiations
  // copy), or in one executable made from it (the function names the executable), as in
  // cudaGraphExecKernelNodeSetParams; `nodeRole` says what the node does, as for GraphAddNode.
  GraphSetNode,
  // An executable takes the parameters of another graph of the same shape (cudaGraphExecUpdate).
  GraphExecUpdate,
  // An executable is gone: what was kept to check its launches goes with it.
  GraphExecDestroy,
  Collective,
  Send,
  Recv,
  GroupStart,
  GroupEnd,
  // Library handles (library_api.h): a handle made, bound to the legacy default stream until
  // bound again; a handle bound to a stream; work a library enqueues, on its Stream argument or
  // else on the stream last bound to its handle; a descriptor made that holds device pointers.
  LibraryCreate,
  LibrarySetStream,
  LibraryWork,
  DescriptorCreate,
};

// What the host may assume when the call returns.
enum class HostSync : std::uint8_t { Async, Synchronous, Blocking };

// What one parameter means.
enum class ArgMeaning : std::uint8_t {
  ReadBuffer,
  WrittenBuffer,
  ReadWrittenBuffer,
  FreedBuffer,
  AllocatedPointerOut,
  HostBuffer,
  ByteSize,
  WordCount, // size_t: how many 32-bit words a driver memset (cuMemsetD32) writes
  ElementCount,
  Offset,
  Datatype,
  Stream,
  StreamOut,
  StreamFlags,
  Priority,
  Event,
  EventOut,
  Communicator,
  Root,
  Peer,
  CopyKind,
  Width,
  Height,
  DstPitch,
  SrcPitch,
  Value,
  Device,
  Flags,
  KernelFunction,
  GridDim,
  BlockDim,
  KernelArgs,
  SharedMemBytes,
  HostFunction,
  UserData,
  ReductionOp,
  CaptureMode,
  GraphOut,
  GraphExec,
  Graph,
  GraphExecOut,
  GraphNodeOut,        // cudaGraphNode_t*: the node a cudaGraphAdd*Node call made
  NodeDependencies,    // const cudaGraphNode_t*: the nodes a new node (or edge target) follows
  NodeDependents,      // const cudaGraphNode_t*: cudaGraphAddDependencies' edge targets
  NodeDependencyCount, // size_t: how many of either
  EdgeData,            // const cudaGraphEdgeData*: edge kinds (every edge orders whole nodes here)
  ChildGraph,          // cudaGraph_t a child graph node copies
  GraphNode,           // cudaGraphNode_t: the node whose parameters a setter changes
  UpdateResultOut,     // cudaGraphExecUpdateResultInfo*: why an update was refused
  Context,             // CUcontext: the context a call makes current
  ContextOut,          // CUcontext*: a context the call made, or the one it popped
  ContextCreateParams, // CUctxCreateParams*: execution affinity and the like (nothing ordered)
  // Parameters whose meaning lies in the members of a struct (the tracer's front end reads the
  // members; see DerivedArgument below).
  PitchOut,             // size_t*: the row pitch a pitched allocation chose
  PitchedAllocationOut, // cudaPitchedPtr*: the allocation cudaMalloc3D made
  PitchedPointer,       // cudaPitchedPtr by value: memory a 3D set writes
  Extent,               // cudaExtent by value: width in bytes, height and depth
  Copy3DParams,         // const cudaMemcpy3DParms*: both sides of a 3D copy
  MemPool,              // cudaMemPool_t
  LaunchConfig,         // const cudaLaunchConfig_t*: grid, block, stream and attributes
  KernelNodeParams,     // const cudaKernelNodeParams*: function and argument array
  MemsetNodeParams,     // const cudaMemsetParams*: destination, pitch, element size, width, rows
  HostNodeParams,       // const cudaHostNodeParams*: function and user data
  MemAllocNodeParams,   // cudaMemAllocNodeParams*: size and device in, the allocation's address out
  GraphNodeParams,      // cudaGraphNodeParams*: a node of any type, and that type's parameters
  // Meanings no parameter has, only the members of the structs above.
  Depth,
  DstSlicePitch,
  SrcSlicePitch,
  NodeType, // a GraphNodeParams' cudaGraphNodeType
  // Library calls (library_api.h).
  LibraryHandle,    // a cuBLAS/cuFFT/cuSPARSE/cuDNN handle or plan: the stream its work runs on
  LibraryHandleOut, // the handle or plan a create call made
  Scalar,        // alpha, beta: read when the call is made (host pointer mode), not as stream work
  Dimension,     // a size, leading dimension, increment, stride or batch count
  Mode,          // a transpose, fill, side, algorithm, data or compute type
  Descriptor,    // an opaque descriptor of shapes or settings, holding no memory
  DescriptorOut, // a descriptor a create call made, holding the pointers after it
  DescribedOffsets, // a pointer a descriptor holds: a sparse matrix's row offsets
  DescribedIndices, // its column (or row) indices
  DescribedValues,  // its values, or a dense vector's or matrix's
  ReadDescribed,    // a descriptor whose memory the call reads
  WrittenDescribed,
  ReadWrittenDescribed,
  // CUB's d_temp_storage: null asks for the size and enqueues nothing; else read and written.
  TempStorage,
  TempStorageBytes,
  ExecutionPolicy, // thrust's: `thrust::cuda::par.on(s)`, `par_nosync.on(s)`, `thrust::device`
  RangeEnd,        // an iterator ending a range whose start is listed
  Functor,         // an operator or predicate
};

struct ApiArg {
  std::string_view name;
  ArgMeaning meaning;
};

struct ApiFunction {
  std::string_view name;
  ApiFamily family;
  ApiRole role;
  HostSync hostSync;
  std::optional<CollectiveKind> collective; // for NCCL collectives
  std::span<const ApiArg> args;
  // For GraphAddNode and GraphSetNode: what the node does, as the role of the stream call it
  // stands for (GraphAddNode itself for an empty node); for every other function its own role.
  ApiRole nodeRole = role;
  // For copies whose kind is the function's rather than an argument's (the driver's cuMemcpyHtoD
  // and the like); none for the runtime's peer copies, which name two devices instead.
  std::optional<CopyKind> impliedCopyKind = std::nullopt;

  // The index of the first parameter with this meaning.
  constexpr std::optional<std::size_t> argIndex(ArgMeaning meaning) const {
    for (std::size_t i = 0; i < args.size(); ++i)
      if (args[i].meaning == meaning) return i;
    return std::nullopt;
  }
  constexpr bool has(ArgMeaning meaning) const { return argIndex(meaning).has_value(); }
};

// Numeric values of the CUDA/NCCL enumerators and handles the model refers to (cuda_runtime_api.h,
// driver_types.h, nccl.h); mirrored so neither side needs the headers to interpret an argument.
inline constexpr unsigned kStreamNonBlockingFlag = 0x1;       // cudaStreamNonBlocking
inline constexpr std::uintptr_t kLegacyStreamHandle = 0x1;    // cudaStreamLegacy
inline constexpr std::uintptr_t kPerThreadStreamHandle = 0x2; // cudaStreamPerThread

namespace detail {
template <class... Args> constexpr auto makeArgs(Args... args) {
  return std::array<ApiArg, sizeof...(Args)>{args...};
}

#define STREAMRACE_ARG(parameter, meaning_)                                                        \
  ApiArg {                                                                                         \
    #parameter, ArgMeaning::meaning_                                                               \
  }
#define STREAMRACE_CUDA_API(name, role, hostSync, ...)                                             \
  inline constexpr auto name##_args = makeArgs(__VA_ARGS__);
#define STREAMRACE_NCCL_API(name, role, collective, ...)                                           \
  inline constexpr auto name##_args = makeArgs(__VA_ARGS__);
#define STREAMRACE_CUDA_GRAPH_NODE_API(name, role, nodeRole, ...)                                  \
  inline constexpr auto name##_args = makeArgs(__VA_ARGS__);
#define STREAMRACE_CUDA_DRIVER_API(name, role, hostSync, copyKind, ...)                            \
  inline constexpr auto name##_args = makeArgs(__VA_ARGS__);
#include "streamrace/api_model/cuda_api.def"
#include "streamrace/api_model/cuda_driver_api.def"
#include "streamrace/api_model/nccl_api.def"
#undef STREAMRACE_CUDA_API
#undef STREAMRACE_CUDA_DRIVER_API
#undef STREAMRACE_NCCL_API
#undef STREAMRACE_CUDA_GRAPH_NODE_API
} // namespace detail

namespace detail {
// nccl_api.def names a row's collective, or None.
inline constexpr std::optional<CollectiveKind> collective_None = std::nullopt;
#define STREAMRACE_COLLECTIVE(kind, ...)                                                           \
  inline constexpr std::optional<CollectiveKind> collective_##kind = CollectiveKind::kind;
#include "streamrace/api_model/collectives.inc"
} // namespace detail

inline constexpr ApiFunction kApiFunctions[] = {
#define STREAMRACE_CUDA_API(name, role, hostSync, ...)                                             \
  ApiFunction{#name,        ApiFamily::Cuda,    ApiRole::role, HostSync::hostSync,                 \
              std::nullopt, detail::name##_args},
#define STREAMRACE_NCCL_API(name, role, collective, ...)                                           \
  ApiFunction{#name,                                                                               \
              ApiFamily::Nccl,                                                                     \
              ApiRole::role,                                                                       \
              HostSync::Async,                                                                     \
              detail::collective_##collective,                                                     \
              detail::name##_args},
#define STREAMRACE_CUDA_GRAPH_NODE_API(name, role_, nodeRole_, ...)                                \
  ApiFunction{#name,        ApiFamily::Cuda,     ApiRole::role_,    HostSync::Synchronous,         \
              std::nullopt, detail::name##_args, ApiRole::nodeRole_},
#define STREAMRACE_CUDA_DRIVER_API(name, role_, hostSync, copyKind, ...)                           \
  ApiFunction{#name,        ApiFamily::CudaDriver, ApiRole::role_, HostSync::hostSync,             \
              std::nullopt, detail::name##_args,   ApiRole::role_, CopyKind::copyKind},
#include "streamrace/api_model/cuda_api.def"
#include "streamrace/api_model/cuda_driver_api.def"
#include "streamrace/api_model/nccl_api.def"
#undef STREAMRACE_CUDA_DRIVER_API
#undef STREAMRACE_CUDA_API
#undef STREAMRACE_NCCL_API
#undef STREAMRACE_CUDA_GRAPH_NODE_API
#undef STREAMRACE_ARG
};

inline constexpr std::span<const ApiFunction> apiFunctions() {
  return kApiFunctions;
}

// The model entry for a function name, or null. NCCL's profiling aliases (pncclX) resolve to ncclX.
constexpr const ApiFunction* findApiFunction(std::string_view name) {
  if (name.starts_with("pnccl")) name.remove_prefix(1);
  for (const ApiFunction& function : kApiFunctions)
    if (function.name == name) return &function;
  return nullptr;
}

// True for the _ptsz/_ptds variants, where stream 0 means the per-thread default stream.
constexpr bool usesPerThreadDefaultStream(const ApiFunction& function) {
  return function.name.ends_with("_ptsz") || function.name.ends_with("_ptds");
}

// The call as written in source: without a _ptsz/_ptds suffix, and without the _v2 of the driver
// entry points cuda.h maps plain names to (cuMemAlloc is cuMemAlloc_v2).
constexpr std::string_view baseName(const ApiFunction& function) {
  std::string_view name = function.name;
  if (usesPerThreadDefaultStream(function)) name.remove_suffix(5);
  if (function.family == ApiFamily::CudaDriver && name.ends_with("_v2")) name.remove_suffix(3);
  return name;
}

// Bytes per element of an ncclDataType_t value, or nullopt for an unknown type.
constexpr std::optional<std::size_t> ncclDataTypeSize(int datatype) {
  constexpr std::size_t sizes[] = {
      1, // ncclInt8, ncclChar
      1, // ncclUint8
      4, // ncclInt32, ncclInt
      4, // ncclUint32
      8, // ncclInt64
      8, // ncclUint64
      2, // ncclFloat16, ncclHalf
      4, // ncclFloat32, ncclFloat
      8, // ncclFloat64, ncclDouble
      2, // ncclBfloat16
      1, // ncclFloat8e4m3
      1, // ncclFloat8e5m2
  };
  if (datatype < 0 || static_cast<std::size_t>(datatype) >= std::size(sizes)) return std::nullopt;
  return sizes[datatype];
}

// Whether the call's stream is a member of a struct parameter (cudaLaunchKernelExC's config).
constexpr bool streamIsAMember(const ApiFunction& function) {
  return function.has(ArgMeaning::LaunchConfig);
}

// Whether the call's buffers and their extents are members of struct parameters (3D copies and
// sets).
constexpr bool buffersAreMembers(const ApiFunction& function) {
  return function.has(ArgMeaning::Copy3DParams) || function.has(ArgMeaning::PitchedPointer);
}

// Roles whose work is enqueued on a stream and therefore need a Stream parameter (the synchronous
// copies and sets run on the default stream instead).
constexpr bool roleNeedsStream(ApiRole role) {
  switch (role) {
  case ApiRole::KernelLaunch:
  case ApiRole::HostFunc:
  case ApiRole::EventRecord:
  case ApiRole::StreamWait:
  case ApiRole::StreamSync:
  case ApiRole::StreamQuery:
  case ApiRole::AllocAsync:
  case ApiRole::FreeAsync:
  case ApiRole::StreamDestroy:
  case ApiRole::CaptureBegin:
  case ApiRole::CaptureEnd:
  case ApiRole::GraphLaunch:
  case ApiRole::Collective:
  case ApiRole::Send:
  case ApiRole::Recv:
    return true;
  default:
    return false;
  }
}

// Roles that touch buffer contents on a stream (what a race needs).
constexpr bool roleAccessesBuffers(ApiRole role) {
  switch (role) {
  case ApiRole::Copy:
  case ApiRole::Copy2D:
  case ApiRole::Set:
  case ApiRole::Set2D:
  case ApiRole::Collective:
  case ApiRole::Send:
  case ApiRole::Recv:
    return true;
  default:
    return false;
  }
}

} // namespace streamrace::api_model
