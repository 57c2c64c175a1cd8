// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Appends framed records to a per-process trace. Records are buffered and handed to the sink
// whole, so a process killed at any moment leaves a readable prefix.
#pragma once

#include "streamrace/engine/event.h"
#include "streamrace/engine/symbols.h"
#include "streamrace/trace/trace_format.h"
#include "streamrace/trace/trace_sink.h"

#include <memory>
#include <string>

namespace streamrace::trace {

class TraceWriter {
public:
  // Starts the trace of process `pid` in `sink` with its header.
  TraceWriter(std::unique_ptr<TraceSink> sink, std::uint64_t pid, std::uint64_t start_time_ns);
  // A trace file at `path` (FileTraceSink): created or truncated; throws std::runtime_error
  // naming the path and the reason.
  TraceWriter(const std::string& path, std::uint64_t pid, std::uint64_t start_time_ns);
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  void write(const Event& event);
  void define_name(NameId id, std::string_view text);
  void define_call_site(CallSiteId id, const CallSite& site);
  // Defines every name and call site of `symbols` this writer has not written yet.
  void define_symbols(const SymbolTable& symbols);
  // Hands the buffered records to the sink; throws std::runtime_error when it refuses them.
  void flush();

  std::uint64_t records() const { return records_; }

private:
  void finish_record(RecordType type);

  std::unique_ptr<TraceSink> sink_;
  std::string buffer_;
  std::string body_;
  std::uint64_t records_ = 0;
  NameId names_written_ = 1;     // id 0 is the empty name, never written
  CallSiteId sites_written_ = 1; // id 0 is "unknown", never written
};

} // namespace streamrace::trace
