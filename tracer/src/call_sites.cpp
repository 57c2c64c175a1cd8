#include "call_sites.h"

#include "symbolizer.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <map>
#include <string>
#include <unistd.h>

namespace streamrace::tracer {

namespace {

constexpr std::size_t kKeptFrames = 8;

// Libraries between the program and this callback: the tracer itself, the CUDA runtime,
// CUPTI and NCCL. A call site starts at the first frame outside them.
bool is_cuda_stack_module(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  for (std::string_view prefix : {"libstreamrace", "libcudart", "libcupti", "libcuda.", "libnccl"})
    if (base.starts_with(prefix)) return true;
  return false;
}

std::string main_program_path() {
  char path[4096];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  return n > 0 ? std::string(path, static_cast<std::size_t>(n)) : std::string();
}

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

std::string hex(std::uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

} // namespace

// libunwind's unw_backtrace caches what it learns about each return address and walks a stack
// some 25 times faster than glibc's backtrace(), which parses unwind tables anew every call.
// It is loaded privately, so its own backtrace and _Unwind_* exports interpose nothing.
using Unwinder = int (*)(void**, int);

Unwinder fast_unwinder() {
  static const Unwinder unwinder = []() -> Unwinder {
    void* library = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    return library != nullptr ? reinterpret_cast<Unwinder>(dlsym(library, "unw_backtrace"))
                              : nullptr;
  }();
  return unwinder;
}

void capture_stack(RawStack& stack) {
  const int capacity = static_cast<int>(stack.frames.size());
  const Unwinder unwinder = fast_unwinder();
  stack.depth = unwinder != nullptr ? unwinder(stack.frames.data(), capacity)
                                    : backtrace(stack.frames.data(), capacity);
}

bool CallSiteTable::Key::operator==(const Key& other) const {
  return api.data() == other.api.data() && stack.depth == other.stack.depth &&
         std::equal(stack.frames.begin(), stack.frames.begin() + stack.depth,
                    other.stack.frames.begin());
}

std::size_t CallSiteTable::KeyHash::operator()(const Key& key) const {
  std::uint64_t hash = reinterpret_cast<std::uintptr_t>(key.api.data());
  for (int i = 0; i < key.stack.depth; ++i)
    hash = (hash ^ reinterpret_cast<std::uintptr_t>(key.stack.frames[i])) * 0x100000001B3ull;
  return static_cast<std::size_t>(hash);
}

CallSiteId CallSiteTable::intern(std::string_view api, const RawStack& stack, bool& is_new) {
  Key key{api, stack};
  auto [it, inserted] = ids_.try_emplace(key, 0);
  is_new = inserted;
  if (inserted) {
    sites_.push_back(Site{api, program_frames(stack)});
    it->second = static_cast<CallSiteId>(sites_.size());
  }
  return it->second;
}

std::vector<CallSiteTable::Frame> CallSiteTable::program_frames(const RawStack& stack) const {
  std::vector<Frame> frames;
  for (int i = 0; i < stack.depth && frames.size() < kKeptFrames; ++i) {
    Dl_info info{};
    link_map* map = nullptr;
    if (dladdr1(stack.frames[i], &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0 ||
        map == nullptr)
      continue;
    std::string module = info.dli_fname != nullptr ? info.dli_fname : "";
    if (frames.empty() && is_cuda_stack_module(module)) continue;
    // The main program has no name in its link map entry.
    if (module.empty() || map->l_name == nullptr || map->l_name[0] == '\0')
      module = main_program_path();
    // A return address points after the call; one byte back is inside it.
    const auto address = reinterpret_cast<std::uint64_t>(stack.frames[i]) - 1;
    frames.push_back(Frame{std::move(module), address - map->l_addr});
  }
  return frames;
}

CallSite CallSiteTable::unsymbolized(CallSiteId id) const {
  const Site& site = sites_.at(id - 1);
  CallSite out;
  out.api = std::string(site.api);
  for (const Frame& frame : site.frames) {
    const std::size_t slash = frame.module.rfind('/');
    out.frames.push_back(StackFrame{
        frame.module.substr(slash == std::string::npos ? 0 : slash + 1) + "+" + hex(frame.offset),
        "", 0});
  }
  return out;
}

std::vector<CallSite> CallSiteTable::symbolize_all() const {
  // One symbolizer run per object file, for all of its addresses.
  std::map<std::string, std::vector<std::uint64_t>> addresses_by_module;
  for (const Site& site : sites_)
    for (const Frame& frame : site.frames)
      addresses_by_module[frame.module].push_back(frame.offset);
  std::map<std::pair<std::string, std::uint64_t>, StackFrame> symbolized;
  for (auto& [module, addresses] : addresses_by_module) {
    std::sort(addresses.begin(), addresses.end());
    addresses.erase(std::unique(addresses.begin(), addresses.end()), addresses.end());
    std::vector<StackFrame> frames = symbolize(module, addresses);
    for (std::size_t i = 0; i < frames.size(); ++i)
      symbolized[{module, addresses[i]}] = std::move(frames[i]);
  }
  std::vector<CallSite> sites;
  for (CallSiteId id = 1; id <= size(); ++id) {
    CallSite site = unsymbolized(id);
    const std::vector<Frame>& raw = sites_[id - 1].frames;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      auto found = symbolized.find({raw[i].module, raw[i].offset});
      if (found == symbolized.end() || found->second.function.empty()) continue;
      site.frames[i] = found->second;
      // Frames past main belong to the C library's start-up code.
      if (site.frames[i].function == "main") {
        site.frames.resize(i + 1);
        break;
      }
    }
    drop_toolkit_frames(site.frames);
    sites.push_back(std::move(site));
  }
  return sites;
}

} // namespace streamrace::tracer
