// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The environment variables that shape the emulated machine and make races bite (documented in
// emulator/README.md). Read once, on first use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "operation.h"

namespace streamrace::emu {

struct EmulationKnobs {
  int deviceCount = 4;
  std::size_t deviceMemoryBytes = std::size_t{8} << 30;
  // Keyed by stream label: "legacy", "per-thread", or the creation index "1", "2", ...
  std::map<std::string, double> streamDelayMs;
  std::map<std::string, double, std::less<>> kindDelayMs;
  std::optional<std::uint64_t> jitterSeed;
  std::uint32_t jitterMaxMicroseconds = 0;
  // STREAMRACE_EMU_DISPATCH: "in-order" (default) starts each device's operations in submission
  // order (dispatch_order.h); "any-order" lets the OS scheduler decide.
  bool dispatchInSubmissionOrder = true;

  double delayMsFor(const std::string& streamLabel, OperationKind kind) const;

  static const EmulationKnobs& fromEnvironment();
};

} // namespace streamrace::emu
