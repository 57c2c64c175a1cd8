// Reads trace files back: every complete record of a truncated or damaged file is recovered,
// and the reader says where and why it stopped.
#pragma once

#include "streamrace/runtime/event.h"
#include "streamrace/runtime/symbols.h"

#include <string>
#include <vector>

namespace streamrace::trace {

struct TraceFile {
  std::string path;
  std::uint64_t pid = 0;
  std::uint64_t start_time_ns = 0;
  std::vector<Event> events; // names and call sites already mapped into the caller's table
  std::uint64_t records = 0;
  // Empty when the file was read to its end; otherwise where reading stopped and why.
  std::string problem;
};

// Throws std::runtime_error when the file cannot be read at all or is not a trace of a
// version this reader knows. Events get `address_space` (one per file: one per process).
TraceFile read_trace(const std::string& path, std::uint32_t address_space, SymbolTable& symbols);

// The trace files named by `paths`: files as given, directories for their *.srtrace files.
// Throws std::runtime_error naming a path that does not exist or holds no trace.
std::vector<std::string> find_trace_files(const std::vector<std::string>& paths);

// Every file's events in one sequence ordered by time (ties: file order, then record order).
std::vector<Event> merge_by_time(std::vector<TraceFile>& files);

} // namespace streamrace::trace
