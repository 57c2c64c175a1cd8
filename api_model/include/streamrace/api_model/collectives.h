// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The NCCL collectives and what each is, built from the one list collectives.inc, so that the
// API tables, the engine, the trace format, the reports and the emulator name them alike.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace streamrace::api_model {

enum class CollectiveKind : std::uint8_t {
#define STREAMRACE_COLLECTIVE(kind, ...) kind,
#include "streamrace/api_model/collectives.inc"
};

// One line of collectives.inc.
struct CollectiveInfo {
  CollectiveKind kind;
  const char* function; // "ncclAllGather"
  bool rooted;          // takes a root rank
  bool reducing;        // takes a reduction operation
};

// Indexed by CollectiveKind.
inline constexpr std::array kCollectives{
#define STREAMRACE_COLLECTIVE(kind, ...) CollectiveInfo{CollectiveKind::kind, __VA_ARGS__},
#include "streamrace/api_model/collectives.inc"
};

constexpr const CollectiveInfo& collectiveInfo(CollectiveKind kind) {
  return kCollectives[static_cast<std::size_t>(kind)];
}

} // namespace streamrace::api_model
