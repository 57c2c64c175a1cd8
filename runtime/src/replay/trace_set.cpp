// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/replay/trace_set.h"

#include "streamrace/trace/trace_format.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string_view>

namespace streamrace {

namespace {

namespace fs = std::filesystem;

void warn(const std::string& path, const std::string& problem) {
  std::fprintf(stderr, "streamrace: warning: trace '%s': %s\n", path.c_str(), problem.c_str());
}

// Why a file that starts like a trace holds no complete header (a process killed before its
// first flush leaves one), or empty when it has a header or is no trace at all (the reader
// names those).
std::string missing_header(const std::string& path) {
  std::error_code error;
  const std::uintmax_t size = fs::file_size(path, error);
  if (error || size >= trace::kFileHeaderSize) return {};
  if (size == 0)
    return "the file is empty (was the process killed before it wrote anything?); skipped";
  std::string start(static_cast<std::size_t>(size), '\0');
  std::ifstream(path, std::ios::binary).read(start.data(), static_cast<std::streamsize>(size));
  const std::size_t magic = std::min(start.size(), sizeof(trace::kMagic));
  if (start.compare(0, magic, std::string_view(trace::kMagic, magic)) != 0) return {};
  return "the file ends at byte " + std::to_string(size) + ", inside its " +
         std::to_string(trace::kFileHeaderSize) +
         "-byte header (was the writer killed mid-write?); skipped";
}

// The trace reader's own errors cannot say why a path is unusable (permissions, most often):
// an unreadable folder would pass for an empty one and a file it cannot stat for a missing one.
void check_readable(const std::string& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (error && error != std::errc::no_such_file_or_directory)
    throw std::runtime_error("cannot read '" + path + "': " + error.message());
  if (fs::is_directory(status)) {
    // Opening the folder's listing is the test that it can be read.
    const fs::directory_iterator listing(path, error);
    if (error) throw std::runtime_error("cannot read folder '" + path + "': " + error.message());
  } else if (fs::exists(status) && !fs::is_regular_file(status)) {
    // The reader measures and seeks in the file: a pipe would look empty, hence "bad header".
    throw std::runtime_error("'" + path +
                             "' is not a regular file (a pipe or a device); save the trace to a "
                             "file first");
  } else if (fs::exists(status)) {
    const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                               &std::fclose);
    if (!file)
      throw std::runtime_error("cannot read trace file '" + path + "': " + std::strerror(errno));
  }
}

} // namespace

TraceSet open_trace_set(const std::vector<std::string>& paths, SymbolTable& symbols) {
  TraceSet set;
  std::vector<trace::TraceReader>& readers = set.readers;
  std::map<fs::path, std::string> opened; // canonical path -> as named
  for (const std::string& path : paths)
    check_readable(path);
  for (const std::string& path : trace::find_trace_files(paths)) {
    check_readable(path);
    std::error_code error;
    fs::path canonical = fs::weakly_canonical(path, error);
    if (error) canonical = path;
    if (auto [it, inserted] = opened.emplace(canonical, path); !inserted) {
      warn(path, it->second == path ? "named twice; read once"
                                    : "the same file as '" + it->second + "'; read once");
      continue;
    }
    if (std::string problem = missing_header(path); !problem.empty()) {
      warn(path, problem);
      set.skipped.push_back(TraceSource{path, 0, problem});
      continue;
    }
    trace::TraceReader& reader =
        readers.emplace_back(path, static_cast<std::uint32_t>(readers.size()), symbols);
    for (std::size_t i = 0; i + 1 < readers.size(); ++i) {
      if (readers[i].pid() != reader.pid() || readers[i].start_time_ns() != reader.start_time_ns())
        continue;
      warn(path, "a copy of '" + readers[i].path() + "' (process " + std::to_string(reader.pid()) +
                     ", same start time); read once");
      readers.pop_back();
      break;
    }
  }
  if (readers.empty())
    throw std::runtime_error("no trace to replay: every file named is empty or cut inside its "
                             "header");
  return set;
}

std::vector<TraceSource> read_sources(const TraceSet& set) {
  std::vector<TraceSource> sources = set.skipped;
  for (const trace::TraceReader& file : set.readers) {
    sources.push_back(TraceSource{file.path(), file.records(), file.problem()});
    if (!file.problem().empty()) warn(file.path(), file.problem());
  }
  return sources;
}

} // namespace streamrace
