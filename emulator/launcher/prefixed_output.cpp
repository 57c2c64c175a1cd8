// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "prefixed_output.h"

#include <unistd.h>

#include <cerrno>

namespace streamrace::emu::launcher {

PrefixedOutput::PrefixedOutput(int sourceFd, int destinationFd, std::string prefix)
    : sourceFd_(sourceFd), destinationFd_(destinationFd), prefix_(std::move(prefix)) {}

PrefixedOutput::~PrefixedOutput() {
  if (sourceFd_ >= 0) {
    close(sourceFd_);
  }
}

void PrefixedOutput::emit(const std::string& line) {
  const std::string text = prefix_ + line;
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t result = write(destinationFd_, text.data() + written, text.size() - written);
    if (result < 0 && errno == EINTR) {
      continue;
    }
    if (result <= 0) {
      return; // our own output is gone; nothing useful left to do with the line
    }
    written += static_cast<std::size_t>(result);
  }
}

void PrefixedOutput::pump() {
  char buffer[4096];
  const ssize_t received = read(sourceFd_, buffer, sizeof(buffer));
  if (received < 0 && (errno == EINTR || errno == EAGAIN)) {
    return;
  }
  if (received <= 0) {
    if (!pending_.empty()) {
      emit(pending_ + "\n");
      pending_.clear();
    }
    close(sourceFd_);
    sourceFd_ = -1;
    return;
  }
  pending_.append(buffer, static_cast<std::size_t>(received));
  std::size_t start = 0;
  for (std::size_t newline = pending_.find('\n'); newline != std::string::npos;
       newline = pending_.find('\n', start)) {
    emit(pending_.substr(start, newline + 1 - start));
    start = newline + 1;
  }
  pending_.erase(0, start);
}

} // namespace streamrace::emu::launcher
