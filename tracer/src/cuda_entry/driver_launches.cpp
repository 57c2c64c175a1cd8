// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cuda_entry/driver_launches.h"

#include "kernels/kernel_launches.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace streamrace::tracer {

namespace {

struct DriverLaunch {
  CUfunction function = nullptr;
  CUstream stream = nullptr;
  void** arguments = nullptr;
  void** extra = nullptr;
  bool per_thread_default = false; // the _ptsz entry points: stream 0 is the per-thread stream
  std::string_view api;            // a literal: call sites keep it for the tracer's lifetime
  std::uint64_t threads_x = 0;     // gridDimX * blockDimX
};

template <typename Params> DriverLaunch classic(const void* params, std::string_view api) {
  const auto* launch = static_cast<const Params*>(params);
  return {launch->f,
          launch->hStream,
          launch->kernelParams,
          launch->extra,
          false,
          api,
          std::uint64_t{launch->gridDimX} * launch->blockDimX};
}

template <typename Params> DriverLaunch extended(const void* params, std::string_view api) {
  const auto* launch = static_cast<const Params*>(params);
  return {launch->f,
          launch->config != nullptr ? launch->config->hStream : nullptr,
          launch->kernelParams,
          launch->extra,
          false,
          api,
          launch->config != nullptr
              ? std::uint64_t{launch->config->gridDimX} * launch->config->blockDimX
              : 0};
}

std::optional<DriverLaunch> decode(CUpti_CallbackId id, const void* params) {
  DriverLaunch launch;
  switch (id) {
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    return classic<cuLaunchKernel_params>(params, "cuLaunchKernel");
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    launch = classic<cuLaunchKernel_ptsz_params>(params, "cuLaunchKernel_ptsz");
    launch.per_thread_default = true;
    return launch;
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    return extended<cuLaunchKernelEx_params>(params, "cuLaunchKernelEx");
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
    launch = extended<cuLaunchKernelEx_ptsz_params>(params, "cuLaunchKernelEx_ptsz");
    launch.per_thread_default = true;
    return launch;
  default:
    return std::nullopt;
  }
}

// The argument buffer a launch packed in `extra` (CU_LAUNCH_PARAM_BUFFER_POINTER and _SIZE), or
// an empty span.
std::span<const std::byte> packed_arguments(void** extra) {
  if (extra == nullptr) return {};
  const std::byte* buffer = nullptr;
  std::size_t size = 0;
  for (void** entry = extra; *entry != CU_LAUNCH_PARAM_END; entry += 2) {
    if (*entry == CU_LAUNCH_PARAM_BUFFER_POINTER)
      buffer = static_cast<const std::byte*>(entry[1]);
    else if (*entry == CU_LAUNCH_PARAM_BUFFER_SIZE && entry[1] != nullptr)
      size = *static_cast<const std::size_t*>(entry[1]);
    else
      return {}; // a key this reader does not know: its value's meaning is unknown too
  }
  return buffer != nullptr ? std::span(buffer, size) : std::span<const std::byte>{};
}

} // namespace

void record_driver_launch(Recorder& tracer, CUpti_CallbackId id, const CUpti_CallbackData& call) {
  if (call.functionParams == nullptr || call.functionReturnValue == nullptr ||
      *static_cast<const CUresult*>(call.functionReturnValue) != CUDA_SUCCESS)
    return;
  const std::optional<DriverLaunch> launch = decode(id, call.functionParams);
  if (!launch) return;
  std::vector<KernelPointer> pointers;
  // The argument array lives only as long as the call: its pointers are read now.
  const std::string name = KernelLaunchReader::instance().read_driver_launch(
      launch->function, call.symbolName, launch->arguments, packed_arguments(launch->extra),
      launch->threads_x, pointers);
  StreamHandle stream = reinterpret_cast<std::uintptr_t>(launch->stream);
  if (stream == kNullStream && launch->per_thread_default) stream = kPerThreadStream;
  const NameId kernel = name.empty() ? 0 : tracer.intern_name(name);
  tracer.record(launch->api, KernelLaunch{stream, kernel, {}}, std::move(pointers));
}

} // namespace streamrace::tracer
