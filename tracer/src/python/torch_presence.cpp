// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "python/torch_presence.h"

#include "python/python_api.h"
#include "stacks/python_stacks.h"

#include <cstdio>
#include <dlfcn.h>

namespace streamrace::tracer {

namespace {

// libtorch_python is what `import torch` loads: its soname answers RTLD_NOLOAD once loaded,
// whatever path the wheel loaded it from.
bool torch_loaded() {
  void* library = dlopen("libtorch_python.so", RTLD_NOLOAD | RTLD_LAZY);
  if (library == nullptr) return false;
  dlclose(library);
  return true;
}

} // namespace

void warn_if_torch_ran_unobserved(const Settings& settings) {
  if (!settings.run.torch_ops || PythonApi::get() == nullptr || !torch_loaded() ||
      PythonStacks::instance().package_attached())
    return;
  std::fprintf(stderr,
               "streamrace: warning: this process ran PyTorch without streamrace.torch (the "
               "Python package was not on its PYTHONPATH: `streamrace run` puts "
               "<prefix>/lib/streamrace/python there when it is installed); its operators' "
               "kernels were checked with approximate extents and without Python lines\n");
}

} // namespace streamrace::tracer
