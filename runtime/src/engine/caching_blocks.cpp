// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A caching allocator's blocks (PyTorch's), from the allocator's own events: a block handed out
// for a stream lives from that point of the stream, as stream-ordered memory does; the cache may
// hand a freed block out again on its stream at once, so its free is a point of that stream,
// after the work of the streams recorded as using it (record_stream) up to the free. An access
// not ordered before the free is the block freed while in use: the bug record_stream exists to
// prevent, reported with where the block was handed out again. Accesses after the free are
// not checked against it: the memory may already belong to another tensor.
#include "streamrace/engine/engine.h"

#include <algorithm>

namespace streamrace {

void Engine::begin_life_on_stream(const EventHeader& h, ThreadState& thread, StreamState& stream,
                                  Allocation& allocation) {
  allocation.actor = stream.actor;
  allocation.epoch = ordering_.enqueue(stream, thread);
  AccessRecord birth;
  birth.epoch = allocation.epoch;
  birth.actor = stream.actor;
  birth.kind = OpKind::Allocation;
  birth.mode = AccessMode::Write;
  birth.site = h.site;
  birth.nvtx = thread.nvtx_path;
  birth.begin = allocation.base;
  birth.size = allocation.size;
  birth.op = ++op_counter_;
  birth.thread = thread.id;
  shadow_.space(h.address_space).reset(allocation.base, allocation.size, &birth);
}

void Engine::handle_block(const EventHeader& h, ThreadState& thread, const BlockAlloc& p) {
  if (p.size == 0) return;
  StreamState& stream = ordering_.stream(thread, p.stream);
  BlockState& state = block_states_[{h.address_space, p.base}];
  if (state.freed_in_use) findings_.set_reuse_site(*state.freed_in_use, h.site);
  state = BlockState{p.stream, {}, {}};
  Allocation block{p.base,
                   p.size,
                   MemoryKind::CachingBlock,
                   p.device == kCurrentDevice ? thread.device : p.device,
                   h.rank,
                   h.site};
  begin_life_on_stream(h, thread, stream, block);
  blocks_.add(h.address_space, block);
}

void Engine::handle_block(const EventHeader& h, ThreadState&, const BlockStreamUse& p) {
  auto found = block_states_.find({h.address_space, p.base});
  if (found == block_states_.end()) return;
  std::vector<StreamHandle>& used_on = found->second.used_on;
  if (std::find(used_on.begin(), used_on.end(), p.stream) == used_on.end())
    used_on.push_back(p.stream);
}

void Engine::handle_block(const EventHeader& h, ThreadState& thread, const BlockFree& p) {
  auto found = block_states_.find({h.address_space, p.base});
  if (found == block_states_.end()) return; // a block this run never saw handed out
  BlockState& state = found->second;
  const auto released = blocks_.release(h.address_space, p.base, h.site);
  if (!released) return;
  StreamState& stream = ordering_.stream(thread, state.stream);
  const Epoch epoch = ordering_.enqueue(stream, thread);
  // The free waits for the recorded streams' work without making the block's stream wait.
  VectorClock clock = stream.clock;
  for (StreamHandle used : state.used_on)
    clock.join(ordering_.stream(thread, used).clock);
  const Access end_of_life{released->base, released->size, AccessMode::Write, Extent::Exact};
  const std::size_t before = findings_.size();
  run_accesses(h, thread, stream.actor, epoch, clock, OpKind::Free, kBlockFreeDetail,
               std::span(&end_of_life, 1));
  // The cache may hand any part of the block out again, in blocks this run does not always see
  // (an operator's temporaries): later accesses start a fresh history rather than meet the free.
  shadow_.space(h.address_space).reset(released->base, released->size, nullptr);
  state.used_on.clear();
  state.freed_in_use.reset();
  if (findings_.size() > before && findings_.all().back().kind == FindingKind::BlockFreedInUse)
    state.freed_in_use = findings_.size() - 1;
}

} // namespace streamrace
