// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cuda_entry/cuda_arguments.h"

// The driver's entry points under the names the model gives them (cuda.h maps each plain name
// to one entry point: included first, before the per-thread switch below, it maps them to the
// legacy-stream ones the model lists).
#include <cuda.h>
// Declares the runtime's _ptsz/_ptds entry points under their own names as well (the plain
// names become macros for them), so every runtime name in the model has a signature here.
#define CUDA_API_PER_THREAD_DEFAULT_STREAM 1
#include <cuda_runtime_api.h>

#include <cstring>
#include <type_traits>

namespace streamrace::tracer {

namespace {

template <typename Result, typename... Parameters>
constexpr std::array<ArgumentSlot, kMaxArguments> layout_of(Result (*)(Parameters...)) {
  static_assert(sizeof...(Parameters) <= kMaxArguments);
  std::array<ArgumentSlot, kMaxArguments> slots{};
  std::size_t offset = 0;
  std::size_t index = 0;
  [[maybe_unused]] auto place = [&]<typename Parameter>() {
    offset = (offset + alignof(Parameter) - 1) / alignof(Parameter) * alignof(Parameter);
    constexpr bool scalar = std::is_scalar_v<Parameter> && sizeof(Parameter) <= 8;
    slots[index++] = ArgumentSlot{static_cast<std::uint16_t>(offset),
                                  static_cast<std::uint8_t>(scalar ? sizeof(Parameter) : 0),
                                  std::is_signed_v<Parameter>};
    offset += sizeof(Parameter);
  };
  (place.template operator()<Parameters>(), ...);
  return slots;
}

template <typename Result, typename... Parameters>
constexpr std::size_t parameter_count(Result (*)(Parameters...)) {
  return sizeof...(Parameters);
}

constexpr const api_model::ApiFunction& model_entry(std::string_view name) {
  return *api_model::findApiFunction(name);
}

#define STREAMRACE_ARG(parameter, meaning) 0
#define STREAMRACE_CUDA_API(name, role, hostSync, ...)                                             \
  static_assert(parameter_count(&name) == api_model::detail::name##_args.size(),                   \
                "the API model and cuda_runtime_api.h disagree on the parameters of " #name);
#define STREAMRACE_NCCL_API(name, role, collective, ...)
#define STREAMRACE_CUDA_GRAPH_NODE_API(name, role, nodeRole, ...)                                  \
  STREAMRACE_CUDA_API(name, , , __VA_ARGS__)
#define STREAMRACE_CUDA_DRIVER_API(name, role, hostSync, copyKind, ...)                            \
  STREAMRACE_CUDA_API(name, , , __VA_ARGS__)
#include "streamrace/api_model/cuda_api.def"
#include "streamrace/api_model/cuda_driver_api.def"
#undef STREAMRACE_CUDA_API

const CudaCallShape kCudaCalls[] = {
#define STREAMRACE_CUDA_API(name, role, hostSync, ...) {&model_entry(#name), layout_of(&name)},
#include "streamrace/api_model/cuda_api.def"
#include "streamrace/api_model/cuda_driver_api.def"
#undef STREAMRACE_CUDA_API
#undef STREAMRACE_CUDA_DRIVER_API
#undef STREAMRACE_CUDA_GRAPH_NODE_API
#undef STREAMRACE_NCCL_API
#undef STREAMRACE_ARG
};

std::uint64_t read_slot(const ArgumentSlot& slot, const unsigned char* params) {
  const unsigned char* at = params + slot.offset;
  switch (slot.size) {
  case 1: {
    std::uint8_t value;
    std::memcpy(&value, at, 1);
    return slot.is_signed ? static_cast<std::uint64_t>(static_cast<std::int8_t>(value)) : value;
  }
  case 2: {
    std::uint16_t value;
    std::memcpy(&value, at, 2);
    return slot.is_signed ? static_cast<std::uint64_t>(static_cast<std::int16_t>(value)) : value;
  }
  case 4: {
    std::uint32_t value;
    std::memcpy(&value, at, 4);
    return slot.is_signed ? static_cast<std::uint64_t>(static_cast<std::int32_t>(value)) : value;
  }
  case 8: {
    std::uint64_t value;
    std::memcpy(&value, at, 8);
    return value;
  }
  default:
    return 0;
  }
}

template <typename Struct> Struct read_struct(const void* at) {
  Struct value;
  std::memcpy(&value, at, sizeof(Struct));
  return value;
}

std::uint64_t address_of(const void* pointer) {
  return reinterpret_cast<std::uintptr_t>(pointer);
}

// A pitched pointer's byte at a position: slices of `ysize` rows of `pitch` bytes.
std::uint64_t address_at(const cudaPitchedPtr& pointer, const cudaPos& position) {
  return address_of(pointer.ptr) + (position.z * pointer.ysize + position.y) * pointer.pitch +
         position.x;
}

using api_model::ArgMeaning;

// The node parameter structs, each in the typed calls' version and in the generic one's (V2),
// whose members of these names are the same.
void read_copy(const cudaMemcpy3DParms& copy, CallArguments& arguments) {
  // CUDA arrays have an opaque layout: such a copy touches no bytes the tracer can name.
  if (copy.srcArray != nullptr || copy.dstArray != nullptr) return;
  arguments.set_member(ArgMeaning::WrittenBuffer, address_at(copy.dstPtr, copy.dstPos));
  arguments.set_member(ArgMeaning::ReadBuffer, address_at(copy.srcPtr, copy.srcPos));
  arguments.set_member(ArgMeaning::DstPitch, copy.dstPtr.pitch);
  arguments.set_member(ArgMeaning::SrcPitch, copy.srcPtr.pitch);
  arguments.set_member(ArgMeaning::DstSlicePitch, copy.dstPtr.pitch * copy.dstPtr.ysize);
  arguments.set_member(ArgMeaning::SrcSlicePitch, copy.srcPtr.pitch * copy.srcPtr.ysize);
  arguments.set_member(ArgMeaning::Width, copy.extent.width);
  arguments.set_member(ArgMeaning::Height, copy.extent.height);
  arguments.set_member(ArgMeaning::Depth, copy.extent.depth);
  arguments.set_member(ArgMeaning::CopyKind, static_cast<std::uint64_t>(copy.kind));
}

template <typename KernelParams>
void read_kernel(const KernelParams& node, CallArguments& arguments) {
  arguments.set_member(ArgMeaning::KernelFunction, address_of(node.func));
  arguments.set_member(ArgMeaning::KernelArgs, address_of(node.kernelParams));
  arguments.set_member(ArgMeaning::GridDim, node.gridDim.x);
  arguments.set_member(ArgMeaning::BlockDim, node.blockDim.x);
}

template <typename SetParams> void read_set(const SetParams& set, CallArguments& arguments) {
  const std::uint64_t row_bytes = std::uint64_t{set.width} * set.elementSize;
  arguments.set_member(ArgMeaning::WrittenBuffer, address_of(set.dst));
  arguments.set_member(ArgMeaning::Width, row_bytes);
  arguments.set_member(ArgMeaning::Height, set.height);
  arguments.set_member(ArgMeaning::DstPitch, set.height > 1 ? set.pitch : row_bytes);
}

template <typename HostParams> void read_host(const HostParams& host, CallArguments& arguments) {
  arguments.set_member(ArgMeaning::HostFunction, address_of(reinterpret_cast<void*>(host.fn)));
  arguments.set_member(ArgMeaning::UserData, address_of(host.userData));
}

template <typename AllocParams>
void read_allocation(const AllocParams& allocation, CallArguments& arguments) {
  arguments.set_member(ArgMeaning::AllocatedPointerOut, address_of(allocation.dptr));
  arguments.set_member(ArgMeaning::ByteSize, allocation.bytesize);
}

// A generic node's parameters: its type, and the members of that type's parameters.
void read_node(const cudaGraphNodeParams& node, CallArguments& arguments) {
  arguments.set_member(ArgMeaning::NodeType, static_cast<std::uint64_t>(node.type));
  switch (node.type) {
  case cudaGraphNodeTypeKernel:
    return read_kernel(node.kernel, arguments);
  case cudaGraphNodeTypeMemcpy:
    return read_copy(node.memcpy.copyParams, arguments);
  case cudaGraphNodeTypeMemset:
    return read_set(node.memset, arguments);
  case cudaGraphNodeTypeHost:
    return read_host(node.host, arguments);
  case cudaGraphNodeTypeGraph:
    return arguments.set_member(ArgMeaning::ChildGraph, address_of(node.graph.graph));
  case cudaGraphNodeTypeWaitEvent:
    return arguments.set_member(ArgMeaning::Event, address_of(node.eventWait.event));
  case cudaGraphNodeTypeEventRecord:
    return arguments.set_member(ArgMeaning::Event, address_of(node.eventRecord.event));
  case cudaGraphNodeTypeMemAlloc:
    return read_allocation(node.alloc, arguments);
  case cudaGraphNodeTypeMemFree:
    return arguments.set_member(ArgMeaning::FreedBuffer, address_of(node.free.dptr));
  default:
    return;
  }
}

// The members of struct parameters that carry a meaning of the model (call_arguments.h).
void read_members(api_model::ArgMeaning meaning, const unsigned char* at,
                  CallArguments& arguments) {
  switch (meaning) {
  case ArgMeaning::LaunchConfig: {
    const auto* config = read_struct<const cudaLaunchConfig_t*>(at);
    if (config == nullptr) return;
    arguments.set_member(ArgMeaning::Stream, address_of(config->stream));
    arguments.set_member(ArgMeaning::GridDim, config->gridDim.x);
    arguments.set_member(ArgMeaning::BlockDim, config->blockDim.x);
    return;
  }
  case ArgMeaning::Copy3DParams:
    if (const auto* copy = read_struct<const cudaMemcpy3DParms*>(at)) read_copy(*copy, arguments);
    return;
  case ArgMeaning::PitchedPointer: {
    const auto pointer = read_struct<cudaPitchedPtr>(at);
    arguments.set_member(ArgMeaning::WrittenBuffer, address_of(pointer.ptr));
    arguments.set_member(ArgMeaning::DstPitch, pointer.pitch);
    arguments.set_member(ArgMeaning::DstSlicePitch, pointer.pitch * pointer.ysize);
    return;
  }
  case ArgMeaning::PitchedAllocationOut: {
    const auto* pointer = read_struct<const cudaPitchedPtr*>(at);
    if (pointer != nullptr) arguments.set_member(ArgMeaning::DstPitch, pointer->pitch);
    return;
  }
  case ArgMeaning::KernelNodeParams:
    if (const auto* node = read_struct<const cudaKernelNodeParams*>(at))
      read_kernel(*node, arguments);
    return;
  case ArgMeaning::MemsetNodeParams:
    if (const auto* set = read_struct<const cudaMemsetParams*>(at)) read_set(*set, arguments);
    return;
  case ArgMeaning::HostNodeParams:
    if (const auto* host = read_struct<const cudaHostNodeParams*>(at)) read_host(*host, arguments);
    return;
  case ArgMeaning::MemAllocNodeParams:
    if (const auto* allocation = read_struct<const cudaMemAllocNodeParams*>(at))
      read_allocation(*allocation, arguments);
    return;
  case ArgMeaning::GraphNodeParams:
    if (const auto* node = read_struct<const cudaGraphNodeParams*>(at)) read_node(*node, arguments);
    return;
  case ArgMeaning::Extent: {
    const auto extent = read_struct<cudaExtent>(at);
    arguments.set_member(ArgMeaning::Width, extent.width);
    arguments.set_member(ArgMeaning::Height, extent.height);
    arguments.set_member(ArgMeaning::Depth, extent.depth);
    return;
  }
  default:
    return;
  }
}

} // namespace

const CudaCallShape* find_cuda_call(std::string_view name) {
  for (const CudaCallShape& shape : kCudaCalls)
    if (shape.function->name == name) return &shape;
  return nullptr;
}

CallArguments read_cuda_arguments(const CudaCallShape& shape, const void* params) {
  CallArguments arguments;
  const auto* bytes = static_cast<const unsigned char*>(params);
  const std::size_t count = std::min(shape.function->args.size(), kMaxArguments);
  for (std::size_t i = 0; i < count; ++i) {
    read_members(shape.function->args[i].meaning, bytes + shape.slots[i].offset, arguments);
    std::uint64_t value = read_slot(shape.slots[i], bytes);
    // Only launches (a dim3 by value) have these meanings.
    if (const ArgMeaning meaning = shape.function->args[i].meaning;
        meaning == ArgMeaning::GridDim || meaning == ArgMeaning::BlockDim)
      value = read_struct<dim3>(bytes + shape.slots[i].offset).x;
    if (is_output_parameter(shape.function->args[i].meaning) && value != 0) {
      std::uint64_t stored = 0;
      std::memcpy(&stored, reinterpret_cast<const void*>(value), sizeof stored);
      value = stored;
    }
    arguments.values[i] = value;
  }
  return arguments;
}

std::uint64_t launch_threads_x(const api_model::ApiFunction& function,
                               const CallArguments& arguments) {
  return arguments.get_or(function, ArgMeaning::GridDim, 0) *
         arguments.get_or(function, ArgMeaning::BlockDim, 0);
}

std::optional<TypedNodeCall> typed_node_call(const api_model::ApiFunction& generic,
                                             const CallArguments& arguments) {
  const std::optional<std::uint64_t> type = arguments.get(generic, ArgMeaning::NodeType);
  if (!type) return std::nullopt;
  std::string_view typed;
  switch (static_cast<cudaGraphNodeType>(*type)) {
  case cudaGraphNodeTypeKernel:
    typed = "cudaGraphAddKernelNode";
    break;
  case cudaGraphNodeTypeMemcpy:
    typed = "cudaGraphAddMemcpyNode";
    break;
  case cudaGraphNodeTypeMemset:
    typed = "cudaGraphAddMemsetNode";
    break;
  case cudaGraphNodeTypeHost:
    typed = "cudaGraphAddHostNode";
    break;
  case cudaGraphNodeTypeGraph:
    typed = "cudaGraphAddChildGraphNode";
    break;
  case cudaGraphNodeTypeEmpty:
    typed = "cudaGraphAddEmptyNode";
    break;
  case cudaGraphNodeTypeWaitEvent:
    typed = "cudaGraphAddEventWaitNode";
    break;
  case cudaGraphNodeTypeEventRecord:
    typed = "cudaGraphAddEventRecordNode";
    break;
  case cudaGraphNodeTypeMemAlloc:
    typed = "cudaGraphAddMemAllocNode";
    break;
  case cudaGraphNodeTypeMemFree:
    typed = "cudaGraphAddMemFreeNode";
    break;
  default:
    return std::nullopt;
  }
  TypedNodeCall call{api_model::findApiFunction(typed), {}};
  call.arguments.members = arguments.members;
  call.arguments.member_present = arguments.member_present;
  for (std::size_t i = 0; i < call.function->args.size() && i < kMaxArguments; ++i)
    call.arguments.values[i] = arguments.get_or(generic, call.function->args[i].meaning, 0);
  return call;
}

} // namespace streamrace::tracer
