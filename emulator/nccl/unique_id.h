// What an ncclUniqueId carries: the name of the communicator's shared-memory rendezvous.
//
// Ids are random. With STREAMRACE_EMU_NCCL_ID set to the same value in every rank (the launcher's
// --shared-nccl-ids), the n-th ncclGetUniqueId call of every process returns the same id, for
// programs where every rank asks for the id instead of receiving rank 0's.
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
