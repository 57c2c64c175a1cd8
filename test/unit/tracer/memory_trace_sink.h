// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Trace sinks for in-process tests of the tracer: the bytes a tracer writes land in a buffer the
// test owns and reads back with the runtime's trace reader, while the tracer runs or after.
#pragma once

#include "streamrace/trace/trace_sink.h"

#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>

namespace streamrace::tracer::test {

// What the tracer thread wrote so far; other threads may read it meanwhile.
class TraceBytes {
public:
  void append(std::string_view bytes) {
    std::lock_guard lock(mutex_);
    bytes_ += bytes;
  }
  // A stream over the bytes written so far, for trace::TraceReader.
  std::unique_ptr<std::istream> snapshot() const {
    std::lock_guard lock(mutex_);
    return std::make_unique<std::istringstream>(bytes_);
  }

private:
  mutable std::mutex mutex_;
  std::string bytes_;
};

// Takes every byte it is given into `bytes`, which outlives it.
class MemoryTraceSink final : public trace::TraceSink {
public:
  explicit MemoryTraceSink(TraceBytes& bytes) : bytes_(bytes) {}
  std::size_t write_some(std::string_view bytes) override {
    bytes_.append(bytes);
    return bytes.size();
  }

private:
  TraceBytes& bytes_;
};

} // namespace streamrace::tracer::test
