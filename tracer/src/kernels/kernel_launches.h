// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the calling thread reads from a kernel launch while its argument array is alive: the
// pointers among the arguments, and inside the structs passed by value. Each parameter's size comes
// from cudaFuncGetParamInfo, asked once per function (from the driver's cuKernelGetParamInfo when
// the runtime is linked into the program and the launch names a kernel handle); how the kernel
// uses each pointer comes from an annotation or a kernel summary when there is one.
#pragma once

#include "kernels/kernel_rules.h"

#include <cstddef>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace streamrace::tracer {

class KernelLaunchReader {
public:
  static KernelLaunchReader& instance();

  // Loaded once, when the tracer starts; never changed afterwards.
  void use_summaries(KernelSummaries summaries);
  // An annotation (streamrace/annotations.h, or an NVTX mark in the "streamrace" domain) for
  // the kernel whose host stub is `function` and/or the kernel launches report as `name` (either
  // may be empty; a name also matches kernels not loaded yet); returns why the specification is
  // malformed, or an empty string.
  std::string annotate(const void* function, std::string_view name, std::string_view specification);

  // Appends the pointers among the launch's arguments; `threads_x` is the launch's
  // gridDim.x * blockDim.x (0 when not known), the reach of a pointer indexed by the thread's
  // grid index. Must run on the launching thread, inside the launch's callback: `args` lives
  // only as long as the call, and the parameter probe uses (and restores) that thread's last
  // CUDA error.
  void read(const void* function, const char* mangled_name, void* const* args,
            std::uint64_t threads_x, std::vector<KernelPointer>& out);
  // The same for a kernel node's arguments (cudaGraphAddKernelNode), which no launch reports a
  // name for: the name comes from the driver (cudaGetFuncBySymbol, cuFuncGetName) or an earlier
  // launch. Returns that name (empty when neither tells).
  std::string read_graph_node(const void* function, void* const* args, std::uint64_t threads_x,
                              std::vector<KernelPointer>& out);
  // The same for a driver-API launch of the CUfunction `function`, its layout from the driver's
  // cuFuncGetParamInfo (which keeps no last error) and its name from cuFuncGetName, else
  // `reported_name`; returns that name (empty when neither tells). Without `args`, the arguments
  // are read from `packed`, the buffer the launch packed in `extra`.
  std::string read_driver_launch(const void* function, const char* reported_name, void* const* args,
                                 std::span<const std::byte> packed, std::uint64_t threads_x,
                                 std::vector<KernelPointer>& out);

private:
  struct Shape {
    std::vector<std::uint32_t> sizes; // empty: no parameters, or a layout the runtime cannot tell
    std::vector<std::size_t> offsets; // driver launches only: where each parameter starts
    std::string name;                 // as the first launch reported it
    std::shared_ptr<const KernelRules> annotation;
    const KernelRules* summary = nullptr;
  };

  enum class Api { Runtime, Driver };
  // The shape of `function`, probing its layout if needed; null when the probe must wait for a
  // later launch (the thread holds an unread CUDA error that the probe could not restore).
  const Shape* shape_of(Api api, const void* function, const char* mangled_name);
  void read_shape(const Shape& shape, void* const* args, std::uint64_t threads_x,
                  std::vector<KernelPointer>& out) const;

  std::mutex mutex_;
  std::unordered_map<const void*, std::unique_ptr<Shape>> shapes_;
  std::unordered_map<const void*, std::shared_ptr<const KernelRules>> annotations_;
  std::unordered_map<std::string, std::shared_ptr<const KernelRules>> annotations_by_name_;
  KernelSummaries summaries_;
};

} // namespace streamrace::tracer
