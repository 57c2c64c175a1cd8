// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Files a subcommand writes its result to (--output), opened before the replay so an unwritable
// path is reported at once, with the system's reason, instead of after a long replay.
#pragma once

#include <fstream>
#include <string>
#include <vector>

namespace streamrace::cli {

class OutputFile {
public:
  // Throws std::runtime_error naming the path and why it cannot be written, or why writing it
  // would destroy input: a trace file named `.srtrace` (a report there would be taken for a
  // trace later) or the very file one of `inputs` (files or folders of traces) names.
  OutputFile(std::string path, const std::vector<std::string>& inputs);

  // Throws std::runtime_error when the text does not reach the file (a full disk, say).
  void write(const std::string& text);
  const std::string& path() const { return path_; }

private:
  std::string path_;
  std::ofstream file_;
};

} // namespace streamrace::cli
