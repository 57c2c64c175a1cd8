// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Forwards one rank's output pipe to the launcher's own stdout or stderr, a whole line at a time
// and prefixed with the rank, so lines of concurrent ranks never interleave mid-line.
#pragma once

#include <string>

namespace streamrace::emu::launcher {

class PrefixedOutput {
public:
  PrefixedOutput(int sourceFd, int destinationFd, std::string prefix);
  ~PrefixedOutput();
  PrefixedOutput(const PrefixedOutput&) = delete;
  PrefixedOutput& operator=(const PrefixedOutput&) = delete;

  int fd() const { return sourceFd_; }
  bool open() const { return sourceFd_ >= 0; }
  // Reads what is available; at end of file writes any unterminated last line and closes.
  void pump();

private:
  void emit(const std::string& line);

  int sourceFd_;
  int destinationFd_;
  std::string prefix_;
  std::string pending_;
};

} // namespace streamrace::emu::launcher
