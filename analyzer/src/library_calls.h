// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What a call into a CUDA math library (cuBLAS, cuBLASLt, cuFFT, cuSPARSE, cuDNN) or a parallel
// algorithm (thrust with a CUDA execution policy, CUB's device-wide algorithms) does, read from the
// api_model tables (streamrace/api_model/library_api.h) into the analyzer's CallEffect.
#pragma once

#include "call_model.h"

#include <optional>

namespace clang {
class ASTContext;
class CallExpr;
class FunctionDecl;
} // namespace clang

namespace streamrace::analyzer {

// The effect of `call` to `callee` when a library table covers it, else nullopt (and for thrust
// algorithms on a host policy, which are host code).
std::optional<CallEffect> libraryCallEffect(const clang::CallExpr& call,
                                            const clang::FunctionDecl& callee,
                                            clang::ASTContext& context);

} // namespace streamrace::analyzer
