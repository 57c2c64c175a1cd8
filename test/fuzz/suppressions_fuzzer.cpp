// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// libFuzzer target: a suppressions file parses or is refused with a message naming the line,
// and glob matching terminates on any pattern.
#include "streamrace/report/suppressions.h"

#include <cstdint>
#include <stdexcept>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const streamrace::Suppressions parsed = streamrace::Suppressions::parse(text, "fuzz.supp");
    for (const auto& rule : parsed.rules())
      (void)streamrace::glob_match(rule.pattern, "release_to_secondary hpz_step.cpp");
  } catch (const std::invalid_argument&) {
    // A refused line is a correct answer.
  }
  return 0;
}
