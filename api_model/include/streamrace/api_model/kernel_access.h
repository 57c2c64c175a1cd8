// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// How a kernel uses its pointer parameters: the one contract between those who state it and the
// tracer, which turns a launch's pointer arguments into exact accesses
// (docs/report-formats.md, "Kernel accesses"). Two producers:
//   - the program, with an annotation specification per kernel ("rw[p2*4],-,-": one entry per
//     parameter) through streamrace/annotations.h or an NVTX mark;
//   - the analyzer, with a kernel summaries file (`streamrace-check --kernel-summaries=FILE`,
//     JSON, version 1) that the tracer loads with the `kernel_summaries` option.
// The analyzer writes summaries with these names and the tracer reads both forms with them.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace streamrace::api_model::kernel_access {

// What a kernel does through one parameter.
enum class ParameterAccess { None, Read, Write, ReadWrite };

// ---- Annotation specification: entries separated by ',' ----
// An entry is a mode, then optionally an extent in brackets: "[N]" (bytes from the pointer) or
// "[pK*N]" (parameter K's value times N bytes); without one, to the end of the allocation.
inline constexpr char kEntrySeparator = ',';
inline constexpr char kExtentOpen = '[';
inline constexpr char kExtentClose = ']';
inline constexpr char kParameterExtentPrefix = 'p';
inline constexpr char kParameterExtentTimes = '*';

// ---- Kernel summaries file: {"version": 1, "kernels": [{"name", "mangled_name",
// "params": [{"index", "name", "access", "fields"?}]}]}; keys as C strings, which JSON writers
// take ----
inline constexpr int kSummariesVersion = 1;
inline constexpr const char* kVersionKey = "version";
inline constexpr const char* kKernelsKey = "kernels";
inline constexpr const char* kKernelNameKey = "name";
inline constexpr const char* kMangledNameKey = "mangled_name"; // the device symbol
inline constexpr const char* kParamsKey = "params";
inline constexpr const char* kParamIndexKey = "index";
inline constexpr const char* kParamNameKey = "name";
inline constexpr const char* kParamAccessKey = "access";
// Optional, true when the parameter is only the target of atomic read-modify-writes (its access
// is then read_write): two such launches do not race with each other. Readers may ignore it.
inline constexpr const char* kParamAtomicKey = "atomic";
// Optional, where the kernel's indexing bounds what it touches through the parameter: integer
// parameter `count_param`'s value times `element_bytes` bytes from the pointer (the annotation
// extent "[pK*N]"); absent, to the end of the allocation.
inline constexpr const char* kParamCountParamKey = "count_param";
inline constexpr const char* kParamElementBytesKey = "element_bytes";
// Optional with count_param, together: the count is not parameter count_param itself but the
// integer member `count_bytes` wide at byte `count_offset` of it (a struct passed by value).
inline constexpr const char* kCountOffsetKey = "count_offset";
inline constexpr const char* kCountBytesKey = "count_bytes";
// Optional, instead of count_param: the kernel reaches the pointer only at constant indices
// (`*p`, `p[3]`): its first `bytes` bytes (the annotation extent "[N]").
inline constexpr const char* kParamBytesKey = "bytes";
// Optional, instead of count_param, with element_bytes: the kernel indexes the pointer only by
// the thread's 1-D grid index (`blockIdx.x * blockDim.x + threadIdx.x`): one element per thread
// the launch has in x (gridDim.x * blockDim.x).
inline constexpr const char* kParamThreadsKey = "threads_x";
// Optional, on a struct passed by value that the kernel uses only through its members: each
// pointer it holds, {"offset" (bytes into the argument), "name", "access"} and optionally the
// keys above. The struct's own access is then their merge; without "fields" a struct's access
// covers every word of it that points into memory.
inline constexpr const char* kParamFieldsKey = "fields";
inline constexpr const char* kFieldOffsetKey = "offset";

// Each access's word in an annotation and in a summary, in ParameterAccess order.
struct AccessWords {
  ParameterAccess access;
  std::string_view annotation;
  std::string_view summary;
};
inline constexpr std::array<AccessWords, 4> kAccessWords{{
    {ParameterAccess::None, "-", "none"},
    {ParameterAccess::Read, "r", "read"},
    {ParameterAccess::Write, "w", "write"},
    {ParameterAccess::ReadWrite, "rw", "read_write"},
}};

constexpr std::string_view annotationWord(ParameterAccess access) {
  return kAccessWords[static_cast<std::size_t>(access)].annotation;
}
constexpr std::string_view summaryWord(ParameterAccess access) {
  return kAccessWords[static_cast<std::size_t>(access)].summary;
}
constexpr std::optional<ParameterAccess> accessOfAnnotation(std::string_view word) {
  for (const AccessWords& words : kAccessWords)
    if (words.annotation == word) return words.access;
  return std::nullopt;
}
constexpr std::optional<ParameterAccess> accessOfSummary(std::string_view word) {
  for (const AccessWords& words : kAccessWords)
    if (words.summary == word) return words.access;
  return std::nullopt;
}

} // namespace streamrace::api_model::kernel_access
