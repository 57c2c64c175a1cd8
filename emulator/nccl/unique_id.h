// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
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

// The rendezvous name of a new communicator (what ncclGetUniqueId hands out).
std::string newSegmentName();
// Always random, even with STREAMRACE_EMU_NCCL_ID set: for communicators whose ranks all live in
// this process (ncclCommInitAll), which must not consume a shared id.
std::string randomSegmentName();
// The name for a communicator derived from a parent (ncclCommSplit): every member computes it.
std::string derivedSegmentName(const std::string& parentSegmentName, std::uint64_t splitIndex,
                               int color);
ncclUniqueId uniqueIdFor(const std::string& segmentName);
// Empty when the bytes were not produced by makeUniqueId (e.g. uninitialized memory).
std::optional<std::string> segmentNameOf(const ncclUniqueId& id);
// Short, stable text naming the communicator in messages.
std::string displayNameOf(const std::string& segmentName);

} // namespace streamrace::emu::nccl
