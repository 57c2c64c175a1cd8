// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/engine/collective_extents.h"

namespace streamrace {

namespace {

Access read_of(Address begin, std::uint64_t bytes) {
  return {begin, bytes, AccessMode::Read, Extent::Exact};
}
Access write_of(Address begin, std::uint64_t bytes) {
  return {begin, bytes, AccessMode::Write, Extent::Exact};
}

} // namespace

void collective_accesses(const Collective& call, int nranks, int comm_rank,
                         std::vector<Access>& accesses) {
  const std::uint64_t unit = call.count * call.element_size;
  const std::uint64_t all = unit * static_cast<std::uint64_t>(nranks > 0 ? nranks : 1);
  const bool is_root = call.root == comm_rank;
  accesses.clear();
  auto add = [&](Access a) {
    if (a.size > 0) accesses.push_back(a);
  };
  switch (call.kind) {
  case CollectiveKind::AllGather:
    add(read_of(call.send, unit));
    add(write_of(call.recv, all));
    break;
  case CollectiveKind::ReduceScatter:
    add(read_of(call.send, all));
    add(write_of(call.recv, unit));
    break;
  case CollectiveKind::AllReduce:
    add(read_of(call.send, unit));
    add(write_of(call.recv, unit));
    break;
  case CollectiveKind::Broadcast:
    if (is_root) add(read_of(call.send, unit));
    add(write_of(call.recv, unit));
    break;
  case CollectiveKind::Reduce:
    add(read_of(call.send, unit));
    if (is_root) add(write_of(call.recv, unit));
    break;
  case CollectiveKind::AllToAll:
    add(read_of(call.send, all));
    add(write_of(call.recv, all));
    break;
  case CollectiveKind::Gather:
    add(read_of(call.send, unit));
    if (is_root) add(write_of(call.recv, all));
    break;
  case CollectiveKind::Scatter:
    if (is_root) add(read_of(call.send, all));
    add(write_of(call.recv, unit));
    break;
  }
}

std::vector<Access> point_to_point_accesses(const PointToPoint& call) {
  const std::uint64_t bytes = call.count * call.element_size;
  if (bytes == 0) return {};
  return {call.is_send ? read_of(call.buffer, bytes) : write_of(call.buffer, bytes)};
}

} // namespace streamrace
