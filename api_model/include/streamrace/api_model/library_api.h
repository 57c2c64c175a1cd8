// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The CUDA math libraries and parallel algorithms as constexpr tables, expanded from
// library_api.def (cuBLAS, cuBLASLt, cuFFT, cuSPARSE, cuDNN) and parallel_algorithms.def (thrust,
// CUB), in the form of api_model.h's CUDA/NCCL model.
//
// A library handle (or cuFFT plan) is an object with a stream in it: made on the legacy default
// stream, bound to another by its SetStream, and every call taking the handle is work on the
// stream last bound. cuBLASLt and CUB take the stream as an argument instead, thrust in its
// execution policy. cuSPARSE's descriptors are objects holding device pointers: the calls name
// the descriptors, and access the memory they hold.
//
// Kept apart from kApiFunctions: the tracer sees the kernels and copies these libraries launch
// through the CUDA runtime it already decodes, so only the analyzer, which reads the source, needs
// these rows today; a tracer wanting a call's meaning (which argument a library writes) looks it
// up here by the same name.
#pragma once

#include "streamrace/api_model/api_model.h"

#include <cstddef>
#include <string_view>

namespace streamrace::api_model {

namespace detail {
#define STREAMRACE_ARG(parameter, meaning_)                                                        \
  ApiArg {                                                                                         \
    #parameter, ArgMeaning::meaning_                                                               \
  }
#define STREAMRACE_LIBRARY_API(name, family, role, hostSync, ...)                                  \
  inline constexpr auto name##_args = makeArgs(__VA_ARGS__);
#define STREAMRACE_THRUST_API(name, form, hostSync, ...)                                           \
  inline constexpr auto thrust_##name##_##form##_args = makeArgs(__VA_ARGS__);
#define STREAMRACE_CUB_API(scope, name, form, ...)                                                 \
  inline constexpr auto cub_##scope##_##name##_##form##_args = makeArgs(__VA_ARGS__);
#include "streamrace/api_model/library_api.def"
#include "streamrace/api_model/parallel_algorithms.def"
#undef STREAMRACE_LIBRARY_API
#undef STREAMRACE_THRUST_API
#undef STREAMRACE_CUB_API
} // namespace detail

inline constexpr ApiFunction kLibraryFunctions[] = {
#define STREAMRACE_LIBRARY_API(name, family_, role_, hostSync_, ...)                               \
  ApiFunction{#name,        ApiFamily::family_, ApiRole::role_, HostSync::hostSync_,               \
              std::nullopt, detail::name##_args},
#include "streamrace/api_model/library_api.def"
#undef STREAMRACE_LIBRARY_API
};

// Thrust rows are named as the algorithm ("sort"), CUB rows as scope and algorithm
// ("DeviceReduce::Sum").
inline constexpr ApiFunction kParallelAlgorithms[] = {
#define STREAMRACE_THRUST_API(name, form, hostSync_, ...)                                          \
  ApiFunction{#name,                                                                               \
              ApiFamily::Thrust,                                                                   \
              ApiRole::LibraryWork,                                                                \
              HostSync::hostSync_,                                                                 \
              std::nullopt,                                                                        \
              detail::thrust_##name##_##form##_args},
#define STREAMRACE_CUB_API(scope, name, form, ...)                                                 \
  ApiFunction{#scope "::" #name, ApiFamily::Cub, ApiRole::LibraryWork,                             \
              HostSync::Async,   std::nullopt,   detail::cub_##scope##_##name##_##form##_args},
#include "streamrace/api_model/parallel_algorithms.def"
#undef STREAMRACE_THRUST_API
#undef STREAMRACE_CUB_API
#undef STREAMRACE_ARG
};

inline constexpr std::span<const ApiFunction> libraryFunctions() {
  return kLibraryFunctions;
}

inline constexpr std::span<const ApiFunction> parallelAlgorithms() {
  return kParallelAlgorithms;
}

// The row for a library function as called: cublas_v2.h's `_v2` names and the 64-bit-index `_64`
// forms are the row of the name without them. Null for anything else.
constexpr const ApiFunction* findLibraryFunction(std::string_view name) {
  if (name.ends_with("_64")) name.remove_suffix(3);
  if (name.ends_with("_v2")) name.remove_suffix(3);
  for (const ApiFunction& function : kLibraryFunctions)
    if (function.name == name) return &function;
  return nullptr;
}

// The thrust row for a call of `name` with `argumentCount` arguments: the form with the most
// parameters the call has (parallel_algorithms.def).
constexpr const ApiFunction* findThrustAlgorithm(std::string_view name, std::size_t argumentCount) {
  const ApiFunction* best = nullptr;
  for (const ApiFunction& function : kParallelAlgorithms)
    if (function.family == ApiFamily::Thrust && function.name == name &&
        function.args.size() <= argumentCount &&
        (!best || function.args.size() > best->args.size()))
      best = &function;
  return best;
}

// The CUB row for `scope::name` (DeviceReduce::Sum) called with exactly `argumentCount` arguments.
constexpr const ApiFunction* findCubAlgorithm(std::string_view scope, std::string_view name,
                                              std::size_t argumentCount) {
  for (const ApiFunction& function : kParallelAlgorithms) {
    if (function.family != ApiFamily::Cub || function.args.size() != argumentCount) continue;
    const std::string_view qualified = function.name;
    if (qualified.size() == scope.size() + 2 + name.size() && qualified.starts_with(scope) &&
        qualified.substr(scope.size(), 2) == "::" && qualified.ends_with(name))
      return &function;
  }
  return nullptr;
}

} // namespace streamrace::api_model
