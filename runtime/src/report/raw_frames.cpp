// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/report/raw_frames.h"

#include "streamrace/report/symbolizer.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <utility>

namespace streamrace {

namespace {

constexpr std::string_view kOffsetMark = "+0x";

// Code the CUDA toolkit compiles into the program between its call and the runtime: inline
// wrappers of its headers (cuda_runtime.h's templates, crt/device_functions.h's launch helper)
// and nvcc's generated launch stub, __device_stub__<kernel>, called by a host function named
// after the kernel. A call site starts at the program's own code after them.
bool is_toolkit_header(std::string_view file) {
  return file.find("/include/crt/") != std::string_view::npos ||
         file.ends_with("/cuda_runtime.h") || file.ends_with("/cuda_runtime_api.h") ||
         file.ends_with(".cudafe1.stub.c");
}

void drop_toolkit_frames(std::vector<StackFrame>& frames) {
  std::size_t first = 0;
  while (first < frames.size()) {
    const StackFrame& frame = frames[first];
    if (frame.function.starts_with("__device_stub__")) {
      // The kernel-named host function that called the stub goes too.
      first += first + 1 < frames.size() && frames[first + 1].function != "main" ? 2 : 1;
    } else if (is_toolkit_header(frame.file)) {
      ++first;
    } else {
      break;
    }
  }
  if (first < frames.size()) frames.erase(frames.begin(), frames.begin() + first);
}

void trim_to_program_frames(std::vector<StackFrame>& frames) {
  // Frames past main belong to the C library's start-up code.
  const auto main = std::find_if(frames.begin(), frames.end(),
                                 [](const StackFrame& frame) { return frame.function == "main"; });
  if (main != frames.end()) frames.erase(main + 1, frames.end());
  drop_toolkit_frames(frames);
}

bool has_raw_frame(const CallSite& site) {
  return std::any_of(site.frames.begin(), site.frames.end(),
                     [](const StackFrame& frame) { return parse_raw_frame(frame).has_value(); });
}

} // namespace

StackFrame raw_frame(std::string_view object_file, std::uint64_t offset) {
  char hex[24];
  std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(offset));
  return StackFrame{std::string(object_file) + std::string(kOffsetMark) + hex, "", 0};
}

std::optional<RawFrame> parse_raw_frame(const StackFrame& frame) {
  if (!frame.file.empty() || frame.line != 0) return std::nullopt;
  const std::string_view text = frame.function;
  const std::size_t mark = text.rfind(kOffsetMark);
  if (mark == std::string_view::npos || mark == 0) return std::nullopt;
  const std::string_view digits = text.substr(mark + kOffsetMark.size());
  if (digits.empty() || digits.size() > 16 ||
      !std::all_of(digits.begin(), digits.end(),
                   [](unsigned char c) { return std::isxdigit(c) != 0; }))
    return std::nullopt;
  return RawFrame{std::string(text.substr(0, mark)),
                  std::strtoull(std::string(digits).c_str(), nullptr, 16)};
}

void symbolize_sites(std::vector<CallSite>& sites) {
  std::map<std::string, std::vector<std::uint64_t>> offsets_by_file;
  for (const CallSite& site : sites)
    for (const StackFrame& frame : site.frames)
      if (std::optional<RawFrame> raw = parse_raw_frame(frame);
          raw && raw->object_file.starts_with('/'))
        offsets_by_file[raw->object_file].push_back(raw->offset);
  std::map<std::pair<std::string, std::uint64_t>, StackFrame> symbolized;
  for (auto& [file, offsets] : offsets_by_file) {
    std::sort(offsets.begin(), offsets.end());
    offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
    std::vector<StackFrame> frames = symbolize(file, offsets);
    for (std::size_t i = 0; i < frames.size(); ++i)
      if (!frames[i].function.empty()) symbolized[{file, offsets[i]}] = std::move(frames[i]);
  }
  if (symbolized.empty()) return;
  for (CallSite& site : sites) {
    bool changed = false;
    for (StackFrame& frame : site.frames) {
      const std::optional<RawFrame> raw = parse_raw_frame(frame);
      if (!raw) continue;
      const auto found = symbolized.find({raw->object_file, raw->offset});
      if (found == symbolized.end()) continue;
      frame = found->second;
      changed = true;
    }
    if (changed) trim_to_program_frames(site.frames);
  }
}

void symbolize_raw_frames(SymbolTable& symbols, const std::vector<CallSiteId>& sites) {
  // Every rank's file names the same sites: each once.
  std::vector<CallSiteId> ids = sites;
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<CallSiteId> raw_ids;
  std::vector<CallSite> raw_sites;
  for (CallSiteId id : ids) {
    const CallSite* site = symbols.call_site(id);
    if (site == nullptr || !has_raw_frame(*site)) continue;
    raw_ids.push_back(id);
    raw_sites.push_back(*site);
  }
  if (raw_sites.empty()) return;
  symbolize_sites(raw_sites);
  for (std::size_t i = 0; i < raw_ids.size(); ++i)
    symbols.replace_call_site(raw_ids[i], std::move(raw_sites[i]));
}

} // namespace streamrace
