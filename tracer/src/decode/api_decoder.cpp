// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "decode/api_decoder.h"

#include <algorithm>

namespace streamrace::tracer {

namespace {

using api_model::ApiFunction;
using api_model::ApiRole;
using api_model::ArgMeaning;

// A stream argument as the engine names it: 0 through a per-thread entry point is the
// per-thread default stream; the special handles keep their values.
StreamHandle stream_of(const ApiFunction& function, const CallArguments& arguments) {
  const std::uint64_t raw = arguments.get_or(function, ArgMeaning::Stream, 0);
  if (raw == 0 && api_model::usesPerThreadDefaultStream(function)) return kPerThreadStream;
  return raw;
}

CopyKind direction_of(const ApiFunction& function, const CallArguments& arguments) {
  // Peer copies name two devices instead of a kind; driver copies have the function's kind.
  if (!function.has(ArgMeaning::CopyKind))
    return function.impliedCopyKind.value_or(CopyKind::DeviceToDevice);
  // A kind outside cudaMemcpyKind fails the call on a GPU; as Default, the pointers decide.
  const std::uint64_t raw = arguments.get_or(function, ArgMeaning::CopyKind, 4);
  return raw <= static_cast<std::uint64_t>(CopyKind::Default) ? static_cast<CopyKind>(raw)
                                                              : CopyKind::Default;
}

// `role` is the call's (or its graph node's): Copy or Copy2D.
std::optional<Payload> decode_copy(const ApiFunction& function, const CallArguments& arguments,
                                   ApiRole role) {
  const bool two_dimensional = role == ApiRole::Copy2D;
  // Symbol copies name the host-side symbol, not the device bytes it stands for.
  if (function.has(ArgMeaning::Offset)) return std::nullopt;
  const std::optional<std::uint64_t> dst = arguments.get(function, ArgMeaning::WrittenBuffer);
  const std::optional<std::uint64_t> src = arguments.get(function, ArgMeaning::ReadBuffer);
  // A 3D copy from or to a CUDA array names no bytes the front end could read.
  if (!dst || !src) return std::nullopt;
  Copy copy;
  copy.stream = stream_of(function, arguments);
  copy.dst = *dst;
  copy.src = *src;
  copy.direction = direction_of(function, arguments);
  copy.synchronous_api = !function.has(ArgMeaning::Stream);
  if (two_dimensional) {
    copy.width = arguments.get_or(function, ArgMeaning::Width, 0);
    copy.height = arguments.get_or(function, ArgMeaning::Height, 1);
    copy.dst_pitch = arguments.get_or(function, ArgMeaning::DstPitch, 0);
    copy.src_pitch = arguments.get_or(function, ArgMeaning::SrcPitch, 0);
    copy.depth = arguments.get_or(function, ArgMeaning::Depth, 1);
    copy.dst_slice_pitch = arguments.get_or(function, ArgMeaning::DstSlicePitch, 0);
    copy.src_slice_pitch = arguments.get_or(function, ArgMeaning::SrcSlicePitch, 0);
  } else {
    copy.width = arguments.get_or(function, ArgMeaning::ByteSize, 0);
    copy.dst_pitch = copy.width;
    copy.src_pitch = copy.width;
  }
  return copy;
}

// `role` is the call's (or its graph node's): Set or Set2D.
std::optional<Payload> decode_set(const ApiFunction& function, const CallArguments& arguments,
                                  ApiRole role) {
  const bool two_dimensional = role == ApiRole::Set2D;
  Set set;
  set.stream = stream_of(function, arguments);
  set.dst = arguments.get_or(function, ArgMeaning::WrittenBuffer, 0);
  set.synchronous_api = !function.has(ArgMeaning::Stream);
  if (two_dimensional) {
    set.width = arguments.get_or(function, ArgMeaning::Width, 0);
    set.height = arguments.get_or(function, ArgMeaning::Height, 1);
    set.pitch = arguments.get_or(function, ArgMeaning::DstPitch, 0);
    set.depth = arguments.get_or(function, ArgMeaning::Depth, 1);
    set.slice_pitch = arguments.get_or(function, ArgMeaning::DstSlicePitch, 0);
  } else {
    set.width = function.has(ArgMeaning::WordCount)
                    ? arguments.get_or(function, ArgMeaning::WordCount, 0) * sizeof(std::uint32_t)
                    : arguments.get_or(function, ArgMeaning::ByteSize, 0);
    set.pitch = set.width;
  }
  return set;
}

std::optional<Payload> decode_collective(const ApiFunction& function,
                                         const CallArguments& arguments) {
  const std::optional<CollectiveKind> kind = function.collective;
  const std::optional<std::size_t> element_size = api_model::ncclDataTypeSize(
      static_cast<int>(arguments.get_or(function, ArgMeaning::Datatype, ~0ull)));
  if (!kind || !element_size) return std::nullopt;
  Collective collective;
  collective.stream = stream_of(function, arguments);
  collective.comm = arguments.get_or(function, ArgMeaning::Communicator, 0);
  collective.kind = *kind;
  if (const auto both = arguments.get(function, ArgMeaning::ReadWrittenBuffer)) {
    collective.send = *both; // ncclBcast: one buffer, sent by the root, received elsewhere
    collective.recv = *both;
  } else {
    collective.send = arguments.get_or(function, ArgMeaning::ReadBuffer, 0);
    collective.recv = arguments.get_or(function, ArgMeaning::WrittenBuffer, 0);
  }
  collective.count = arguments.get_or(function, ArgMeaning::ElementCount, 0);
  collective.element_size = static_cast<std::uint32_t>(*element_size);
  collective.root = static_cast<std::int32_t>(arguments.get_or(function, ArgMeaning::Root, 0));
  collective.datatype =
      static_cast<std::uint8_t>(arguments.get_or(function, ArgMeaning::Datatype, 0));
  collective.reduce_op =
      static_cast<std::uint8_t>(arguments.get_or(function, ArgMeaning::ReductionOp, 0));
  return collective;
}

std::optional<Payload> decode_point_to_point(const ApiFunction& function,
                                             const CallArguments& arguments, bool is_send) {
  const std::optional<std::size_t> element_size = api_model::ncclDataTypeSize(
      static_cast<int>(arguments.get_or(function, ArgMeaning::Datatype, ~0ull)));
  if (!element_size) return std::nullopt;
  PointToPoint transfer;
  transfer.stream = stream_of(function, arguments);
  transfer.comm = arguments.get_or(function, ArgMeaning::Communicator, 0);
  transfer.is_send = is_send;
  transfer.buffer =
      arguments.get_or(function, is_send ? ArgMeaning::ReadBuffer : ArgMeaning::WrittenBuffer, 0);
  transfer.count = arguments.get_or(function, ArgMeaning::ElementCount, 0);
  transfer.element_size = static_cast<std::uint32_t>(*element_size);
  transfer.peer = static_cast<std::int32_t>(arguments.get_or(function, ArgMeaning::Peer, 0));
  transfer.datatype =
      static_cast<std::uint8_t>(arguments.get_or(function, ArgMeaning::Datatype, 0));
  return transfer;
}

Alloc allocation(const ApiFunction& function, const CallArguments& arguments, MemoryKind kind,
                 ArgMeaning pointer) {
  Alloc alloc;
  alloc.base = arguments.get_or(function, pointer, 0);
  if (const std::optional<std::uint64_t> pitch = arguments.get(function, ArgMeaning::PitchOut))
    alloc.size = *pitch * arguments.get_or(function, ArgMeaning::Height, 1); // cudaMallocPitch
  else if (function.has(ArgMeaning::PitchedAllocationOut))                   // cudaMalloc3D
    alloc.size = arguments.get_or(function, ArgMeaning::DstPitch, 0) *
                 std::max<std::uint64_t>(arguments.get_or(function, ArgMeaning::Height, 1), 1) *
                 arguments.get_or(function, ArgMeaning::Depth, 1);
  else
    alloc.size = arguments.get_or(function, ArgMeaning::ByteSize, 0);
  alloc.kind = kind;
  if (kind == MemoryKind::StreamOrdered) alloc.stream = stream_of(function, arguments);
  return alloc;
}

Free release(const ApiFunction& function, const CallArguments& arguments, FreeApi api,
             ArgMeaning pointer) {
  Free free;
  free.base = arguments.get_or(function, pointer, 0);
  free.api = api;
  if (api == FreeApi::FreeAsync) free.stream = stream_of(function, arguments);
  return free;
}

} // namespace

std::optional<Payload> decode_graph_node(const ApiFunction& function,
                                         const CallArguments& arguments,
                                         const DecodeInputs& inputs) {
  if (inputs.outcome != CallOutcome::Succeeded) return std::nullopt;
  const std::uint64_t event = arguments.get_or(function, ArgMeaning::Event, 0);
  std::optional<Payload> operation;
  switch (function.nodeRole) {
  case ApiRole::Copy:
  case ApiRole::Copy2D:
    operation = decode_copy(function, arguments, function.nodeRole);
    break;
  case ApiRole::Set2D:
    operation = decode_set(function, arguments, function.nodeRole);
    break;
  case ApiRole::AllocAsync:
    return allocation(function, arguments, MemoryKind::StreamOrdered,
                      ArgMeaning::AllocatedPointerOut);
  case ApiRole::FreeAsync:
    return release(function, arguments, FreeApi::FreeAsync, ArgMeaning::FreedBuffer);
  case ApiRole::KernelLaunch:
    return KernelLaunch{0, inputs.function_name, {}};
  case ApiRole::HostFunc:
    return HostFunction{0, inputs.function_name, {}, 0};
  case ApiRole::EventRecord:
    return EventRecord{event, 0};
  case ApiRole::StreamWait:
    return StreamWaitEvent{0, event};
  default:
    return std::nullopt;
  }
  // A node has no host-side wait of its own: it runs when the graph does.
  if (operation)
    std::visit(
        [](auto& payload) {
          if constexpr (requires { payload.synchronous_api; }) payload.synchronous_api = false;
        },
        *operation);
  return operation;
}

std::optional<Payload> decode_call(const ApiFunction& function, const CallArguments& arguments,
                                   const DecodeInputs& inputs) {
  const bool is_query =
      function.role == ApiRole::StreamQuery || function.role == ApiRole::EventQuery;
  if (inputs.outcome == CallOutcome::Failed ||
      (inputs.outcome == CallOutcome::NotReady && !is_query))
    return std::nullopt;
  const bool completed = inputs.outcome == CallOutcome::Succeeded;

  switch (function.role) {
  case ApiRole::Copy:
  case ApiRole::Copy2D:
    return decode_copy(function, arguments, function.role);
  case ApiRole::Set:
  case ApiRole::Set2D:
    return decode_set(function, arguments, function.role);
  case ApiRole::KernelLaunch:
    return KernelLaunch{stream_of(function, arguments), inputs.function_name, {}};
  case ApiRole::HostFunc:
    return HostFunction{stream_of(function, arguments), inputs.function_name, {}, 0};
  case ApiRole::EventRecord:
    return EventRecord{arguments.get_or(function, ArgMeaning::Event, 0),
                       stream_of(function, arguments)};
  case ApiRole::StreamWait:
    return StreamWaitEvent{stream_of(function, arguments),
                           arguments.get_or(function, ArgMeaning::Event, 0)};
  case ApiRole::StreamSync:
  case ApiRole::StreamQuery:
    return StreamSynchronize{stream_of(function, arguments), completed, inputs.waited_ns};
  case ApiRole::EventSync:
  case ApiRole::EventQuery:
    return EventSynchronize{arguments.get_or(function, ArgMeaning::Event, 0), completed,
                            inputs.waited_ns};
  case ApiRole::DeviceSync:
    return DeviceSynchronize{kCurrentDevice, inputs.waited_ns};
  case ApiRole::Alloc:
    return allocation(function, arguments, MemoryKind::Device,
                      function.has(ArgMeaning::PitchedAllocationOut)
                          ? ArgMeaning::PitchedAllocationOut
                          : ArgMeaning::AllocatedPointerOut);
  case ApiRole::AllocManaged:
    return allocation(function, arguments, MemoryKind::Managed, ArgMeaning::AllocatedPointerOut);
  case ApiRole::AllocHost:
    return allocation(function, arguments, MemoryKind::PinnedHost, ArgMeaning::AllocatedPointerOut);
  case ApiRole::AllocAsync:
    return allocation(function, arguments, MemoryKind::StreamOrdered,
                      ArgMeaning::AllocatedPointerOut);
  case ApiRole::HostRegister:
    return allocation(function, arguments, MemoryKind::PinnedHost, ArgMeaning::HostBuffer);
  case ApiRole::HostUnregister:
    return release(function, arguments, FreeApi::HostUnregister, ArgMeaning::HostBuffer);
  case ApiRole::Free:
    return release(function, arguments, FreeApi::Free, ArgMeaning::FreedBuffer);
  case ApiRole::FreeHost:
    return release(function, arguments, FreeApi::FreeHost, ArgMeaning::FreedBuffer);
  case ApiRole::FreeAsync:
    return release(function, arguments, FreeApi::FreeAsync, ArgMeaning::FreedBuffer);
  case ApiRole::StreamCreate: {
    StreamCreate create;
    create.stream = arguments.get_or(function, ArgMeaning::StreamOut, 0);
    create.kind = (arguments.get_or(function, ArgMeaning::StreamFlags, 0) &
                   api_model::kStreamNonBlockingFlag) != 0
                      ? StreamKind::NonBlocking
                      : StreamKind::Blocking;
    create.priority = static_cast<int>(arguments.get_or(function, ArgMeaning::Priority, 0));
    return create;
  }
  case ApiRole::StreamDestroy:
    return StreamDestroy{stream_of(function, arguments)};
  case ApiRole::EventCreate:
    return EventCreate{arguments.get_or(function, ArgMeaning::EventOut, 0)};
  case ApiRole::EventDestroy:
    return EventDestroy{arguments.get_or(function, ArgMeaning::Event, 0)};
  case ApiRole::SetDevice:
    return SetDevice{static_cast<DeviceId>(arguments.get_or(function, ArgMeaning::Device, 0))};
  case ApiRole::CaptureBegin:
    return CaptureBegin{stream_of(function, arguments)};
  case ApiRole::CaptureEnd:
    return CaptureEnd{stream_of(function, arguments),
                      arguments.get_or(function, ArgMeaning::GraphOut, 0)};
  case ApiRole::GraphInstantiate:
    return GraphInstantiate{arguments.get_or(function, ArgMeaning::Graph, 0),
                            arguments.get_or(function, ArgMeaning::GraphExecOut, 0)};
  case ApiRole::GraphLaunch:
    return GraphLaunch{arguments.get_or(function, ArgMeaning::GraphExec, 0),
                       stream_of(function, arguments)};
  case ApiRole::GraphExecDestroy:
    return GraphExecDestroy{arguments.get_or(function, ArgMeaning::GraphExec, 0)};
  case ApiRole::Collective:
    return decode_collective(function, arguments);
  case ApiRole::Send:
    return decode_point_to_point(function, arguments, true);
  case ApiRole::Recv:
    return decode_point_to_point(function, arguments, false);
  case ApiRole::GroupStart:
    return GroupStart{};
  case ApiRole::GroupEnd:
    return GroupEnd{};
  case ApiRole::GraphCreate:
  case ApiRole::GraphAddNode:
  case ApiRole::GraphAddDependencies:
  case ApiRole::GraphRemoveDependencies:
  case ApiRole::GraphDestroyNode:
  case ApiRole::GraphClone:
  case ApiRole::GraphFindInClone:
  case ApiRole::GraphDestroy:
  case ApiRole::GraphSetNode:
  case ApiRole::GraphExecUpdate:
    // The front end follows graphs built by hand (hand_built_graphs.h): none is an engine event.
  case ApiRole::SelectContext:
    // The device comes from the driver after the call (context_devices.h), not the arguments.
  case ApiRole::LibraryCreate:
  case ApiRole::LibrarySetStream:
  case ApiRole::LibraryWork:
  case ApiRole::DescriptorCreate:
    // Library calls reach the tracer as the runtime calls and kernels they make, on their
    // stream: the library tables are the analyzer's, which sees only the call.
    return std::nullopt;
  }
  return std::nullopt;
}

} // namespace streamrace::tracer
