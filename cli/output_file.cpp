// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "output_file.h"

#include "streamrace/trace/trace_format.h"

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

OutputFile::OutputFile(std::string path, const std::vector<std::string>& inputs)
    : path_(std::move(path)) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (fs::is_directory(path_, error))
    throw std::runtime_error("cannot write '" + path_ + "': it is a directory");
  if (fs::path(path_).extension() == trace::kTraceFileExtension)
    throw std::runtime_error("will not write a report to '" + path_ + "': *" +
                             trace::kTraceFileExtension +
                             " names trace files (it would be read as one, or replace one); give "
                             "it another name");
  for (const std::string& input : inputs)
    if (fs::equivalent(path_, input, error))
      throw std::runtime_error("will not write a report to '" + path_ +
                               "': it is an input of this command");
  errno = 0;
  file_.open(path_, std::ios::binary | std::ios::trunc);
  if (!file_) throw std::runtime_error("cannot write '" + path_ + "': " + reason());
}

void OutputFile::write(const std::string& text) {
  errno = 0;
  file_ << text;
  finish();
}

std::ostream& OutputFile::stream() {
  errno = 0;
  return file_;
}

void OutputFile::finish() {
  file_.flush();
  if (!file_) throw std::runtime_error("cannot write '" + path_ + "': " + reason());
}

} // namespace streamrace::cli
