// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The direction of a copy as cudaMemcpyKind states it, with its values: the API tables, the
// engine's copies and trace files all hold this one enum.
#pragma once

#include <cstdint>

namespace streamrace::api_model {

enum class CopyKind : std::uint8_t {
  HostToHost = 0,
  HostToDevice = 1,
  DeviceToHost = 2,
  DeviceToDevice = 3,
  Default = 4, // cudaMemcpyDefault: the engine infers the direction from the pointers
};

} // namespace streamrace::api_model
