// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The entry point streamrace/annotations.h looks up in a traced process, and the judgement every
// kernel annotation goes through.
#include "kernels/annotation_entry.h"

#include "kernels/kernel_launches.h"
#include "recorder.h"

#include "streamrace/annotations.h"

#include <cstdio>
#include <string>
#include <type_traits>

namespace streamrace::tracer {

int accept_kernel_annotation(const void* function, std::string_view name,
                             std::string_view specification, std::string_view origin) {
  Recorder* tracer = Recorder::get();
  if (tracer == nullptr) return 0;
  try {
    const std::string error =
        KernelLaunchReader::instance().annotate(function, name, specification);
    if (error.empty()) return 1;
    std::fprintf(stderr, "streamrace: warning: %.*s ignored: %s\n", static_cast<int>(origin.size()),
                 origin.data(), error.c_str());
    return -1;
  } catch (const std::exception& error) {
    tracer->disable(error.what());
    return 0;
  }
}

} // namespace streamrace::tracer

extern "C" __attribute__((visibility("default"))) int
streamraceAnnotateKernel(const void* kernel, const char* specification) {
  using namespace streamrace::tracer;
  if (Recorder::get() == nullptr) return 0;
  if (kernel == nullptr || specification == nullptr) {
    std::fprintf(stderr, "streamrace: warning: a kernel annotation without a kernel or a "
                         "specification is ignored\n");
    return -1;
  }
  const std::string origin = std::string("kernel annotation \"") + specification + "\"";
  return accept_kernel_annotation(kernel, {}, specification, origin);
}

// The header's callers reach this function through a pointer of the header's type.
static_assert(std::is_same_v<decltype(&streamraceAnnotateKernel), StreamraceAnnotateKernelFn>);
