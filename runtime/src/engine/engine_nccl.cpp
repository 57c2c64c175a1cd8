// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The engine's NCCL calls (rules 12, 13, 14): the calls of a group posted together on their
// streams, their buffers checked, and their arrivals at the cross-rank meetings.
#include "streamrace/engine/engine.h"

#include "streamrace/engine/collective_extents.h"

#include <algorithm>

namespace streamrace {

void Engine::run_group(ThreadState& thread, std::span<const Event> calls) {
  auto stream_of_call = [&](const Event& call) -> StreamState& {
    return std::visit(
        [&](const auto& payload) -> StreamState& {
          if constexpr (requires { payload.stream; })
            return ordering_.stream(thread, payload.stream);
          else
            return ordering_.stream(thread, kNullStream);
        },
        call.payload);
  };
  auto comm_of_call = [](const Event& call) {
    if (const auto* c = std::get_if<Collective>(&call.payload)) return c->comm;
    return std::get<PointToPoint>(call.payload).comm;
  };

  std::vector<CommHandle>& comms = group_comms_;
  comms.clear();
  for (const Event& call : calls)
    if (std::find(comms.begin(), comms.end(), comm_of_call(call)) == comms.end())
      comms.push_back(comm_of_call(call));

  for (CommHandle handle : comms) {
    std::vector<const Event*>& members = group_members_;
    std::vector<StreamState*>& member_streams = group_member_streams_;
    std::vector<StreamState*>& streams = group_streams_;
    members.clear();
    member_streams.clear();
    streams.clear();
    for (const Event& call : calls) {
      if (comm_of_call(call) != handle) continue;
      members.push_back(&call);
      StreamState* stream = &stream_of_call(call);
      member_streams.push_back(stream);
      if (std::find(streams.begin(), streams.end(), stream) == streams.end())
        streams.push_back(stream);
    }
    bool captured = false;
    for (std::size_t m = 0; m < members.size(); ++m)
      captured |= capture_if_capturing(*members[m], *member_streams[m]);
    if (captured) continue;

    // One op posted on every stream the group uses on this communicator: all their earlier
    // work comes before each call, and all their later work after every call.
    for (StreamState* stream : streams)
      ordering_.prepare(*stream, thread);
    if (streams.size() > 1) {
      VectorClock before;
      for (StreamState* stream : streams)
        before.join(stream->clock);
      for (StreamState* stream : streams)
        ordering_.join_into(*stream, before);
    }
    CommState* comm = ordering_.comm(thread.rank, handle);
    for (std::size_t m = 0; m < members.size(); ++m) {
      const Event* call = members[m];
      StreamState& stream = *member_streams[m];
      const Epoch epoch = ordering_.advance(stream);
      if (const auto* collective = std::get_if<Collective>(&call->payload)) {
        collective_accesses(*collective, comm ? comm->nranks : 1, comm ? comm->comm_rank : 0,
                            accesses_);
        run_accesses(call->header, thread, stream.actor, epoch, stream.clock, OpKind::Collective,
                     static_cast<std::uint8_t>(collective->kind), accesses_);
        if (!comm || !options_.cross_rank_ordering) continue;
        const CollectiveCall signature{
            call->header.rank, comm->comm_rank,      call->header.site,     collective->kind,
            collective->count, collective->datatype, collective->reduce_op, collective->root};
        Arrival arrival =
            ordering_.arrive_collective(stream, *comm, comm->collectives++, signature);
        if (arrival.disagreement) {
          Finding finding;
          finding.kind = FindingKind::CollectiveMismatch;
          finding.collective = std::move(arrival.disagreement);
          findings_.add(std::move(finding));
        }
        if (arrival.completed) recheck_pending();
      } else {
        const auto& p2p = std::get<PointToPoint>(call->payload);
        run_accesses(call->header, thread, stream.actor, epoch, stream.clock, OpKind::PointToPoint,
                     p2p.is_send ? 1 : 0, point_to_point_accesses(p2p));
        if (!comm || !options_.cross_rank_ordering) continue;
        if (p2p.is_send) {
          ordering_.arrive_send(stream, *comm, p2p.peer, comm->sends_to[p2p.peer]++);
          recheck_pending();
        } else {
          ordering_.arrive_receive(stream, *comm, p2p.peer, comm->receives_from[p2p.peer]++);
        }
      }
    }
    if (streams.size() > 1) {
      VectorClock after;
      for (StreamState* stream : streams)
        after.join(stream->clock);
      for (StreamState* stream : streams)
        ordering_.join_into(*stream, after);
    }
  }
}

} // namespace streamrace
