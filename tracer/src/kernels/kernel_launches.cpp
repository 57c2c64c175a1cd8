// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "kernels/kernel_launches.h"

#include <array>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <optional>

namespace streamrace::tracer {

namespace {

constexpr int kCudaSuccess = 0;
// What the driver answers for a parameter index past the last one (CUDA_ERROR_INVALID_VALUE), as
// against a handle it does not know.
constexpr int kDriverInvalidValue = 1;
constexpr std::size_t kMaxParameters = 1024;

// The runtime functions the probe needs, from the program's own libcudart (a statically linked
// runtime offers none: its launches then carry no accesses).
struct RuntimeFunctions {
  using ParamInfo = int (*)(const void*, std::size_t, std::size_t*, std::size_t*);
  using LastError = int (*)();
  using FuncBySymbol = int (*)(void**, const void*);
  ParamInfo param_info = nullptr;
  FuncBySymbol func_by_symbol = nullptr;
  FuncBySymbol get_kernel = nullptr; // cudaGetKernel: a host stub's cudaKernel_t
  LastError peek_last_error = nullptr;
  LastError get_last_error = nullptr;

  static const RuntimeFunctions& get() {
    static const RuntimeFunctions functions = [] {
      RuntimeFunctions found;
      void* runtime = dlopen("libcudart.so.13", RTLD_NOW | RTLD_NOLOAD);
      if (runtime == nullptr) return found;
      found.param_info = reinterpret_cast<ParamInfo>(dlsym(runtime, "cudaFuncGetParamInfo"));
      found.peek_last_error = reinterpret_cast<LastError>(dlsym(runtime, "cudaPeekAtLastError"));
      found.get_last_error = reinterpret_cast<LastError>(dlsym(runtime, "cudaGetLastError"));
      found.func_by_symbol = reinterpret_cast<FuncBySymbol>(dlsym(runtime, "cudaGetFuncBySymbol"));
      found.get_kernel = reinterpret_cast<FuncBySymbol>(dlsym(runtime, "cudaGetKernel"));
      dlclose(runtime);
      if (!found.param_info || !found.peek_last_error || !found.get_last_error)
        return RuntimeFunctions{};
      return found;
    }();
    return functions;
  }
};

// The driver's answers for a CUfunction, and for a CUkernel (a cudaKernel_t), from the
// libcuda.so.1 the launching program loaded.
struct DriverFunctions {
  using ParamInfo = int (*)(const void*, std::size_t, std::size_t*, std::size_t*);
  using Name = int (*)(const char**, const void*);
  ParamInfo param_info = nullptr;
  ParamInfo kernel_param_info = nullptr;
  Name name = nullptr;

  static const DriverFunctions& get() {
    static const DriverFunctions functions = [] {
      DriverFunctions found;
      void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
      if (driver == nullptr) return found;
      found.param_info = reinterpret_cast<ParamInfo>(dlsym(driver, "cuFuncGetParamInfo"));
      found.kernel_param_info = reinterpret_cast<ParamInfo>(dlsym(driver, "cuKernelGetParamInfo"));
      found.name = reinterpret_cast<Name>(dlsym(driver, "cuFuncGetName"));
      dlclose(driver);
      return found;
    }();
    return functions;
  }
};

// The driver keeps no last error: its probe ends at the first index it refuses, whose answer it
// returns, and a driver older than 12.4 (no cuFuncGetParamInfo, cuKernelGetParamInfo) leaves
// the layout unknown.
int probe_driver_layout(DriverFunctions::ParamInfo param_info, const void* function,
                        std::vector<std::uint32_t>& sizes, std::vector<std::size_t>& offsets) {
  if (param_info == nullptr) return -1;
  while (sizes.size() < kMaxParameters) {
    std::size_t offset = 0;
    std::size_t size = 0;
    if (const int refused = param_info(function, sizes.size(), &offset, &size);
        refused != kCudaSuccess)
      return refused;
    sizes.push_back(static_cast<std::uint32_t>(size));
    offsets.push_back(offset);
  }
  return kCudaSuccess;
}

// A launch through a runtime linked into the program names its kernel by the cudaKernel_t that
// nvcc 13's `<<<>>>` asks for (__cudaGetKernel), which is a CUkernel the driver made: memory of
// the driver's, never inside a loaded object, where a host stub always is. Only such a handle is
// handed to the driver, which would read a stub as one.
std::optional<std::vector<std::uint32_t>> driver_kernel_sizes(const void* function) {
  Dl_info object{};
  if (dladdr(function, &object) != 0) return std::nullopt;
  std::vector<std::uint32_t> sizes;
  std::vector<std::size_t> offsets;
  const int refused =
      probe_driver_layout(DriverFunctions::get().kernel_param_info, function, sizes, offsets);
  if (sizes.empty() && refused != kDriverInvalidValue) return std::nullopt;
  return sizes;
}

std::string driver_name(const void* function) {
  const DriverFunctions& driver = DriverFunctions::get();
  const char* name = nullptr;
  if (driver.name == nullptr || driver.name(&name, function) != kCudaSuccess || name == nullptr)
    return {};
  return name;
}

// Parameter sizes by asking for parameter 0, 1, ... until the runtime says there is no such
// parameter. That last answer is an error the runtime also stores as the thread's last error,
// which belongs to the program: the probe runs only when no error is pending, and clears the one
// it caused, so cudaGetLastError returns to the program exactly what it would have.
// A runtime the tracer cannot reach is one linked into the program: nvcc's default
// (-cudart static). CUPTI still reports its launches, so without a word the run would look
// checked while no kernel carries an access.
void say_the_runtime_is_out_of_reach() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::fprintf(stderr, "streamrace: warning: kernels are launched through a CUDA runtime linked "
                         "into the program (nvcc's default, -cudart static), which the tracer "
                         "cannot ask for their parameters: what kernels read and write is not "
                         "checked; build with -cudart shared\n");
  });
}

std::optional<std::vector<std::uint32_t>> probe_sizes(const void* function) {
  const RuntimeFunctions& runtime = RuntimeFunctions::get();
  if (runtime.param_info == nullptr) {
    if (std::optional<std::vector<std::uint32_t>> sizes = driver_kernel_sizes(function))
      return sizes;
    say_the_runtime_is_out_of_reach();
    return std::vector<std::uint32_t>{};
  }
  if (runtime.peek_last_error() != kCudaSuccess) return std::nullopt;
  std::vector<std::uint32_t> sizes;
  int result = kCudaSuccess;
  while (sizes.size() < kMaxParameters) {
    std::size_t offset = 0;
    std::size_t size = 0;
    result = runtime.param_info(function, sizes.size(), &offset, &size);
    if (result != kCudaSuccess) break;
    sizes.push_back(static_cast<std::uint32_t>(size));
  }
  if (result != kCudaSuccess) runtime.get_last_error();
  return sizes;
}

// A kernel's name from its host stub: its CUfunction (cudaGetFuncBySymbol), named by the
// driver. Only when no error is pending, and a failure's error is cleared, as in probe_sizes.
std::string runtime_kernel_name(const void* function) {
  const RuntimeFunctions& runtime = RuntimeFunctions::get();
  if (runtime.func_by_symbol == nullptr || runtime.peek_last_error() != kCudaSuccess) return {};
  void* driver_function = nullptr;
  if (runtime.func_by_symbol(&driver_function, function) != kCudaSuccess) {
    runtime.get_last_error();
    return {};
  }
  return driver_name(driver_function);
}

// The kernel handle a `<<<>>>` launch of this host stub presents: nvcc 13's launch code asks
// for it (__cudaGetKernel) and the runtime reports the launch with it, not with the stub. Null
// when the runtime cannot say, and a failure's error is cleared, as in probe_sizes.
const void* kernel_handle(const void* function) {
  const RuntimeFunctions& runtime = RuntimeFunctions::get();
  if (runtime.get_kernel == nullptr || runtime.peek_last_error() != kCudaSuccess) return nullptr;
  void* handle = nullptr;
  if (runtime.get_kernel(&handle, function) != kCudaSuccess) {
    runtime.get_last_error();
    return nullptr;
  }
  return handle;
}

void read_values(const std::vector<std::uint32_t>& sizes, void* const* args,
                 std::array<std::uint64_t, kMaxParameters>& values) {
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    values[i] = 0;
    if (sizes[i] <= 8 && args[i] != nullptr) std::memcpy(&values[i], args[i], sizes[i]);
  }
}

} // namespace

KernelLaunchReader& KernelLaunchReader::instance() {
  // Never destroyed: launches from runtime threads may still arrive while the process exits.
  static KernelLaunchReader* const reader = std::make_unique<KernelLaunchReader>().release();
  return *reader;
}

void KernelLaunchReader::use_summaries(KernelSummaries summaries) {
  std::lock_guard lock(mutex_);
  summaries_ = std::move(summaries);
  shapes_.clear();
}

std::string KernelLaunchReader::annotate(const void* function, std::string_view name,
                                         std::string_view specification) {
  ParsedAnnotation parsed = parse_annotation(specification);
  if (!parsed.rules) return parsed.error;
  const auto rules = std::make_shared<const KernelRules>(std::move(*parsed.rules));
  // Asked before the lock: the runtime's call comes back through CUPTI.
  const void* handle = function != nullptr ? kernel_handle(function) : nullptr;
  std::lock_guard lock(mutex_);
  // Shapes already learned are relearned, with the annotation, at their next launch.
  if (function != nullptr) {
    // Under the stub (cudaLaunchKernel given it) and under its handle (`<<<>>>`).
    for (const void* key : {function, handle})
      if (key != nullptr) {
        annotations_[key] = rules;
        shapes_.erase(key);
      }
  }
  if (!name.empty()) {
    annotations_by_name_[std::string(name)] = rules;
    std::erase_if(shapes_, [&](const auto& entry) { return entry.second->name == name; });
  }
  return {};
}

const KernelLaunchReader::Shape* KernelLaunchReader::shape_of(Api api, const void* function,
                                                              const char* mangled_name) {
  if (auto it = shapes_.find(function); it != shapes_.end()) return it->second.get();
  auto shape = std::make_unique<Shape>();
  if (api == Api::Runtime) {
    std::optional<std::vector<std::uint32_t>> sizes = probe_sizes(function);
    if (!sizes) return nullptr;
    shape->sizes = std::move(*sizes);
  } else {
    probe_driver_layout(DriverFunctions::get().param_info, function, shape->sizes, shape->offsets);
    shape->name = driver_name(function);
  }
  if (shape->name.empty() && mangled_name != nullptr) shape->name = mangled_name;
  if (auto it = annotations_.find(function); it != annotations_.end())
    shape->annotation = it->second;
  else if (auto named = annotations_by_name_.find(shape->name);
           !shape->name.empty() && named != annotations_by_name_.end())
    shape->annotation = named->second;
  else if (!shape->name.empty())
    shape->summary = summaries_.find(shape->name);
  return shapes_.emplace(function, std::move(shape)).first->second.get();
}

void KernelLaunchReader::read_shape(const Shape& shape, void* const* args, std::uint64_t threads_x,
                                    std::vector<KernelPointer>& out) const {
  if (shape.sizes.empty() || args == nullptr) return;
  thread_local std::array<std::uint64_t, kMaxParameters> values;
  read_values(shape.sizes, args, values);
  const KernelRules* rules = shape.annotation ? shape.annotation.get() : shape.summary;
  const LaunchArguments arguments{shape.sizes, std::span(values.data(), shape.sizes.size()), args,
                                  threads_x};
  kernel_pointers(arguments, rules, out);
  for (std::size_t i = 0; i < shape.sizes.size(); ++i)
    if (shape.sizes[i] > 8) by_value_pointers(i, arguments, rules, out);
}

void KernelLaunchReader::read(const void* function, const char* mangled_name, void* const* args,
                              std::uint64_t threads_x, std::vector<KernelPointer>& out) {
  if (function == nullptr || args == nullptr) return;
  std::lock_guard lock(mutex_);
  if (const Shape* shape = shape_of(Api::Runtime, function, mangled_name))
    read_shape(*shape, args, threads_x, out);
}

std::string KernelLaunchReader::read_graph_node(const void* function, void* const* args,
                                                std::uint64_t threads_x,
                                                std::vector<KernelPointer>& out) {
  if (function == nullptr) return {};
  std::lock_guard lock(mutex_);
  std::string name = shapes_.contains(function) ? std::string() : runtime_kernel_name(function);
  const Shape* shape = shape_of(Api::Runtime, function, name.empty() ? nullptr : name.c_str());
  if (shape == nullptr) return name;
  if (args != nullptr) read_shape(*shape, args, threads_x, out);
  return shape->name;
}

std::string KernelLaunchReader::read_driver_launch(const void* function, const char* reported_name,
                                                   void* const* args,
                                                   std::span<const std::byte> packed,
                                                   std::uint64_t threads_x,
                                                   std::vector<KernelPointer>& out) {
  if (function == nullptr) return reported_name != nullptr ? reported_name : "";
  std::lock_guard lock(mutex_);
  const Shape* shape = shape_of(Api::Driver, function, reported_name);
  if (args == nullptr && !packed.empty()) {
    // Arguments packed in `extra`: each parameter at the offset the driver gives for it, as
    // long as the buffer holds it.
    thread_local std::vector<const void*> unpacked;
    unpacked.clear();
    for (std::size_t i = 0; i < shape->offsets.size(); ++i)
      unpacked.push_back(shape->offsets[i] + shape->sizes[i] <= packed.size()
                             ? packed.data() + shape->offsets[i]
                             : nullptr);
    read_shape(*shape, const_cast<void* const*>(unpacked.data()), threads_x, out);
  } else {
    read_shape(*shape, args, threads_x, out);
  }
  return shape->name;
}

} // namespace streamrace::tracer
