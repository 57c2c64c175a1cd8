// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The vocabulary of one NCCL call as the emulator executes it.
#pragma once

#include "streamrace/api_model/collectives.h"

#include <nccl.h>

#include <cstddef>
#include <cstdint>

namespace streamrace::emu::nccl {

// Named once, with what each takes, for the tracer and the emulator alike (collectives.inc).
using api_model::collectiveInfo;
using api_model::CollectiveKind;

// The rank-local factor of an ncclRedOpCreatePreMulSum op: each rank scales its own contribution
// before the sum. A factor in device memory is read when the collective runs, as on a GPU.
struct PreMultiplier {
  bool present = false;
  const void* deviceScalar = nullptr; // read at run time when not null
  unsigned char hostScalar[8] = {};   // the value, for ncclScalarHostImmediate
};

// One collective call on one rank. `count` is the API's count argument (per-rank for AllGather
// and ReduceScatter, per-peer for AlltoAll, Gather and Scatter).
struct CollectiveCall {
  CollectiveKind kind;
  const void* sendBuffer;
  void* receiveBuffer;
  std::size_t count;
  ncclDataType_t datatype;
  ncclRedOp_t op;         // ncclSum when the kind does not reduce, and for a pre-multiplied sum
  int root;               // -1 when the kind has no root
  std::uint64_t sequence; // the k-th collective this rank issued on the communicator
  PreMultiplier preMultiplier{};
};

enum class TransferDirection : std::int32_t { Send, Receive };

struct PointToPointCall {
  TransferDirection direction;
  const void* sendBuffer; // Send only
  void* receiveBuffer;    // Receive only
  std::size_t count;
  ncclDataType_t datatype;
  int peer;
  std::uint64_t messageIndex; // the m-th transfer in this direction between this rank and peer
};

} // namespace streamrace::emu::nccl
