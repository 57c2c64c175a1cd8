// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Where a TraceWriter's bytes go: a per-process trace file, or whatever a test reads them back
// from. The writer hands its sink the file's bytes in order, whole records at a time.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace streamrace::trace {

class TraceSink {
public:
  virtual ~TraceSink() = default;
  // Takes a prefix of `bytes`, one byte at least, and returns its length: the writer hands the
  // rest again. Throws std::runtime_error naming the destination when it can take none; the
  // writer keeps what was not taken.
  virtual std::size_t write_some(std::string_view bytes) = 0;
};

// A trace file, written through one write(2) per call so that a process killed at any moment
// leaves whole records behind.
class FileTraceSink final : public TraceSink {
public:
  // Creates or truncates `path`; throws std::runtime_error naming the path and the reason.
  explicit FileTraceSink(std::string path);
  ~FileTraceSink() override;
  FileTraceSink(const FileTraceSink&) = delete;
  FileTraceSink& operator=(const FileTraceSink&) = delete;

  std::size_t write_some(std::string_view bytes) override;

private:
  std::string path_;
  int fd_ = -1;
};

} // namespace streamrace::trace
