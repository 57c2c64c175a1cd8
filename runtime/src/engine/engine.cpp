// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The engine's dispatch: one handler per event, the accesses each op makes (copies and sets
// expanded into byte ranges) checked against shadow memory. Graphs, NCCL groups and findings have
// files of their own (engine_graphs.cpp, engine_nccl.cpp, engine_findings.cpp).
#include "streamrace/engine/engine.h"

#include "streamrace/api_model/host_wait.h"

#include <cstdio>
#include <string>
#include <type_traits>

namespace streamrace {

namespace {

constexpr std::uint64_t kHistoryCheckInterval = 4096;

bool is_host_memory(MemoryKind kind) {
  return kind == MemoryKind::Pageable || kind == MemoryKind::PinnedHost;
}

api_model::MemorySpace memory_space(MemoryKind kind) {
  switch (kind) {
  case MemoryKind::Pageable:
    return api_model::MemorySpace::Pageable;
  case MemoryKind::PinnedHost:
    return api_model::MemorySpace::Pinned;
  case MemoryKind::Managed:
    return api_model::MemorySpace::Managed;
  case MemoryKind::Device:
  case MemoryKind::StreamOrdered:
  case MemoryKind::CachingBlock:
    return api_model::MemorySpace::Device;
  }
  return api_model::MemorySpace::Pageable;
}

void default_warning(std::string_view text) {
  std::fprintf(stderr, "%.*s\n", static_cast<int>(text.size()), text.data());
}

} // namespace

Engine::Engine(Options options, WarningSink warn)
    : options_(options), warn_(warn ? std::move(warn) : WarningSink(default_warning)) {}

void Engine::process(const Event& event) {
  ++stats_.events;
  std::visit([&](const auto& payload) { handle(event, payload); }, event.payload);
}

void Engine::process(std::span<const Event> events) {
  // Each stage far enough ahead for its miss to land before the event runs: an access's
  // lookup slot first, then the interval the slot names. An event is decoded once, by the
  // first stage; the second finds its accesses in `warmed`, by event number.
  constexpr std::size_t k_slot_ahead = 8;
  constexpr std::size_t k_interval_ahead = 4;
  std::array<WarmedAccesses, k_slot_ahead> warmed{};
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (i + k_slot_ahead < events.size())
      warmed[(i + k_slot_ahead) % k_slot_ahead] = warm_accesses(events[i + k_slot_ahead]);
    if (i + k_interval_ahead < events.size())
      for (const WarmedAccess& access : warmed[(i + k_interval_ahead) % k_slot_ahead])
        if (access.space) access.space->prefetch_interval(access.begin);
    process(events[i]);
  }
}

Engine::WarmedAccesses Engine::warm_accesses(const Event& event) const {
  WarmedAccesses accesses{};
  const ShadowSpace* space = shadow_.find(event.header.address_space);
  if (!space) return accesses;
  // Kernels and copies make nearly every access a program makes.
  if (const auto* launch = std::get_if<KernelLaunch>(&event.payload)) {
    for (std::size_t k = 0; k < std::min(accesses.size(), launch->accesses.size()); ++k) {
      const Address begin = launch->accesses[k].begin;
      space->prefetch_slot(begin);
      accesses[k] = {space, begin};
    }
  } else if (const auto* copy = std::get_if<Copy>(&event.payload)) {
    space->prefetch_slot(copy->src);
    space->prefetch_slot(copy->dst);
    accesses = {WarmedAccess{space, copy->src}, WarmedAccess{space, copy->dst}};
  }
  return accesses;
}

// ---- Accesses ----

void Engine::run_accesses(const EventHeader& header, const ThreadState& thread, ActorId actor,
                          Epoch epoch, const VectorClock& clock, OpKind kind, std::uint8_t detail,
                          std::span<const Access> accesses) {
  if (!open_pauses_.empty())
    if (const auto open = open_pauses_.find(header.address_space); open != open_pauses_.end()) {
      CheckingPause& pause = checking_pauses_[open->second];
      pause.unchecked_accesses += accesses.size();
      pause.end_ns = std::max(pause.end_ns, header.time_ns);
      return;
    }
  // Settling checks other processes' accesses elsewhere, but the report's pauses come from here.
  if (!ordering_.is_local(header.rank)) return;
  ++stats_.ops;
  const std::uint64_t op = ++op_counter_;
  ShadowSpace& space = shadow_.space(header.address_space);
  // One record per op; each access fills in its own range and mode.
  AccessRecord record;
  record.epoch = epoch;
  record.actor = actor;
  record.kind = kind;
  record.detail = detail;
  record.site = header.site;
  record.nvtx = thread.nvtx_path;
  record.op = op;
  record.thread = thread.id;
  for (const Access& access : accesses) {
    ++stats_.accesses;
    record.begin = access.begin;
    record.size = access.size;
    record.mode = access.mode;
    record.extent = access.extent;
    conflicts_.clear();
    space.apply(record, clock, conflicts_);
    for (const Conflict& conflict : conflicts_)
      report(header, record, conflict, clock);
  }
  if (op % kHistoryCheckInterval == 0) trim_history();
}

void Engine::pause_checks(const EventHeader& header, const AccessChecks& change) {
  const auto open = open_pauses_.find(header.address_space);
  if (change.paused && open == open_pauses_.end()) {
    open_pauses_.emplace(header.address_space, checking_pauses_.size());
    checking_pauses_.push_back(
        {header.rank, header.address_space, header.time_ns, header.time_ns, 0, 0, false});
  } else if (!change.paused && open != open_pauses_.end()) {
    CheckingPause& pause = checking_pauses_[open->second];
    pause.end_ns = std::max(pause.end_ns, header.time_ns);
    pause.caller_wait_ns = change.caller_wait_ns;
    pause.resumed = true;
    open_pauses_.erase(open);
  }
}

void Engine::trim_history() {
  const std::uint64_t limit = options_.history_limit_mb << 20;
  if (shadow_.approximate_bytes() <= limit) return;
  const std::uint64_t threshold = shadow_.median_age();
  shadow_.evict_older_than(threshold);
  ++stats_.history_evictions;
  if (!history_warned_) {
    history_warned_ = true;
    warn_("streamrace: access history reached history_limit_mb=" +
          std::to_string(options_.history_limit_mb) +
          "; dropping the oldest history (races against accesses older than op #" +
          std::to_string(threshold) + " are no longer detected)");
  }
}

// ---- Copies and sets ----

void Engine::append_rows(std::vector<Access>& out, Address base, const RowLayout& layout,
                         AccessMode mode) const {
  std::uint64_t width = layout.width, height = layout.height, pitch = layout.pitch;
  std::uint64_t depth = layout.depth;
  if (width == 0 || height == 0 || depth == 0) return;
  // Slices whose rows continue one another's are one taller slice.
  if (depth > 1 && (layout.slice_pitch == height * pitch || layout.slice_pitch == 0)) {
    height *= depth;
    depth = 1;
  }
  // Rows that touch each other (or a 1D range) are one contiguous range.
  if (height == 1 || pitch == width || pitch == 0) {
    if (depth == 1 || layout.slice_pitch == width * height) {
      out.push_back({base, width * height * depth, mode, Extent::Exact});
      return;
    }
    width *= height; // each slice is one contiguous row
    height = 1;
  }
  if (height * depth > options_.max_expanded_rows) {
    const std::uint64_t slice_span = pitch * (height - 1) + width;
    out.push_back({base, layout.slice_pitch * (depth - 1) + slice_span, mode, Extent::Approximate});
    return;
  }
  for (std::uint64_t slice = 0; slice < depth; ++slice)
    for (std::uint64_t row = 0; row < height; ++row)
      out.push_back({base + slice * layout.slice_pitch + row * pitch, width, mode, Extent::Exact});
}

void Engine::copy_accesses(const Copy& copy, std::vector<Access>& accesses) const {
  accesses.clear();
  append_rows(accesses, copy.src,
              {copy.width, copy.height, copy.src_pitch, copy.depth, copy.src_slice_pitch},
              AccessMode::Read);
  append_rows(accesses, copy.dst,
              {copy.width, copy.height, copy.dst_pitch, copy.depth, copy.dst_slice_pitch},
              AccessMode::Write);
}

// Rule 7: which copies the host waits for (the synchronous APIs' table is the API model's).
bool Engine::copy_waits_for_host(const Copy& copy, std::uint32_t address_space) const {
  // An asynchronous copy that does not land in host memory never holds the host: no need to
  // look up what memory it touches.
  if (!copy.synchronous_api && copy.direction != CopyKind::Default &&
      copy.direction != CopyKind::DeviceToHost)
    return false;
  const api_model::MemorySpace source = memory_space(allocations_.kind_of(address_space, copy.src));
  const api_model::MemorySpace destination =
      memory_space(allocations_.kind_of(address_space, copy.dst));
  if (copy.synchronous_api)
    return api_model::synchronousCopyHoldsHost(copy.direction, source, destination);
  return api_model::asynchronousCopyHoldsHost(copy.direction, source, destination) &&
         !options_.strict_pageable_copy;
}

void Engine::set_nvtx_path(ThreadState& thread) {
  auto [it, inserted] =
      nvtx_path_ids_.try_emplace(thread.nvtx_stack, static_cast<std::uint32_t>(nvtx_paths_.size()));
  if (inserted) nvtx_paths_.push_back(thread.nvtx_stack);
  thread.nvtx_path = it->second;
}

// ---- One handler per event ----

template <typename Payload> void Engine::handle(const Event& event, const Payload& p) {
  const EventHeader& h = event.header;
  ThreadState& thread = ordering_.thread(h.rank, h.thread);
  ordering_.continue_program_order(thread, h.address_space);

  if constexpr (std::is_same_v<Payload, StreamCreate>) {
    ordering_.create_stream(thread, p);
  } else if constexpr (std::is_same_v<Payload, StreamDestroy>) {
    ordering_.destroy_stream(thread, p.stream);
  } else if constexpr (std::is_same_v<Payload, EventCreate>) {
    ordering_.event(h.address_space, p.event) = EventState{};
  } else if constexpr (std::is_same_v<Payload, EventDestroy>) {
    ordering_.destroy_event(h.address_space, p.event);
  } else if constexpr (std::is_same_v<Payload, EventRecord>) {
    StreamState& stream = ordering_.stream(thread, p.stream);
    EventState& recorded = ordering_.event(h.address_space, p.event);
    if (capture_if_capturing(event, stream)) {
      recorded.capture = stream.capture;
      return;
    }
    recorded.capture = 0;
    ordering_.record(p.event, recorded, stream, thread);
    stream.last_event_space = h.address_space;
  } else if constexpr (std::is_same_v<Payload, StreamWaitEvent>) {
    StreamState& stream = ordering_.stream(thread, p.stream);
    if (capture_if_capturing(event, stream)) return;
    const EventState* awaited = ordering_.find_event(h.address_space, p.event);
    if (awaited && join_capture(event, stream, *awaited)) return;
    if (!awaited || !awaited->recorded) {
      stream.unrecorded_wait =
          UnrecordedWait{p.event, awaited ? awaited->name : 0, h.site, stream.handle};
      ordering_.prepare(stream, thread);
      return;
    }
    ordering_.wait(stream, *awaited, thread);
  } else if constexpr (std::is_same_v<Payload, StreamSynchronize>) {
    if (!p.completed) return;
    StreamState& stream = ordering_.stream(thread, p.stream);
    // Rule 6: synchronizing the legacy stream waits for what an action on it would wait for.
    if (stream.kind == StreamKind::LegacyDefault && !options_.strict_legacy_sync)
      ordering_.host_waits_for_device(thread, stream.device, Ordering::DeviceStreams::Blocking);
    else
      ordering_.host_waits_for(thread, stream);
  } else if constexpr (std::is_same_v<Payload, EventSynchronize>) {
    if (!p.completed) return;
    if (const EventState* awaited = ordering_.find_event(h.address_space, p.event))
      ordering_.host_waits_for(thread, *awaited);
  } else if constexpr (std::is_same_v<Payload, DeviceSynchronize>) {
    ordering_.host_waits_for_device(thread, p.device);
  } else if constexpr (std::is_same_v<Payload, SetDevice>) {
    thread.device = p.device;
  } else if constexpr (std::is_same_v<Payload, Alloc>) {
    Allocation allocation{p.base, p.size,
                          p.kind, p.device == kCurrentDevice ? thread.device : p.device,
                          h.rank, h.site};
    ShadowSpace& space = shadow_.space(h.address_space);
    if (p.kind == MemoryKind::StreamOrdered) {
      // Rule 10: the range lives from this point of the stream on.
      StreamState& stream = ordering_.stream(thread, p.stream);
      if (capture_if_capturing(event, stream)) return;
      begin_life_on_stream(h, thread, stream, allocation);
    } else {
      if (p.kind == MemoryKind::Managed) ordering_.host_waits_for_device(thread, kCurrentDevice);
      space.reset(p.base, p.size, nullptr);
    }
    allocations_.add(h.address_space, allocation);
  } else if constexpr (std::is_same_v<Payload, Free>) {
    if (p.api == FreeApi::FreeAsync) {
      StreamState& stream = ordering_.stream(thread, p.stream);
      if (capture_if_capturing(event, stream)) return;
      const auto released = allocations_.release(h.address_space, p.base, h.site);
      if (!released) return; // a pointer this run never saw allocated: nothing to check
      const Epoch epoch = ordering_.enqueue(stream, thread);
      const Access end_of_life{released->base, released->size, AccessMode::Write, Extent::Exact};
      run_accesses(h, thread, stream.actor, epoch, stream.clock, OpKind::Free, 0,
                   std::span(&end_of_life, 1));
      return;
    }
    const auto released = allocations_.release(h.address_space, p.base, h.site);
    if (!released || p.api == FreeApi::HostUnregister) return;
    // Rule 8: cudaFree and cudaFreeHost wait for the device, except for pool memory.
    if (released->kind != MemoryKind::StreamOrdered && !options_.strict_free)
      ordering_.host_waits_for_device(thread, is_host_memory(released->kind) ? kCurrentDevice
                                                                             : released->device);
    const Epoch epoch = ordering_.host_action(thread);
    const Access end_of_life{released->base, released->size, AccessMode::Write, Extent::Exact};
    run_accesses(h, thread, thread.actor, epoch, thread.clock, OpKind::Free, 0,
                 std::span(&end_of_life, 1));
  } else if constexpr (std::is_same_v<Payload, Copy>) {
    StreamState& stream = ordering_.stream(thread, p.stream);
    if (capture_if_capturing(event, stream)) return;
    copy_accesses(p, accesses_);
    const Epoch epoch = ordering_.enqueue(stream, thread);
    run_accesses(h, thread, stream.actor, epoch, stream.clock, OpKind::Copy, 0, accesses_);
    if (copy_waits_for_host(p, h.address_space)) ordering_.host_waits_for(thread, stream);
  } else if constexpr (std::is_same_v<Payload, Set>) {
    StreamState& stream = ordering_.stream(thread, p.stream);
    if (capture_if_capturing(event, stream)) return;
    accesses_.clear();
    append_rows(accesses_, p.dst, {p.width, p.height, p.pitch, p.depth, p.slice_pitch},
                AccessMode::Write);
    const Epoch epoch = ordering_.enqueue(stream, thread);
    run_accesses(h, thread, stream.actor, epoch, stream.clock, OpKind::Set, 0, accesses_);
    const MemoryKind kind = allocations_.kind_of(h.address_space, p.dst);
    if (p.synchronous_api && api_model::synchronousSetHoldsHost(memory_space(kind)))
      ordering_.host_waits_for(thread, stream);
  } else if constexpr (std::is_same_v<Payload, KernelLaunch> ||
                       std::is_same_v<Payload, HostFunction>) {
    StreamState& stream = ordering_.stream(thread, p.stream);
    if (capture_if_capturing(event, stream)) return;
    const Epoch epoch = ordering_.enqueue(stream, thread);
    constexpr OpKind kind =
        std::is_same_v<Payload, KernelLaunch> ? OpKind::Kernel : OpKind::HostFunction;
    run_accesses(h, thread, stream.actor, epoch, stream.clock, kind, 0, p.accesses);
    if constexpr (std::is_same_v<Payload, HostFunction>) {
      if (p.run != 0) ordering_.begin_late_run(stream, h.address_space, p.run);
    }
  } else if constexpr (std::is_same_v<Payload, HostAccess>) {
    const Epoch epoch = ordering_.host_action(thread);
    run_accesses(h, thread, thread.actor, epoch, thread.clock, OpKind::HostAccess, 0, p.accesses);
  } else if constexpr (std::is_same_v<Payload, CommInit>) {
    ordering_.init_comm(h.rank, p);
  } else if constexpr (std::is_same_v<Payload, CommDestroy>) {
    ordering_.destroy_comm(h.rank, p.comm);
  } else if constexpr (std::is_same_v<Payload, Collective> ||
                       std::is_same_v<Payload, PointToPoint>) {
    if (thread.group_depth > 0) {
      thread.group_calls.push_back(event);
      return;
    }
    run_group(thread, std::span(&event, 1));
  } else if constexpr (std::is_same_v<Payload, GroupStart>) {
    ++thread.group_depth;
  } else if constexpr (std::is_same_v<Payload, GroupEnd>) {
    if (thread.group_depth == 0) return; // unbalanced ncclGroupEnd: NCCL rejects it too
    if (--thread.group_depth > 0) return;
    std::vector<Event> calls = std::move(thread.group_calls);
    thread.group_calls.clear();
    run_group(thread, calls);
  } else if constexpr (std::is_same_v<Payload, CaptureBegin>) {
    begin_capture(thread, p);
  } else if constexpr (std::is_same_v<Payload, CaptureEnd>) {
    end_capture(h, thread, p);
  } else if constexpr (std::is_same_v<Payload, GraphInstantiate>) {
    instantiate_graph(h.address_space, p);
  } else if constexpr (std::is_same_v<Payload, GraphLaunch>) {
    launch_graph(event, p);
  } else if constexpr (std::is_same_v<Payload, GraphExecDestroy>) {
    destroy_executable(h.address_space, p);
  } else if constexpr (std::is_same_v<Payload, HostNodeAccess>) {
    host_node_accesses_[RankHandleKey{h.address_space, p.exec}].push_back(event);
  } else if constexpr (std::is_same_v<Payload, RankDevice>) {
    rank_identities_[h.rank] = RankIdentity{h.address_space, p.process_rank, p.device};
  } else if constexpr (std::is_same_v<Payload, NvtxRangePush>) {
    thread.nvtx_stack.push_back(p.name);
    set_nvtx_path(thread);
  } else if constexpr (std::is_same_v<Payload, NvtxRangePop>) {
    if (thread.nvtx_stack.empty()) return;
    thread.nvtx_stack.pop_back();
    set_nvtx_path(thread);
  } else if constexpr (std::is_same_v<Payload, NameStream>) {
    ordering_.name_stream(thread, p.stream, p.name);
  } else if constexpr (std::is_same_v<Payload, NameEvent>) {
    ordering_.event(h.address_space, p.event).name = p.name;
  } else if constexpr (std::is_same_v<Payload, NameMemory>) {
    allocations_.name(h.address_space, p.base, p.name);
  } else if constexpr (std::is_same_v<Payload, HostRelease>) {
    const HostHandOff release{h.address_space, p.object, p.sequence, p.run};
    bool awaited = false;
    if (p.run != 0)
      awaited = ordering_.release_in_run(release);
    else if (p.host_function)
      awaited = ordering_.release(ordering_.stream(thread, p.stream), release);
    else
      awaited = ordering_.release(thread, release);
    if (awaited) recheck_pending();
  } else if constexpr (std::is_same_v<Payload, HostAcquire>) {
    const HostHandOff acquire{h.address_space, p.object, p.sequence, p.run};
    if (p.run != 0)
      ordering_.acquire_in_run(acquire);
    else if (p.host_function)
      ordering_.acquire(ordering_.stream(thread, p.stream), acquire);
    else
      ordering_.acquire(thread, acquire);
  } else if constexpr (std::is_same_v<Payload, HostFunctionEnd>) {
    if (ordering_.end_late_run(h.address_space, p.run)) recheck_pending();
  } else if constexpr (std::is_same_v<Payload, AccessChecks>) {
    pause_checks(h, p);
  } else if constexpr (std::is_same_v<Payload, BlockAlloc> ||
                       std::is_same_v<Payload, BlockStreamUse> ||
                       std::is_same_v<Payload, BlockFree>) {
    handle_block(h, thread, p);
  } else {
    static_assert(sizeof(Payload) == 0, "every payload needs a handler");
  }
}

} // namespace streamrace