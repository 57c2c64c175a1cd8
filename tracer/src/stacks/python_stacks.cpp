// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "stacks/python_stacks.h"

#include "python/python_api.h"

#include <algorithm>
#include <memory>

namespace streamrace::tracer {

namespace {

// Frames walked per op, and kept per stack (from the first frame outside the libraries).
constexpr std::size_t kWalkedFrames = 48;
constexpr std::size_t kKeptFrames = 8;

std::string attribute_text(const PythonApi& python, const void* object, const char* name) {
  PyObjectPtr value = python.get_attr_string(const_cast<void*>(object), name);
  if (value == nullptr) {
    python.err_clear();
    return {};
  }
  const char* text = python.unicode_as_utf8(value);
  std::string result = text != nullptr ? text : "";
  if (text == nullptr) python.err_clear();
  python.dec_ref(value);
  return result;
}

} // namespace

PythonStacks& PythonStacks::instance() {
  // Never destroyed: ops may still end while the process exits.
  static PythonStacks* const stacks = std::make_unique<PythonStacks>().release();
  return *stacks;
}

void PythonStacks::add_library_prefix(std::string prefix) {
  std::lock_guard lock(mutex_);
  library_prefixes_.push_back(std::move(prefix));
  for (auto& [code, info] : codes_)
    info.library = info.library || info.file.starts_with(library_prefixes_.back());
}

bool PythonStacks::package_attached() const {
  std::lock_guard lock(mutex_);
  return !library_prefixes_.empty();
}

const PythonStacks::CodeInfo& PythonStacks::code_info(const void* code) {
  auto [it, inserted] = codes_.try_emplace(code);
  if (inserted) {
    const PythonApi& python = *PythonApi::get();
    python.inc_ref(const_cast<void*>(code));
    CodeInfo& info = it->second;
    info.function = attribute_text(python, code, "co_qualname"); // Python 3.11 on
    if (info.function.empty()) info.function = attribute_text(python, code, "co_name");
    info.file = attribute_text(python, code, "co_filename");
    info.library =
        std::any_of(library_prefixes_.begin(), library_prefixes_.end(),
                    [&](const std::string& prefix) { return info.file.starts_with(prefix); });
  }
  return it->second;
}

StackFrame PythonStacks::frame_of(const FrameKey& key) {
  const PythonApi& python = *PythonApi::get();
  const CodeInfo& info = code_info(key.first);
  const int line = python.frame_get_lasti != nullptr
                       ? python.code_addr2line(const_cast<void*>(key.first), key.second)
                       : key.second;
  return StackFrame{info.function, info.file, static_cast<std::uint32_t>(std::max(line, 0))};
}

std::vector<PythonStacks::FrameKey> PythonStacks::walk(int skip) const {
  const PythonApi* python = PythonApi::get();
  std::vector<FrameKey> key;
  if (python == nullptr || python->is_initialized() == 0 || python->gil_state_check() != 1)
    return key;
  PyObjectPtr frame = python->eval_get_frame();
  if (frame != nullptr) python->inc_ref(frame);
  for (int depth = 0; frame != nullptr && key.size() < kWalkedFrames; ++depth) {
    if (depth >= skip) {
      PyObjectPtr code = python->frame_get_code(frame);
      const int position = python->frame_get_lasti != nullptr
                               ? python->frame_get_lasti(frame)
                               : python->frame_get_line_number(frame);
      key.emplace_back(code, position);
      python->dec_ref(code); // kept alive by code_info once interned; by the frame until then
    }
    PyObjectPtr back = python->frame_get_back(frame);
    python->dec_ref(frame);
    frame = back;
  }
  if (frame != nullptr) python->dec_ref(frame);
  return key;
}

std::uint32_t PythonStacks::capture(int skip) {
  return capture_continuing(skip, 0);
}

std::uint32_t PythonStacks::capture_continuing(int skip, std::uint32_t caller) {
  std::vector<FrameKey> key = walk(skip);
  if (key.empty()) return caller;
  std::lock_guard lock(mutex_);
  if (caller > stacks_.size()) caller = 0;
  // The caller's stack id ends the key: no code object has a null address.
  if (caller != 0) key.emplace_back(nullptr, static_cast<int>(caller));
  if (auto it = ids_.find(key); it != ids_.end()) return it->second;
  const std::size_t own = caller != 0 ? key.size() - 1 : key.size();
  // Interning keeps every code object of the key alive, so its addresses stay unique.
  for (std::size_t i = 0; i < own; ++i)
    code_info(key[i].first);
  // The stack starts at the program's own innermost frame; all-library stacks stay whole
  // unless they continue a caller's.
  std::size_t first = 0;
  while (first < own && code_info(key[first].first).library)
    ++first;
  if (first == own) {
    if (caller != 0) {
      ids_.emplace(std::move(key), caller);
      return caller;
    }
    first = 0;
  }
  std::vector<StackFrame> frames;
  for (std::size_t i = first; i < own && frames.size() < kKeptFrames; ++i)
    frames.push_back(frame_of(key[i]));
  if (caller != 0) {
    const std::vector<StackFrame>& continued = stacks_[caller - 1];
    frames.insert(frames.end(), continued.begin(), continued.end());
  }
  stacks_.push_back(std::move(frames));
  const auto id = static_cast<std::uint32_t>(stacks_.size());
  ids_.emplace(std::move(key), id);
  return id;
}

std::vector<StackFrame> PythonStacks::frames(std::uint32_t id) const {
  std::lock_guard lock(mutex_);
  return id == 0 || id > stacks_.size() ? std::vector<StackFrame>{} : stacks_[id - 1];
}

} // namespace streamrace::tracer
