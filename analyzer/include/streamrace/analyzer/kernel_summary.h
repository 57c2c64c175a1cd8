// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Kernel summaries: for each __global__ function, which pointer parameters the kernel reads,
// writes or both. The analyzer uses them at launches; the tracer loads them as JSON so kernel
// accesses become exact.
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

// How far past a pointer parameter the kernel reaches: it indexes the parameter only as `p[i]`
// with `i < n` guarding each access (an enclosing `if` or loop condition, or an earlier
// `if (i >= n) return;`), `n` being integer parameter `countParam`: below n elements.
struct ParamExtent {
  unsigned countParam = 0;
  std::int64_t elementBytes = 1;
  bool operator==(const ParamExtent&) const = default;
};

struct KernelSummary {
  std::string name;        // as written
  std::string mangledName; // the device symbol (what __cudaRegisterFunction names)
  std::vector<std::string> paramNames;
  std::vector<ParamAccess> paramAccess; // per parameter; None for non-pointers
  // Per parameter; none where the kernel's indexing bounds nothing (to the allocation's end).
  std::vector<std::optional<ParamExtent>> paramExtent;
};

using KernelSummaries = std::map<const clang::FunctionDecl*, KernelSummary>;

// Summaries of every __global__ function with a body in the translation unit.
KernelSummaries summarizeKernels(clang::ASTContext& context);

llvm::json::Value kernelSummariesToJson(const std::vector<KernelSummary>& kernels);

const char* paramAccessName(ParamAccess access);

} // namespace streamrace::analyzer
