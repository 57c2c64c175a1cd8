// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// libFuzzer target: any bytes given to the trace reader as a file either decode into events or
// stop with a message; never a crash, a hang or a leak.
#include "streamrace/trace/trace_reader.h"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = "/tmp/streamrace-fuzz-" + std::to_string(::getpid()) + ".srtrace";
  if (FILE* file = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, file);
    std::fclose(file);
  }
  try {
    streamrace::SymbolTable symbols;
    const auto trace = streamrace::trace::read_trace(path, 0, symbols);
    for (const auto& event : trace.events)
      (void)event.payload.index();
  } catch (const std::runtime_error&) {
    // A refused file is a correct answer.
  }
  return 0;
}
