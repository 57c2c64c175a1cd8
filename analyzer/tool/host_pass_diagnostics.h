// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Errors clang gives where nvcc's front end accepts the code, and clang recovers with the meaning
// nvcc gives it: a `__shared__` variable of a class type with a constructor
// (`__shared__ cuda::pipeline_shared_state<...> state;`, an error for clang, a warning for nvcc,
// which leaves it uninitialized), a dependent type name used without `typename` (NCCL's device
// headers, instantiated by kernels), an `alignas` weaker than its type's alignment
// (TransformerEngine's `alignas(64) CUtensorMap`, aligned to 128 since CUDA 13) or written after
// `__device__`, a `__device__` function named in host code without being called (its address).
// Such errors are dropped instead of failing the file.
#pragma once

#include "clang/Basic/Diagnostic.h"

#include <memory>

namespace streamrace::analyzer {

// Installs, in front of the engine's current client, a client that drops those errors and
// forwards everything else; the file then counts as compiled when nothing else failed. The
// dropped errors do not count towards `errorLimit` (the compilation's -ferror-limit, 0: none).
void dropErrorsNvccAccepts(clang::DiagnosticsEngine& diagnostics, unsigned errorLimit);

// A client that prints nothing and counts the errors nvcc would give too (getNumErrors): for
// files parsed only to be looked into (the other translation units of a compilation database).
class SilentErrorCounter : public clang::DiagnosticConsumer {
public:
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic& info) override;
};

} // namespace streamrace::analyzer
