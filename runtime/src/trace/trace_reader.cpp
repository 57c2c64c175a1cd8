// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/trace/trace_reader.h"

#include "streamrace/trace/trace_format.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

namespace streamrace::trace {

namespace {

std::uint64_t get_le(std::string_view bytes, std::size_t offset, int count) {
  std::uint64_t value = 0;
  for (int i = 0; i < count; ++i)
    value |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(bytes[offset + i])) << (8 * i);
  return value;
}

template <typename Id> Id mapped(const std::unordered_map<Id, Id>& ids, Id local) {
  auto it = ids.find(local);
  return it == ids.end() ? 0 : it->second;
}

bool read_call_site(Decoder& in, CallSite& site) {
  std::uint64_t frames = 0;
  if (!in.text(site.api) || !in.u64(frames) || frames > 4096) return false;
  for (std::uint64_t i = 0; i < frames; ++i) {
    StackFrame frame;
    std::uint64_t line = 0;
    if (!in.text(frame.function) || !in.text(frame.file) || !in.u64(line)) return false;
    frame.line = static_cast<std::uint32_t>(line);
    site.frames.push_back(std::move(frame));
  }
  return in.done();
}

std::unique_ptr<std::istream> open_trace_file(const std::string& path) {
  auto file = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!*file) throw std::runtime_error("cannot open trace file '" + path + "'");
  return file;
}

} // namespace

// The trace's bytes through one buffer: records are looked at in place and the buffer refills
// from the stream as reading moves on, so memory stays at one chunk (or one record, if larger).
class TraceReader::Records {
public:
  explicit Records(std::unique_ptr<std::istream> bytes) : file_(std::move(bytes)) {
    file_->seekg(0, std::ios::end);
    size_ = static_cast<std::uint64_t>(std::max<std::streamoff>(file_->tellg(), 0));
    file_->seekg(0);
  }

  std::uint64_t size() const { return size_; }
  std::uint64_t offset() const { return offset_; }

  // The next `count` bytes, or fewer when the file ends first. Valid until the next call.
  std::string_view peek(std::size_t count) {
    if (end_ - pos_ < count && offset_ + (end_ - pos_) < size_) fill(count);
    return {buffer_.data() + pos_, std::min(count, end_ - pos_)};
  }
  void skip(std::size_t count) {
    pos_ += count;
    offset_ += count;
  }
  void rewind_to(std::uint64_t offset) {
    file_->clear();
    file_->seekg(static_cast<std::streamoff>(offset));
    pos_ = end_ = 0;
    offset_ = offset;
  }

private:
  static constexpr std::size_t kChunk = 1 << 18;

  void fill(std::size_t count) {
    const std::size_t kept = end_ - pos_;
    std::memmove(buffer_.data(), buffer_.data() + pos_, kept);
    pos_ = 0;
    end_ = kept;
    // No larger than what is left of the file: a job of a thousand ranks opens a thousand
    // small files at once.
    const std::uint64_t unread = size_ - offset_ - kept;
    const std::size_t wanted =
        std::max(count, kept + static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, unread)));
    if (buffer_.size() < wanted) buffer_.resize(wanted);
    file_->read(buffer_.data() + end_, static_cast<std::streamsize>(
                                           std::min<std::uint64_t>(buffer_.size() - end_, unread)));
    end_ += static_cast<std::size_t>(std::max<std::streamsize>(file_->gcount(), 0));
  }

  std::unique_ptr<std::istream> file_;
  std::uint64_t size_ = 0;
  std::uint64_t offset_ = 0; // of buffer_[pos_] in the file
  std::string buffer_;
  std::size_t pos_ = 0;
  std::size_t end_ = 0;
};

TraceReader::TraceReader(const std::string& path, std::uint32_t address_space, SymbolTable& symbols)
    : TraceReader(path, open_trace_file(path), address_space, symbols) {}

TraceReader::TraceReader(const std::string& path, std::unique_ptr<std::istream> bytes,
                         std::uint32_t address_space, SymbolTable& symbols)
    : path_(path), address_space_(address_space),
      records_in_(std::make_unique<Records>(std::move(bytes))) {
  Records& in = *records_in_;
  const std::string_view header = in.peek(kFileHeaderSize);
  if (header.size() < kFileHeaderSize ||
      header.compare(0, sizeof(kMagic), std::string_view(kMagic, sizeof(kMagic))) != 0)
    throw std::runtime_error("'" + path + "' is not a streamrace trace file (bad header)");
  version_ = static_cast<std::uint32_t>(get_le(header, 8, 4));
  if (version_ < kOldestReadableVersion || version_ > kVersion)
    throw std::runtime_error("'" + path + "' is trace format version " + std::to_string(version_) +
                             "; this streamrace reads versions " +
                             std::to_string(kOldestReadableVersion) + " to " +
                             std::to_string(kVersion));
  pid_ = get_le(header, 16, 8);
  start_time_ns_ = get_le(header, 24, 8);
  in.skip(kFileHeaderSize);

  auto stop = [&](const char* why) { unreadable_rest_ = why; };
  auto stop_with = [&](const std::string& why) { unreadable_rest_ = why; };
  while (in.offset() < in.size()) {
    const std::string_view frame = in.peek(kFrameSize);
    if (frame.size() < kFrameSize) {
      stop("the file ends inside a record frame (was the writer killed mid-write?)");
      break;
    }
    const std::uint64_t length = get_le(frame, 0, 4);
    const auto checksum = static_cast<std::uint32_t>(get_le(frame, 4, 4));
    if (length == 0 || length > kMaxRecordSize) {
      stop_with("implausible record length " + std::to_string(length) + " (corrupted file)");
      break;
    }
    if (length > in.size() - in.offset() - kFrameSize) {
      stop_with("a record of " + std::to_string(length) +
                " bytes runs past the end of the file (was the writer killed mid-write?)");
      break;
    }
    const std::string_view body = in.peek(kFrameSize + length).substr(kFrameSize);
    if (crc32(body) != checksum) {
      stop("checksum mismatch (corrupted record)");
      break;
    }
    Decoder fields(body.substr(1));
    bool ok = false;
    switch (static_cast<RecordType>(body[0])) {
    case RecordType::Event:
      ok = true; // decoded (and checked) by next()
      break;
    case RecordType::Name: {
      std::uint64_t id = 0;
      std::string text;
      ok = fields.u64(id) && fields.text(text) && fields.done() && id <= 0xFFFFFFFFu;
      if (ok) names_[static_cast<NameId>(id)] = symbols.intern(text);
      break;
    }
    case RecordType::CallSite: {
      std::uint64_t id = 0;
      CallSite site;
      ok = fields.u64(id) && id <= 0xFFFFFFFFu && read_call_site(fields, site);
      if (ok) sites_[static_cast<CallSiteId>(id)] = symbols.add_call_site(std::move(site));
      break;
    }
    }
    if (!ok) {
      stop("record of unknown type or malformed fields");
      break;
    }
    in.skip(kFrameSize + length);
  }
  readable_end_ = in.offset();
  in.rewind_to(kFileHeaderSize);
}

void TraceReader::stop_reading(const std::string& why) {
  const Records& in = *records_in_;
  std::ostringstream out;
  out << "stopped at byte " << in.offset() << " of " << in.size() << ": " << why << "; " << records_
      << " complete record" << (records_ == 1 ? "" : "s") << " recovered";
  problem_ = out.str();
  readable_end_ = in.offset();
  unreadable_rest_.clear();
}

TraceReader::TraceReader(TraceReader&&) noexcept = default;
TraceReader& TraceReader::operator=(TraceReader&&) noexcept = default;
TraceReader::~TraceReader() = default;

bool TraceReader::next(Event& event) {
  Records& in = *records_in_;
  while (in.offset() < readable_end_) {
    const std::size_t length = get_le(in.peek(kFrameSize), 0, 4);
    const std::string_view body = in.peek(kFrameSize + length).substr(kFrameSize);
    const bool is_event = static_cast<RecordType>(body[0]) == RecordType::Event;
    if (is_event) {
      Decoder fields(body.substr(1));
      if (!decode_event(fields, event, address_space_, version_)) {
        stop_reading("record of unknown type or malformed fields");
        return false;
      }
      remap(event);
    }
    in.skip(kFrameSize + length);
    ++records_;
    if (is_event) return true;
  }
  if (!unreadable_rest_.empty()) stop_reading(unreadable_rest_);
  return false;
}

std::vector<CallSiteId> TraceReader::call_sites() const {
  std::vector<CallSiteId> sites;
  sites.reserve(sites_.size());
  for (const auto& [file_local, merged] : sites_)
    sites.push_back(merged);
  return sites;
}

void TraceReader::remap(Event& event) const {
  event.header.site = mapped(sites_, event.header.site);
  std::visit(
      [&](auto& p) {
        using P = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<P, KernelLaunch>) p.kernel = mapped(names_, p.kernel);
        if constexpr (std::is_same_v<P, HostFunction>) p.function = mapped(names_, p.function);
        if constexpr (requires { p.name; }) p.name = mapped(names_, p.name);
      },
      event.payload);
}

TraceFile read_trace(const std::string& path, std::uint32_t address_space, SymbolTable& symbols) {
  TraceReader reader(path, address_space, symbols);
  TraceFile trace{path, reader.pid(), reader.start_time_ns(), {}, 0, {}};
  for (Event event; reader.next(event);)
    trace.events.push_back(std::move(event));
  trace.records = reader.records();
  trace.problem = reader.problem();
  return trace;
}

TimeOrderedMerge::TimeOrderedMerge(std::vector<TraceReader>& readers)
    : readers_(readers), current_(readers.size()), handed_out_(readers.size()) {
  for (std::size_t reader = 0; reader < readers_.size(); ++reader)
    advance(reader);
}

bool TimeOrderedMerge::later(const Head& a, const Head& b) {
  if (a.time_ns != b.time_ns) return a.time_ns > b.time_ns;
  return a.reader > b.reader;
}

void TimeOrderedMerge::advance(std::size_t reader) {
  if (!readers_[reader].next(current_[reader])) return;
  heads_.push_back(Head{current_[reader].header.time_ns, reader});
  std::push_heap(heads_.begin(), heads_.end(), later);
}

Event* TimeOrderedMerge::next() {
  if (handed_out_ < readers_.size()) advance(handed_out_);
  if (heads_.empty()) return nullptr;
  std::pop_heap(heads_.begin(), heads_.end(), later);
  handed_out_ = heads_.back().reader;
  heads_.pop_back();
  return &current_[handed_out_];
}

std::vector<std::string> find_trace_files(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code error;
    if (fs::is_directory(path, error)) {
      std::vector<std::string> found;
      for (const auto& entry : fs::directory_iterator(path, error))
        if (entry.path().extension() == kTraceFileExtension) found.push_back(entry.path().string());
      if (found.empty())
        throw std::runtime_error("directory '" + path + "' holds no *" + kTraceFileExtension +
                                 " trace files");
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::exists(path, error)) {
      files.push_back(path);
    } else {
      throw std::runtime_error("no such file or directory: '" + path + "'");
    }
  }
  return files;
}

} // namespace streamrace::trace
