// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The Python frames that issued an op, so reports name the user's `model.py:123` before the
// native frames. Captured on the calling thread while it holds the GIL (the Python package's
// entry points), cheaply: each frame is its code object and instruction offset, and a stack is
// interned by those; file, function and line are looked up once per new frame. A stack starts at
// the first frame outside the libraries registered as such (PyTorch, this package), so that a
// report's leading frame is the program's own line.
#pragma once

#include "streamrace/engine/symbols.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace streamrace::tracer {

class PythonStacks {
public:
  static PythonStacks& instance();

  // Frames whose file starts with `prefix` are library frames.
  void add_library_prefix(std::string prefix);
  // Whether the Python package attached (streamrace.torch gives its prefixes first of all).
  bool package_attached() const;
  // The calling thread's stack below its `skip` innermost frames; 0 when there is none (no
  // interpreter, or the thread does not hold the GIL). Must be called holding the GIL.
  std::uint32_t capture(int skip);
  // The calling thread's own frames outside the libraries, then those of stack `caller`: work
  // a thread does for another one's call (the autograd engine running a Python hook or
  // autograd.Function for a backward() call) shows both. Just `caller` when the thread has no
  // frames of its own outside the libraries.
  std::uint32_t capture_continuing(int skip, std::uint32_t caller);
  // The frames of stack `id`, innermost first; empty for 0.
  std::vector<StackFrame> frames(std::uint32_t id) const;

private:
  using FrameKey = std::pair<const void*, int>; // code object, instruction offset or line
  struct CodeInfo {
    std::string function;
    std::string file;
    bool library = false;
  };

  std::vector<FrameKey> walk(int skip) const;
  const CodeInfo& code_info(const void* code);
  StackFrame frame_of(const FrameKey& key);

  mutable std::mutex mutex_;
  std::vector<std::string> library_prefixes_;
  // Code objects are kept alive once seen (one reference each), so an address names one code
  // object for the whole run.
  std::map<const void*, CodeInfo> codes_;
  std::map<std::vector<FrameKey>, std::uint32_t> ids_;
  std::vector<std::vector<StackFrame>> stacks_; // id - 1
};

} // namespace streamrace::tracer
