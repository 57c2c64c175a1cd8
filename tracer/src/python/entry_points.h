// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The C entry points that code outside the tracer calls (the Python package, the compiled
// operator observer) all run their work under one guard: the caller never sees an exception of
// ours, and arguments it got wrong cost a warning, not the tracer.
#pragma once

#include "recorder.h"

#include <cstdio>
#include <exception>

namespace streamrace::tracer {

// Runs `body(tracer)`. Returns 1 when it did its work; 0 without a tracer, or when it threw (the
// tracer then disables itself with the exception's message); -1 when `body` returned false,
// finding its arguments malformed (a warning names `what`).
template <typename Body> int run_entry_point(const char* what, Body&& body) {
  Recorder* tracer = Recorder::get();
  if (tracer == nullptr) return 0;
  try {
    if (body(*tracer)) return 1;
    std::fprintf(stderr, "streamrace: warning: %s: malformed arguments ignored\n", what);
    return -1;
  } catch (const std::exception& error) {
    tracer->disable(error.what());
    return 0;
  }
}

} // namespace streamrace::tracer
