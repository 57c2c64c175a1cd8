// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cuda_entry/unmodelled_work.h"

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <set>
#include <string>

namespace streamrace::tracer {

namespace {

constexpr std::string_view kWorkFamilies[] = {
    "cudaMemcpy",
    "cudaMemset",
    "cudaLaunch",
    "cudaMemDiscard",
    "cudaStreamBeginCaptureToGraph",
    "cudaStreamUpdateCaptureDependencies",
    "cudaSignalExternalSemaphores",
    "cudaWaitExternalSemaphores",
};

} // namespace

bool is_unmodelled_work(std::string_view name) {
  // The runtime's internal entry points (`__cudaLaunchKernel`) belong to the same families.
  name.remove_prefix(std::min(name.find_first_not_of('_'), name.size()));
  for (std::string_view family : kWorkFamilies)
    if (name.starts_with(family)) return true;
  return false;
}

void warn_of_unmodelled_work(std::string_view name) {
  if (!is_unmodelled_work(name)) return;
  static std::mutex mutex;
  static std::set<std::string, std::less<>> warned;
  const std::lock_guard lock(mutex);
  if (!warned.emplace(name).second) return;
  std::fprintf(stderr,
               "streamrace: warning: %.*s is not modelled: the work it enqueues is not checked\n",
               static_cast<int>(name.size()), name.data());
}

} // namespace streamrace::tracer
