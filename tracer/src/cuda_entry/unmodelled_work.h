// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Runtime calls the API model does not hold but whose family enqueues work that moves or
// overwrites bytes, or orders streams: copies (batched, peer, array and 3D forms), sets,
// launches, discards, captures into a graph and changes to a capture's dependencies, external
// semaphores. A newer toolkit adds such calls; the tracer would skip their work without a word.
// Prefetches, attachments and graph uploads move pages or descriptors, never the program's
// values, and are left alone.
#pragma once

#include <string_view>

namespace streamrace::tracer {

// Whether `name` (as CUPTI names a runtime call) is of such a family.
bool is_unmodelled_work(std::string_view name);

// One warning line the first time the process makes such a call, per call name.
void warn_of_unmodelled_work(std::string_view name);

} // namespace streamrace::tracer
