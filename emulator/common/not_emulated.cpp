// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "not_emulated.h"

#include <cstdio>
#include <mutex>
#include <set>
#include <string>

namespace streamrace::emu {

int reportNotEmulated(const char* name, int result, const char* resultName) {
  static std::mutex mutex;
  static std::set<std::string, std::less<>> reported;
  const std::lock_guard lock(mutex);
  if (reported.emplace(name).second) {
    std::fprintf(stderr, "streamrace emulator: %s is not emulated; it returns %s\n", name,
                 resultName);
  }
  return result;
}

} // namespace streamrace::emu
