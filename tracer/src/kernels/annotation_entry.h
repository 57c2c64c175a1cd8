// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Kernel annotations reach the tracer two ways — the entry point streamrace/annotations.h looks
// up, and NVTX marks in the "streamrace" domain — and both are judged here, alike.
#pragma once

#include <string_view>

namespace streamrace::tracer {

// Annotates the kernel whose host stub (or driver function handle) is `function` and/or whose
// launches report it as `name`; either may be empty. `origin` names the annotation in the one
// stderr line a malformed one gets. Returns 1 when accepted, -1 when malformed (and said so),
// 0 when the process is not traced.
int accept_kernel_annotation(const void* function, std::string_view name,
                             std::string_view specification, std::string_view origin);

} // namespace streamrace::tracer
