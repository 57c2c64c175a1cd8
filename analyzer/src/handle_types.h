// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// CUDA's stream and event handles as C++ types: `cudaStream_t` is a pointer to the opaque struct
// CUstream_st however a program spells it (a typedef, `CUstream`, a template argument).
#pragma once

#include "llvm/ADT/StringRef.h"

namespace clang {
class QualType;
} // namespace clang

namespace streamrace::analyzer {

inline constexpr llvm::StringLiteral kStreamRecord = "CUstream_st";
inline constexpr llvm::StringLiteral kEventRecord = "CUevent_st";

// Whether `type` is a handle to `record` (kStreamRecord, kEventRecord).
bool isHandleType(clang::QualType type, llvm::StringRef record);

// Whether `type` is a stream handle.
bool isStreamType(clang::QualType type);

// Whether `type` is a handle to `record`, or a pointer or reference to one (an out-parameter, an
// array of them).
bool reachesHandle(clang::QualType type, llvm::StringRef record);

// Whether `type` is a stream handle, or a container or array of them (by its spelling).
bool holdsStreams(clang::QualType type);

} // namespace streamrace::analyzer
