// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Where in the program each call came from. Capturing is cheap (return addresses, interned by
// value); turning addresses into function, file and line happens only when a report needs it.
#pragma once

#include "streamrace/engine/event.h"
#include "streamrace/engine/symbols.h"

#include <array>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace streamrace::tracer {

inline constexpr std::size_t kCapturedFrames = 24;

// The raw return addresses of one call, innermost first, as captured on the calling thread.
struct RawStack {
  std::array<void*, kCapturedFrames> frames{};
  int depth = 0;
};

// Fills `stack` on the calling thread (libunwind when installed, else glibc's backtrace()).
void capture_stack(RawStack& stack);

// Whether the calling thread is inside a call of the CUDA runtime: of the frames of the runtime
// and the driver below the program's (its innermost kCapturedFrames), the outermost is the
// runtime's. A program that calls the driver directly enters through libcuda (whose stand-in
// forwards into the emulated runtime); PyTorch and NCCL enter through libcudart.
bool inside_cuda_runtime_frames();

// Interns captured stacks into call-site ids (1, 2, ...). Not thread-safe: the tracer calls
// it under its lock.
class CallSiteTable {
public:
  // `api` must outlive the table (the API model's names do). `python_stack` names the Python
  // frames of the call or its op (python_stacks.h), reported before the native ones; 0 for none.
  // `is_new` tells the caller to describe the new site in its trace.
  CallSiteId intern(std::string_view api, const RawStack& stack, std::uint32_t python_stack,
                    bool& is_new);

  // The site with raw frames, named by object file and offset (raw_frames.h): what a trace
  // holds until the program exits normally (a crashed program's trace keeps these).
  CallSite unsymbolized(CallSiteId id) const;
  // Every site with frames symbolized to function, file and line where debug info allows;
  // index i holds site id i + 1.
  std::vector<CallSite> symbolize_all(const std::string& symbolizer) const;

  CallSiteId size() const { return static_cast<CallSiteId>(sites_.size()); }

private:
  struct Frame {
    std::string module;       // path of the object file holding the address
    std::uint64_t offset = 0; // address in the object file's own address space
  };
  struct Site {
    std::string_view api;
    std::vector<Frame> frames; // the program's frames, from the first outside the CUDA stack
    std::uint32_t python_stack = 0;
  };
  struct Key {
    std::string_view api;
    RawStack stack;
    std::uint32_t python_stack = 0;
    bool operator==(const Key& other) const;
  };
  // The site with its native frames only, raw.
  CallSite native(CallSiteId id) const;
  struct KeyHash {
    std::size_t operator()(const Key& key) const;
  };

  std::vector<Frame> program_frames(const RawStack& stack) const;

  std::unordered_map<Key, CallSiteId, KeyHash> ids_;
  std::vector<Site> sites_;
};

} // namespace streamrace::tracer
