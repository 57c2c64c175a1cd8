// What an ncclUniqueId carries: the name of the communicator's shared-memory rendezvous.
//
// Under the launcher (STREAMRACE_EMU_NCCL_ID set, the same value in every rank), the n-th
// ncclGetUniqueId call of every process returns the same id, so it does not matter whether rank
// 0 creates the id and broadcasts it (the portable way) or every rank asks for one. Elsewhere
// ids are random.
#pragma once

#include <nccl.h>

#include <optional>
#include <string>

namespace streamrace::emu::nccl {

ncclUniqueId makeUniqueId();
// The id for a communicator derived from a parent (ncclCommSplit): every member computes it.
ncclUniqueId derivedUniqueId(const std::string& parentSegmentName, std::uint64_t splitIndex,
                             int color);
// Empty when the bytes were not produced by makeUniqueId (e.g. uninitialized memory).
std::optional<std::string> segmentNameOf(const ncclUniqueId& id);
// Short, stable text naming the communicator in messages.
std::string displayNameOf(const std::string& segmentName);

} // namespace streamrace::emu::nccl
