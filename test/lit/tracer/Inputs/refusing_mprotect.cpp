// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A kernel that refuses to give pages their access back, as Linux refuses (ENOMEM) a process at
// its mapping limit, vm.max_map_count, a change that would split a mapping. Preloaded after the
// tracer, its mprotect takes the tracer's calls: the first STREAMRACE_TEST_REFUSED_GIVE_BACKS
// calls that give access back fail; closing pages (PROT_NONE) and everything after succeed.
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace {

// Read once, at load: mprotect is called from the tracer's fault handler.
std::atomic<long> refusals_left{[] {
  const char* count = std::getenv("STREAMRACE_TEST_REFUSED_GIVE_BACKS");
  return count != nullptr ? std::strtol(count, nullptr, 10) : 0L;
}()};

} // namespace

extern "C" __attribute__((visibility("default"))) int mprotect(void* address, size_t length,
                                                               int protection) noexcept {
  if (protection != PROT_NONE && refusals_left.fetch_sub(1) > 0) {
    errno = ENOMEM;
    return -1;
  }
  return static_cast<int>(syscall(SYS_mprotect, address, length, protection));
}
