// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/trace/trace_sink.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace streamrace::trace {

FileTraceSink::FileTraceSink(std::string path) : path_(std::move(path)) {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw std::runtime_error("cannot create trace file '" + path_ + "': " + std::strerror(errno));
}

FileTraceSink::~FileTraceSink() {
  ::close(fd_);
}

std::size_t FileTraceSink::write_some(std::string_view bytes) {
  for (;;) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw std::runtime_error("cannot write trace file '" + path_ +
                               "': " + std::strerror(n < 0 ? errno : ENOSPC));
    return static_cast<std::size_t>(n);
  }
}

} // namespace streamrace::trace
