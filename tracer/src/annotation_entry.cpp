// The entry point streamrace/annotations.h looks up in a traced process.
#include "kernel_launches.h"
#include "tracer.h"

#include "streamrace/annotations.h"

#include <cstdio>
#include <type_traits>

extern "C" __attribute__((visibility("default"))) int
streamraceAnnotateKernel(const void* kernel, const char* specification) {
  using namespace streamrace::tracer;
  Tracer* tracer = Tracer::get();
  if (tracer == nullptr) return 0;
  if (kernel == nullptr || specification == nullptr) {
    std::fprintf(stderr, "streamrace: warning: a kernel annotation without a kernel or a "
                         "specification is ignored\n");
    return -1;
  }
  try {
    const std::string error = KernelLaunchReader::instance().annotate(kernel, specification);
    if (error.empty()) return 1;
    std::fprintf(stderr, "streamrace: warning: kernel annotation \"%s\" ignored: %s\n",
                 specification, error.c_str());
    return -1;
  } catch (const std::exception& error) {
    tracer->disable(error.what());
    return 0;
  }
}

// The header's callers reach this function through a pointer of the header's type.
static_assert(std::is_same_v<decltype(&streamraceAnnotateKernel), StreamraceAnnotateKernelFn>);
