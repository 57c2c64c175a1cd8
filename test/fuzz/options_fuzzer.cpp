// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// libFuzzer target: STREAMRACE_OPTIONS text parses or names its error; never a crash.
#include "streamrace/engine/options.h"

#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  streamrace::Options options;
  (void)streamrace::parse_options(std::string_view(reinterpret_cast<const char*>(data), size),
                                  options);
  return 0;
}
