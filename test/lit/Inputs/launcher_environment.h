// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// For the lit suites' test programs started by a launcher: the numbers it gives each process
// (RANK, WORLD_SIZE, LOCAL_RANK), or `fallback` when the program runs alone.
#pragma once

#include <cstdlib>

inline int environment_number(const char* name, int fallback) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::atoi(value) : fallback;
}
