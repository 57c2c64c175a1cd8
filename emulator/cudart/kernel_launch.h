// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One kernel launch onto its stream, whichever API asked for it: the runtime's entry points
// (inside their runtime-domain callbacks) and the driver's cuLaunchKernel (driver_entry.cpp).
// It raises the driver-domain cuLaunchKernel callback itself, as the driver does underneath a
// runtime launch.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <optional>

#include "kernel_table.h"
#include "runtime_state.h"

namespace streamrace::emu {

// `extra`: a driver launch's packed argument buffer, which `args` points into (reported to CUPTI
// as the program passed it).
cudaError_t launchKernel(const std::optional<KernelLaunchInfo>& kernel, dim3 grid, dim3 block,
                         void** args, std::size_t sharedMem, cudaStream_t handle,
                         DefaultStream zero, void** extra = nullptr);

} // namespace streamrace::emu
