// Files a subcommand writes its result to (--output), opened before the replay so an unwritable
// path is reported at once, with the system's reason, instead of after a long replay.
#pragma once

#include <fstream>
#include <string>

namespace streamrace::cli {

class OutputFile {
public:
  // Throws std::runtime_error naming the path and why it cannot be written.
  explicit OutputFile(std::string path);

  // Throws std::runtime_error when the text does not reach the file (a full disk, say).
  void write(const std::string& text);
  const std::string& path() const { return path_; }

private:
  std::string path_;
  std::ofstream file_;
};

} // namespace streamrace::cli
