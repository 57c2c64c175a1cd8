// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Reads the arguments of a CUDA runtime or driver call from the CUPTI `*_params` struct of its
// callback. Each struct holds the function's parameters in order, so its layout follows from the
// function's signature in cuda_runtime_api.h or cuda.h; which signature belongs to which name comes
// from the API model, and the build checks that model and header agree on every parameter count.
#pragma once

#include "decode/call_arguments.h"

#include "streamrace/api_model/api_model.h"

#include <optional>
#include <string_view>

namespace streamrace::tracer {

struct ArgumentSlot {
  std::uint16_t offset = 0;
  std::uint8_t size = 0; // 0: a parameter that is not a scalar (dim3), read as 0
  bool is_signed = false;
};

struct CudaCallShape {
  const api_model::ApiFunction* function = nullptr;
  std::array<ArgumentSlot, kMaxArguments> slots{};
};

// The model entry and params layout of a runtime or driver API name (as CUPTI's functionName spells
// it), or null when the model does not describe the call.
const CudaCallShape* find_cuda_call(std::string_view name);

// Copies the arguments out of `params`; output parameters are read through their pointers. A
// launch's grid and block dimensions (GridDim, BlockDim) are read as their x components.
CallArguments read_cuda_arguments(const CudaCallShape& shape, const void* params);

// A kernel launch's (or kernel node's) threads in x, gridDim.x * blockDim.x: how far an index
// `blockIdx.x * blockDim.x + threadIdx.x` reaches. 0 when the call does not say.
std::uint64_t launch_threads_x(const api_model::ApiFunction& function,
                               const CallArguments& arguments);

// A generic graph node call (cudaGraphAddNode, cudaGraph[Exec]NodeSetParams, whose arguments hold
// the node's type and its parameters' members) as the typed call that adds a node of that type:
// its model entry, and the arguments numbered as it numbers them. Nullopt for a node type the
// model has no call for (conditional and external semaphore nodes).
struct TypedNodeCall {
  const api_model::ApiFunction* function = nullptr;
  CallArguments arguments;
};
std::optional<TypedNodeCall> typed_node_call(const api_model::ApiFunction& generic,
                                             const CallArguments& arguments);

} // namespace streamrace::tracer
