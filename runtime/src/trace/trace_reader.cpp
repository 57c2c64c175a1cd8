#include "streamrace/trace/trace_reader.h"

#include "streamrace/trace/trace_format.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
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

// File-local name and call-site ids, and what they became in the caller's table.
struct IdMap {
  std::unordered_map<NameId, NameId> names;
  std::unordered_map<CallSiteId, CallSiteId> sites;
  NameId name(NameId local) const {
    auto it = names.find(local);
    return it == names.end() ? 0 : it->second;
  }
  CallSiteId site(CallSiteId local) const {
    auto it = sites.find(local);
    return it == sites.end() ? 0 : it->second;
  }
};

void remap(Event& event, const IdMap& ids) {
  event.header.site = ids.site(event.header.site);
  std::visit(
      [&](auto& p) {
        using P = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<P, KernelLaunch>) p.kernel = ids.name(p.kernel);
        if constexpr (std::is_same_v<P, HostFunction>) p.function = ids.name(p.function);
        if constexpr (requires { p.name; }) p.name = ids.name(p.name);
      },
      event.payload);
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

} // namespace

TraceFile read_trace(const std::string& path, std::uint32_t address_space, SymbolTable& symbols) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("cannot open trace file '" + path + "'");
  const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (bytes.size() < kFileHeaderSize || bytes.compare(0, sizeof(kMagic), kMagic, sizeof(kMagic)) != 0)
    throw std::runtime_error("'" + path + "' is not a streamrace trace file (bad header)");
  const auto version = static_cast<std::uint32_t>(get_le(bytes, 8, 4));
  if (version != kVersion)
    throw std::runtime_error("'" + path + "' is trace format version " + std::to_string(version) +
                             "; this streamrace reads version " + std::to_string(kVersion));

  TraceFile trace;
  trace.path = path;
  trace.pid = get_le(bytes, 16, 8);
  trace.start_time_ns = get_le(bytes, 24, 8);
  IdMap ids;
  std::size_t offset = kFileHeaderSize;
  auto stop = [&](const std::string& why) {
    std::ostringstream out;
    out << "stopped at byte " << offset << " of " << bytes.size() << ": " << why << "; "
        << trace.records << " complete record" << (trace.records == 1 ? "" : "s") << " recovered";
    trace.problem = out.str();
  };
  while (offset < bytes.size()) {
    if (bytes.size() - offset < kFrameSize) {
      stop("the file ends inside a record frame (was the writer killed mid-write?)");
      break;
    }
    const std::uint64_t length = get_le(bytes, offset, 4);
    const auto checksum = static_cast<std::uint32_t>(get_le(bytes, offset + 4, 4));
    if (length == 0 || length > kMaxRecordSize) {
      stop("implausible record length " + std::to_string(length) + " (corrupted file)");
      break;
    }
    if (length > bytes.size() - offset - kFrameSize) {
      stop("a record of " + std::to_string(length) +
           " bytes runs past the end of the file (was the writer killed mid-write?)");
      break;
    }
    const std::string_view body(bytes.data() + offset + kFrameSize, length);
    if (crc32(body) != checksum) {
      stop("checksum mismatch (corrupted record)");
      break;
    }
    Decoder in(body.substr(1));
    bool ok = false;
    switch (static_cast<RecordType>(body[0])) {
    case RecordType::Event: {
      Event event;
      ok = decode_event(in, event, address_space);
      if (ok) trace.events.push_back(std::move(event));
      break;
    }
    case RecordType::Name: {
      std::uint64_t id = 0;
      std::string text;
      ok = in.u64(id) && in.text(text) && in.done() && id <= 0xFFFFFFFFu;
      if (ok) ids.names[static_cast<NameId>(id)] = symbols.intern(text);
      break;
    }
    case RecordType::CallSite: {
      std::uint64_t id = 0;
      CallSite site;
      ok = in.u64(id) && id <= 0xFFFFFFFFu && read_call_site(in, site);
      if (ok) ids.sites[static_cast<CallSiteId>(id)] = symbols.add_call_site(std::move(site));
      break;
    }
    }
    if (!ok) {
      stop("record of unknown type or malformed fields");
      break;
    }
    ++trace.records;
    offset += kFrameSize + length;
  }
  for (Event& event : trace.events) remap(event, ids);
  return trace;
}

std::vector<std::string> find_trace_files(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code error;
    if (fs::is_directory(path, error)) {
      std::vector<std::string> found;
      for (const auto& entry : fs::directory_iterator(path, error))
        if (entry.path().extension() == ".srtrace") found.push_back(entry.path().string());
      if (found.empty())
        throw std::runtime_error("directory '" + path + "' holds no *.srtrace trace files");
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

std::vector<Event> merge_by_time(std::vector<TraceFile>& files) {
  std::vector<Event> merged;
  std::vector<std::size_t> next(files.size(), 0);
  std::size_t total = 0;
  for (const TraceFile& file : files) total += file.events.size();
  merged.reserve(total);
  while (merged.size() < total) {
    std::size_t best = files.size();
    for (std::size_t f = 0; f < files.size(); ++f) {
      if (next[f] == files[f].events.size()) continue;
      if (best == files.size() ||
          files[f].events[next[f]].header.time_ns < files[best].events[next[best]].header.time_ns)
        best = f;
    }
    merged.push_back(std::move(files[best].events[next[best]++]));
  }
  return merged;
}

} // namespace streamrace::trace
