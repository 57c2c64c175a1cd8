// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// How the process's CUPTI subscription starts: from the library's constructor when it is
// preloaded into a program that already has the CUDA runtime, or from InitializeInjection when
// the driver loads it through CUDA_INJECTION64_PATH; once, whichever comes first.
#include "cuda_entry/cupti_attach.h"
#include "stacks/call_sites.h"

#include <dlfcn.h>
#include <mutex>

namespace streamrace::tracer {

namespace {

// Without CUPTI the tracer sees NCCL only; the process's tracer says why with one line and
// stops. The driver loads the library inside the program's first call: inside a runtime call,
// past its enter callback, that call's exit comes without an enter (its constructor runs there
// too, within the driver's dlopen).
void attach_cupti() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (inside_cuda_runtime_frames()) count_runtime_call_in_progress();
    std::string problem;
    // Both live as long as the process: CUPTI calls back until it exits.
    static const std::unique_ptr<CuptiApi> cupti = load_cupti(problem);
    static const RecorderLookup process_tracer = [] { return Recorder::get(); };
    if (cupti != nullptr) problem = subscribe_callbacks(*cupti, process_tracer);
    if (!problem.empty())
      if (Recorder* tracer = Recorder::get()) tracer->refuse(problem);
  });
}

} // namespace

} // namespace streamrace::tracer

// Preloaded: attach now if the program already has the CUDA runtime; a runtime loaded later
// finds the tracer through CUDA_INJECTION64_PATH, which `streamrace run` also sets.
__attribute__((constructor)) static void streamrace_attach_when_preloaded() {
  if (void* runtime = dlopen("libcudart.so.13", RTLD_NOW | RTLD_NOLOAD)) {
    dlclose(runtime);
    streamrace::tracer::attach_cupti();
  }
}

// Loaded by the CUDA driver (or a stand-in) through CUDA_INJECTION64_PATH.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  streamrace::tracer::attach_cupti();
  return 1;
}
