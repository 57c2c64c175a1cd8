// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Kernel summaries: for each __global__ function, which pointer parameters (and pointers inside
// struct parameters) the kernel reads, writes or both. The analyzer uses them at launches; the
// tracer loads them as JSON so kernel accesses become exact.
#pragma once

#include "llvm/Support/JSON.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace streamrace::analyzer {

// Atomic: only ever the target of atomic read-modify-write operations (atomicAdd, atomicCAS...),
// which do not race with each other.
enum class ParamAccess { None, Read, Write, ReadWrite, Atomic };

// How far past a pointer the kernel reaches.
//   Count: it indexes the pointer only as `p[i]` with `i < n` guarding each access (an enclosing
//     `if` or loop condition, or an earlier `if (i >= n) return;`), `n` being integer parameter
//     `countParam` or, for a pointer held in a struct passed by value, an integer member of that
//     struct (`countOffset` bytes into parameter `countParam`, `countBytes` wide): below n
//     elements of `elementBytes`.
//   Bytes: only at constant indices (`*p`, `p[3]`, `p->m`): the first `elementBytes` bytes.
//   Threads: at the thread's 1-D grid index (`blockIdx.x * blockDim.x + threadIdx.x`): one
//     element of `elementBytes` per thread the launch has in x.
//   Rows: as a 2-D grid `p[row * width + col]`, row counting up from integer parameter
//     `firstRowParam` at the thread's y index and guarded below `endRowParam`, the column kept
//     inside a row by its guard (`col < width - k`): rows first - rowsBefore up to end + rowsAfter
//     (`(row - 1) * width` reads the row above), each `widthParam` elements wide. Analyzer only:
//     the tracer's JSON gets no extent for it (the whole allocation).
struct ParamExtent {
  enum class Kind { Count, Bytes, Threads, Rows };
  Kind kind = Kind::Count;
  unsigned countParam = 0;
  std::int64_t elementBytes = 1;
  std::optional<std::int64_t> countOffset;
  std::int64_t countBytes = 0;
  unsigned firstRowParam = 0;
  unsigned endRowParam = 0;
  unsigned widthParam = 0;
  std::int64_t rowsBefore = 0;
  std::int64_t rowsAfter = 0;
  bool operator==(const ParamExtent&) const = default;
};

// A pointer a struct parameter passed by value holds, `offset` bytes into it.
struct FieldSummary {
  std::string name; // the member path as written: "inputs.data"
  std::int64_t offset = 0;
  ParamAccess access = ParamAccess::None;
  std::optional<ParamExtent> extent;
};

struct KernelSummary {
  std::string name;        // as written
  std::string mangledName; // the device symbol (what __cudaRegisterFunction names)
  std::vector<std::string> paramNames;
  std::vector<ParamAccess> paramAccess; // per parameter; None for non-pointers
  // Per parameter; none where the kernel's indexing bounds nothing (to the allocation's end).
  std::vector<std::optional<ParamExtent>> paramExtent;
  // Per parameter: the `bool` parameter every access through it is made under (`if (flag)`, or
  // `flag &&` in the test), which the kernel never changes: with that argument false it does not
  // touch the parameter's memory. Analyzer only (not in the JSON the tracer reads).
  std::vector<std::optional<unsigned>> paramGuard;
  // Per parameter: for a struct passed by value that the kernel uses only through its members,
  // every pointer it holds (the parameter's access is then theirs merged); else empty. A struct
  // used whole (copied, passed on, its address taken) is read_write with no fields.
  std::vector<std::vector<FieldSummary>> paramFields;
};

using KernelSummaries = std::map<const clang::FunctionDecl*, KernelSummary>;

// Summaries of every __global__ function with a body in the translation unit.
KernelSummaries summarizeKernels(clang::ASTContext& context);

llvm::json::Value kernelSummariesToJson(const std::vector<KernelSummary>& kernels);

const char* paramAccessName(ParamAccess access);

} // namespace streamrace::analyzer
