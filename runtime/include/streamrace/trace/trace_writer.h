// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Appends framed records to a per-process trace file. Records are buffered and written whole
// with one write(2), so a process killed at any moment leaves a readable prefix.
#pragma once

#include "streamrace/engine/event.h"
#include "streamrace/engine/symbols.h"
#include "streamrace/trace/trace_format.h"

#include <string>

namespace streamrace::trace {

class TraceWriter {
public:
  // Creates or truncates `path`; throws std::runtime_error naming the path and the reason.
  TraceWriter(const std::string& path, std::uint64_t pid, std::uint64_t start_time_ns);
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  void write(const Event& event);
  void define_name(NameId id, std::string_view text);
  void define_call_site(CallSiteId id, const CallSite& site);
  // Defines every name and call site of `symbols` this writer has not written yet.
  void define_symbols(const SymbolTable& symbols);
  // Writes the buffered records; throws std::runtime_error when the file system refuses.
  void flush();

  std::uint64_t records() const { return records_; }

private:
  void finish_record(RecordType type);

  int fd_ = -1;
  std::string path_;
  std::string buffer_;
  std::string body_;
  std::uint64_t records_ = 0;
  NameId names_written_ = 1;     // id 0 is the empty name, never written
  CallSiteId sites_written_ = 1; // id 0 is "unknown", never written
};

} // namespace streamrace::trace
