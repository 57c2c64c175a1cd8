// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Reads trace files back: every complete record of a truncated or damaged file is recovered,
// and the reader says where and why it stopped. Files are streamed, so replaying traces far
// larger than memory holds only one read buffer per file.
#pragma once

#include "streamrace/engine/event.h"
#include "streamrace/engine/symbols.h"

#include <cstdint>
#include <istream>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace streamrace::trace {

// One trace file, event by event. Construction makes a first pass over the file: it checks
// every record's frame and checksum, maps the file's names and call sites into `symbols` (the
// tracer defines call sites again, symbolized, after the events that use them) and finds where
// the readable part ends; next() then decodes the events of that part in record order.
class TraceReader {
public:
  // Throws std::runtime_error when the file cannot be read at all or is not a trace of a
  // version this reader knows. Events get `address_space` (one per file: one per process).
  TraceReader(const std::string& path, std::uint32_t address_space, SymbolTable& symbols);
  // A trace held elsewhere (a seekable stream, such as the bytes of an in-memory sink), named
  // `path` in messages.
  TraceReader(const std::string& path, std::unique_ptr<std::istream> bytes,
              std::uint32_t address_space, SymbolTable& symbols);
  TraceReader(TraceReader&&) noexcept;
  TraceReader& operator=(TraceReader&&) noexcept;
  ~TraceReader();

  // False once every event of the readable part has been returned (or an event record turned
  // out malformed: reading stops there, as at any other damage).
  bool next(Event& event);

  const std::string& path() const { return path_; }
  std::uint64_t pid() const { return pid_; }
  std::uint64_t start_time_ns() const { return start_time_ns_; }
  // Once next() has returned false: the complete records of every type (events, names, call
  // sites), and, when reading stopped before the file's end, where and why (else empty).
  std::uint64_t records() const { return records_; }
  const std::string& problem() const { return problem_; }
  // The call sites this file's events name, as the table given to the constructor knows them
  // (a site the file defined again, symbolized, only in its later form).
  std::vector<CallSiteId> call_sites() const;

private:
  class Records;
  void stop_reading(const std::string& why);
  void remap(Event& event) const;

  std::string path_;
  std::uint32_t address_space_ = 0;
  std::uint32_t version_ = 0;
  std::uint64_t pid_ = 0;
  std::uint64_t start_time_ns_ = 0;
  std::uint64_t records_ = 0;
  std::string problem_;
  std::uint64_t readable_end_ = 0; // where the first pass stopped
  std::string unreadable_rest_;    // and why, when that is before the file's end
  std::unordered_map<NameId, NameId> names_;
  std::unordered_map<CallSiteId, CallSiteId> sites_;
  std::unique_ptr<Records> records_in_;
};

// The events of several readers in one sequence ordered by time (ties: reader order, then
// record order), produced one at a time.
class TimeOrderedMerge {
public:
  explicit TimeOrderedMerge(std::vector<TraceReader>& readers);
  // The next event, valid until the following call (the caller may move it away); null once
  // every reader is done.
  Event* next();

private:
  struct Head {
    std::uint64_t time_ns;
    std::size_t reader;
  };
  // The heap's order: the earliest event on top, ties to the reader named first.
  static bool later(const Head& a, const Head& b);
  void advance(std::size_t reader);

  std::vector<TraceReader>& readers_;
  std::vector<Event> current_; // each reader's next event
  std::vector<Head> heads_;    // a min-heap over the readers that have one
  std::size_t handed_out_;     // the reader whose event next() returned last
};

// A whole file at once, for tools and tests that want its events in a vector.
struct TraceFile {
  std::string path;
  std::uint64_t pid = 0;
  std::uint64_t start_time_ns = 0;
  std::vector<Event> events; // names and call sites already mapped into the caller's table
  std::uint64_t records = 0;
  std::string problem;
};
TraceFile read_trace(const std::string& path, std::uint32_t address_space, SymbolTable& symbols);

// The trace files named by `paths`: files as given, directories for their *.srtrace files.
// Throws std::runtime_error naming a path that does not exist or holds no trace.
std::vector<std::string> find_trace_files(const std::vector<std::string>& paths);

} // namespace streamrace::trace
