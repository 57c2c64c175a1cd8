// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "stacks/call_sites.h"

#include "stacks/python_stacks.h"

#include "streamrace/report/raw_frames.h"

#include <algorithm>
#include <dlfcn.h>
#include <execinfo.h>
#include <filesystem>
#include <link.h>
#include <string>
#include <unistd.h>

namespace streamrace::tracer {

namespace {

constexpr std::size_t kKeptFrames = 8;

// Libraries between the program and this callback: the tracer itself, the CUDA runtime,
// CUPTI, NCCL and cuBLAS. A call site starts at the first frame outside them.
std::string_view module_name(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool is_cuda_stack_module(std::string_view path) {
  for (std::string_view prefix :
       {"libstreamrace", "libcudart", "libcupti", "libcuda.", "libnccl", "libcublas"})
    if (module_name(path).starts_with(prefix)) return true;
  return false;
}

// The tracer's own frames below the program's (the trampoline that starts each thread to follow
// its hand-offs) are no place in the program either.
bool is_tracer_module(std::string_view path) {
  return module_name(path).starts_with("libstreamrace");
}

std::string main_program_path() {
  char path[4096];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  return n > 0 ? std::string(path, static_cast<std::size_t>(n)) : std::string();
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

bool inside_cuda_runtime_frames() {
  RawStack stack;
  capture_stack(stack);
  std::string_view outermost;
  for (int i = 0; i < stack.depth; ++i) {
    dl_find_object found{};
    if (_dl_find_object(stack.frames[i], &found) != 0 || found.dlfo_link_map == nullptr ||
        found.dlfo_link_map->l_name == nullptr)
      continue;
    const std::string_view module = module_name(found.dlfo_link_map->l_name);
    // Frames before the first of the runtime or the driver are the unwinder's and the tracer's.
    if (module.starts_with("libcudart") || module.starts_with("libcuda."))
      outermost = module;
    else if (!outermost.empty() && !is_cuda_stack_module(module))
      break;
  }
  return outermost.starts_with("libcudart");
}

bool CallSiteTable::Key::operator==(const Key& other) const {
  return api.data() == other.api.data() && python_stack == other.python_stack &&
         stack.depth == other.stack.depth &&
         std::equal(stack.frames.begin(), stack.frames.begin() + stack.depth,
                    other.stack.frames.begin());
}

std::size_t CallSiteTable::KeyHash::operator()(const Key& key) const {
  std::uint64_t hash = reinterpret_cast<std::uintptr_t>(key.api.data()) ^ key.python_stack;
  for (int i = 0; i < key.stack.depth; ++i)
    hash = (hash ^ reinterpret_cast<std::uintptr_t>(key.stack.frames[i])) * 0x100000001B3ull;
  return static_cast<std::size_t>(hash);
}

CallSiteId CallSiteTable::intern(std::string_view api, const RawStack& stack,
                                 std::uint32_t python_stack, bool& is_new) {
  Key key{api, stack, python_stack};
  auto [it, inserted] = ids_.try_emplace(key, 0);
  is_new = inserted;
  if (inserted) {
    sites_.push_back(Site{api, program_frames(stack), python_stack});
    it->second = static_cast<CallSiteId>(sites_.size());
  }
  return it->second;
}

std::vector<CallSiteTable::Frame> CallSiteTable::program_frames(const RawStack& stack) const {
  std::vector<Frame> frames;
  for (int i = 0; i < stack.depth && frames.size() < kKeptFrames; ++i) {
    // Only the module is wanted. dladdr also looks for the nearest symbol, a scan of the
    // module's symbol table: with PyTorch's libraries loaded that took the tracer thread about
    // 130 ms over a job's first new call sites, long enough for the ring to fill.
    dl_find_object found{};
    if (_dl_find_object(stack.frames[i], &found) != 0 || found.dlfo_link_map == nullptr) continue;
    const link_map* map = found.dlfo_link_map;
    std::string module = map->l_name != nullptr ? map->l_name : "";
    if (frames.empty() ? is_cuda_stack_module(module) : is_tracer_module(module)) continue;
    // The main program has no name in its link map entry.
    if (module.empty() || map->l_name == nullptr || map->l_name[0] == '\0')
      module = main_program_path();
    // Found through a relative LD_LIBRARY_PATH: a report made elsewhere needs the whole path.
    if (!module.empty() && module.front() != '/') {
      std::error_code error;
      if (std::filesystem::path absolute = std::filesystem::absolute(module, error); !error)
        module = absolute.string();
    }
    // A return address points after the call; one byte back is inside it.
    const auto address = reinterpret_cast<std::uint64_t>(stack.frames[i]) - 1;
    frames.push_back(Frame{std::move(module), address - map->l_addr});
  }
  return frames;
}

CallSite CallSiteTable::native(CallSiteId id) const {
  const Site& site = sites_.at(id - 1);
  CallSite out;
  out.api = std::string(site.api);
  for (const Frame& frame : site.frames)
    out.frames.push_back(raw_frame(frame.module, frame.offset));
  return out;
}

namespace {

// Native frames kept under Python ones: the launching code; the dispatcher's and the
// interpreter's frames between it and Python say nothing the Python frames do not.
constexpr std::size_t kNativeFramesUnderPython = 3;

// Python frames go first: the program's own line, then the native frames under it.
void put_python_frames_first(CallSite& site, std::uint32_t python_stack) {
  if (python_stack == 0) return;
  std::vector<StackFrame> frames = PythonStacks::instance().frames(python_stack);
  // A call the Python package made itself (through ctypes: libffi first) has no native code of
  // its own to show.
  const bool through_ctypes =
      !site.frames.empty() && (site.frames.front().function.find("libffi") != std::string::npos ||
                               site.frames.front().function.starts_with("ffi_call"));
  if (through_ctypes) site.frames.clear();
  if (site.frames.size() > kNativeFramesUnderPython) site.frames.resize(kNativeFramesUnderPython);
  site.frames.insert(site.frames.begin(), frames.begin(), frames.end());
}

} // namespace

CallSite CallSiteTable::unsymbolized(CallSiteId id) const {
  CallSite site = native(id);
  put_python_frames_first(site, sites_.at(id - 1).python_stack);
  return site;
}

std::vector<CallSite> CallSiteTable::symbolize_all(const std::string& symbolizer) const {
  std::vector<CallSite> sites;
  for (CallSiteId id = 1; id <= size(); ++id)
    sites.push_back(native(id));
  symbolize_sites(sites, symbolizer);
  for (CallSiteId id = 1; id <= size(); ++id)
    put_python_frames_first(sites[id - 1], sites_[id - 1].python_stack);
  return sites;
}

} // namespace streamrace::tracer
