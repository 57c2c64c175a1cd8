// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The device-side parameter layout of a kernel, as cudaFuncGetParamInfo reports it: each
// parameter's offset and size. A CPU registration gives the sizes; otherwise the parameter types
// spelled by the mangled device name nvcc registered do, when every one of them is a scalar or a
// pointer (a struct passed by value has a size only the device code knows).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace streamrace::emu {

struct ParameterSlot {
  std::size_t offset = 0;
  std::size_t size = 0;
};

// Places parameters of these sizes one after another, each aligned to its own size (up to 8),
// as the device ABI lays out scalars and pointers.
std::vector<ParameterSlot> layoutFromSizes(const std::vector<std::size_t>& sizes);

// The layout a mangled device name spells, or nothing when it is not an Itanium-mangled function
// name (extern "C" kernels) or names a parameter type whose size is unknown here.
std::optional<std::vector<ParameterSlot>> layoutFromMangledName(const std::string& mangledName);

} // namespace streamrace::emu
