// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Kernel summaries: for each __global__ function, which pointer parameters the kernel reads,
// writes or both. The analyzer uses them at launches; the tracer loads them as JSON so kernel
// accesses become exact.
#pragma once

#include "llvm/Support/JSON.h"

#include <map>
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

struct KernelSummary {
  std::string name;        // as written
  std::string mangledName; // the device symbol (what __cudaRegisterFunction names)
  std::vector<std::string> paramNames;
  std::vector<ParamAccess> paramAccess; // per parameter; None for non-pointers
};

using KernelSummaries = std::map<const clang::FunctionDecl*, KernelSummary>;

// Summaries of every __global__ function with a body in the translation unit.
KernelSummaries summarizeKernels(clang::ASTContext& context);

llvm::json::Value kernelSummariesToJson(const std::vector<KernelSummary>& kernels);

const char* paramAccessName(ParamAccess access);

} // namespace streamrace::analyzer
