// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The argv and envp arrays exec and posix_spawn take, pointing into strings the caller keeps
// alive: for the programs streamrace starts (the traced command, the symbolizer).
#pragma once

#include <string>
#include <vector>

namespace streamrace {

inline std::vector<char*> exec_arguments(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (std::string& text : strings)
    pointers.push_back(text.data());
  pointers.push_back(nullptr);
  return pointers;
}

} // namespace streamrace
