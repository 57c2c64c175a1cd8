// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What library handles and descriptors hold along a path (library_api.h): a cuBLAS, cuFFT,
// cuSPARSE or cuDNN handle holds the stream its work runs on, a cuSPARSE descriptor the device
// pointers it describes. Both are kept as members of the object the handle's key names, in
// FlowState::fieldAliases under member names no C++ field can have, so joins (a binding made on
// one path only is unknown after it), renames and lifetimes treat them like the fields they are.
#pragma once

#include "flow_state.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace streamrace::analyzer {

// The member of a descriptor that holds a pointer (library_calls.cpp reads them by these).
inline constexpr llvm::StringLiteral kDescribedOffsets = ".<offsets>";
inline constexpr llvm::StringLiteral kDescribedIndices = ".<indices>";
inline constexpr llvm::StringLiteral kDescribedValues = ".<values>";

// `handle` runs its work on the stream `element` (its key with indices) from now on; nullopt: on
// a stream the analysis cannot name, so its work is not followed.
void bindStream(llvm::StringRef handle, const std::optional<std::string>& element,
                FlowState& state);

// The stream (with indices) last bound to `handle` on this path, or nullopt where this path has
// not bound it: a handle made elsewhere, whose stream could be any.
std::optional<std::string> boundStream(llvm::StringRef handle, const FlowState& state);

// `descriptor`'s `member` holds the memory `buffer` names from now on (nullopt: unknown memory).
void describe(llvm::StringRef descriptor, llvm::StringRef member,
              const std::optional<std::string>& buffer, FlowState& state);

} // namespace streamrace::analyzer
