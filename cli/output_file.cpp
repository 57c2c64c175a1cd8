#include "output_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace streamrace::cli {

namespace {

std::string reason() {
  return errno != 0 ? std::strerror(errno) : "unknown reason";
}

} // namespace

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  std::error_code error;
  if (std::filesystem::is_directory(path_, error))
    throw std::runtime_error("cannot write '" + path_ + "': it is a directory");
  errno = 0;
  file_.open(path_, std::ios::binary | std::ios::trunc);
  if (!file_) throw std::runtime_error("cannot write '" + path_ + "': " + reason());
}

void OutputFile::write(const std::string& text) {
  errno = 0;
  file_ << text;
  file_.flush();
  if (!file_) throw std::runtime_error("cannot write '" + path_ + "': " + reason());
}

} // namespace streamrace::cli
