// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What a stream executes: a body tagged with the kind of work it stands for (the kind selects the
// delay knobs that apply to it).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string_view>

namespace streamrace::emu {

enum class OperationKind {
  Memcpy,
  Memset,
  Kernel,
  HostFunction,
  EventRecord,
  EventWait,
  Allocation,
  Free,
  Graph,
  Marker
};

std::string_view operationKindName(OperationKind kind);

// A host function's own function and argument, which a graph's host node hands back
// (cudaGraphHostNodeGetParams) and an executable's may replace (cudaGraphExecHostNodeSetParams).
struct HostCall {
  void (*function)(void*) = nullptr;
  void* data = nullptr;
};

// The memory a graph's allocation node allocates or its free node frees, which the nodes hand
// back (cudaGraphMemAllocNodeGetParams, cudaGraphMemFreeNodeGetParams).
struct GraphMemory {
  void* address = nullptr;
  std::size_t bytes = 0;
  int device = 0;
};

struct Work {
  OperationKind kind;
  std::function<void()> body;
  std::optional<HostCall> host = std::nullopt;
  std::optional<GraphMemory> memory = std::nullopt;
};

// The work of a host function or host node that calls `call`.
inline Work hostFunctionWork(HostCall call) {
  return Work{OperationKind::HostFunction, [call] { call.function(call.data); }, call};
}

} // namespace streamrace::emu
