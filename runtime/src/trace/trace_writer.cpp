// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/trace/trace_writer.h"

#include <cstdio>
#include <utility>

namespace streamrace::trace {

namespace {

constexpr std::size_t kFlushThreshold = 1 << 16;

void put_le(std::string& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

} // namespace

TraceWriter::TraceWriter(std::unique_ptr<TraceSink> sink, std::uint64_t pid,
                         std::uint64_t start_time_ns)
    : sink_(std::move(sink)) {
  buffer_.append(kMagic, sizeof(kMagic));
  put_le(buffer_, kVersion, 4);
  put_le(buffer_, 0, 4);
  put_le(buffer_, pid, 8);
  put_le(buffer_, start_time_ns, 8);
  flush();
}

TraceWriter::TraceWriter(const std::string& path, std::uint64_t pid, std::uint64_t start_time_ns)
    : TraceWriter(std::make_unique<FileTraceSink>(path), pid, start_time_ns) {}

TraceWriter::~TraceWriter() {
  try {
    flush();
  } catch (const std::exception& error) {
    // A destructor cannot throw; the records already written stay readable.
    std::fprintf(stderr, "streamrace: the trace's last records were not written: %s\n",
                 error.what());
  }
}

void TraceWriter::finish_record(RecordType type) {
  body_.insert(body_.begin(), static_cast<char>(type));
  put_le(buffer_, body_.size(), 4);
  put_le(buffer_, crc32(body_), 4);
  buffer_ += body_;
  body_.clear();
  ++records_;
  if (buffer_.size() >= kFlushThreshold) flush();
}

void TraceWriter::write(const Event& event) {
  Encoder out(body_);
  encode_event(event, out);
  finish_record(RecordType::Event);
}

void TraceWriter::define_name(NameId id, std::string_view text) {
  Encoder out(body_);
  out.u64(id);
  out.text(text);
  finish_record(RecordType::Name);
}

void TraceWriter::define_call_site(CallSiteId id, const CallSite& site) {
  Encoder out(body_);
  out.u64(id);
  out.text(site.api);
  out.u64(site.frames.size());
  for (const StackFrame& frame : site.frames) {
    out.text(frame.function);
    out.text(frame.file);
    out.u64(frame.line);
  }
  finish_record(RecordType::CallSite);
}

void TraceWriter::define_symbols(const SymbolTable& symbols) {
  for (; names_written_ < symbols.name_count(); ++names_written_)
    define_name(names_written_, symbols.name(names_written_));
  for (; sites_written_ < symbols.call_site_count(); ++sites_written_)
    define_call_site(sites_written_, *symbols.call_site(sites_written_));
}

void TraceWriter::flush() {
  std::size_t written = 0;
  try {
    while (written < buffer_.size())
      written += sink_->write_some(std::string_view(buffer_).substr(written));
  } catch (const std::exception&) {
    buffer_.erase(0, written);
    throw;
  }
  buffer_.clear();
}

} // namespace streamrace::trace
