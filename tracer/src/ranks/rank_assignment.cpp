// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "ranks/rank_assignment.h"

namespace streamrace::tracer {

namespace {

template <typename... Handlers> struct Overloaded : Handlers... {
  using Handlers::operator()...;
};

template <typename Map, typename Key>
DeviceId lookup(const Map& map, const Key& key, DeviceId fallback) {
  const auto it = map.find(key);
  return it == map.end() ? fallback : it->second;
}

} // namespace

DeviceId RankAssignment::current_device(ThreadId thread) const {
  return lookup(current_devices_, thread, 0);
}

DeviceId RankAssignment::device_of_stream(ThreadId thread, StreamHandle stream) const {
  // The default streams exist once per device: the thread's current one.
  if (stream == 0 || stream == kLegacyStream || stream == kPerThreadStream)
    return current_device(thread);
  return lookup(stream_devices_, stream, current_device(thread));
}

DeviceId RankAssignment::device_of(ThreadId thread, const Payload& payload) {
  const DeviceId current = current_device(thread);
  auto on_stream = [&](StreamHandle stream) { return device_of_stream(thread, stream); };
  auto explicit_or_current = [&](DeviceId device) {
    return device == kCurrentDevice ? current : device;
  };
  return std::visit(
      Overloaded{
          [&](const StreamCreate& p) {
            const DeviceId device = explicit_or_current(p.device);
            stream_devices_[p.stream] = device;
            return device;
          },
          [&](const StreamDestroy& p) { return on_stream(p.stream); },
          [&](const EventCreate& p) { return event_devices_[p.event] = current; },
          [&](const EventDestroy& p) { return lookup(event_devices_, p.event, current); },
          [&](const EventRecord& p) { return on_stream(p.stream); },
          [&](const StreamWaitEvent& p) { return on_stream(p.stream); },
          [&](const StreamSynchronize& p) { return on_stream(p.stream); },
          [&](const EventSynchronize& p) { return lookup(event_devices_, p.event, current); },
          [&](const DeviceSynchronize& p) { return explicit_or_current(p.device); },
          [&](const SetDevice& p) { return current_devices_[thread] = p.device; },
          [&](const Alloc& p) {
            const DeviceId device = explicit_or_current(p.device);
            allocation_devices_[p.base] = device;
            return device;
          },
          [&](const Free& p) {
            const auto it = allocation_devices_.find(p.base);
            if (it == allocation_devices_.end()) return current;
            const DeviceId device = it->second;
            allocation_devices_.erase(it);
            return device;
          },
          [&](const Copy& p) { return on_stream(p.stream); },
          [&](const Set& p) { return on_stream(p.stream); },
          [&](const KernelLaunch& p) { return on_stream(p.stream); },
          [&](const HostFunction& p) { return on_stream(p.stream); },
          [&](const HostRelease& p) { return p.host_function ? on_stream(p.stream) : current; },
          [&](const HostAcquire& p) { return p.host_function ? on_stream(p.stream) : current; },
          [&](const HostFunctionEnd& p) { return on_stream(p.stream); },
          [&](const CommInit& p) {
            const DeviceId device = explicit_or_current(p.device);
            comm_devices_[p.comm] = device;
            return device;
          },
          [&](const CommDestroy& p) { return lookup(comm_devices_, p.comm, current); },
          [&](const Collective& p) { return lookup(comm_devices_, p.comm, current); },
          [&](const PointToPoint& p) { return lookup(comm_devices_, p.comm, current); },
          [&](const CaptureBegin& p) { return on_stream(p.stream); },
          [&](const CaptureEnd& p) { return on_stream(p.stream); },
          [&](const GraphLaunch& p) { return on_stream(p.stream); },
          [&](const NameStream& p) { return on_stream(p.stream); },
          [&](const NameEvent& p) { return lookup(event_devices_, p.event, current); },
          [&](const NameMemory& p) { return lookup(allocation_devices_, p.base, current); },
          [&](const auto&) { return current; },
      },
      payload);
}

RankId RankAssignment::rank_of_device(DeviceId device, bool& new_rank) {
  if (const auto it = device_ranks_.find(device); it != device_ranks_.end()) return it->second;
  new_rank = true;
  const RankId rank = process_rank_ + stride_ * static_cast<RankId>(device_ranks_.size());
  device_ranks_.emplace(device, rank);
  ranks_.push_back(rank);
  return rank;
}

// Whether the event puts work or resources on its device, so that the device is in use. Other
// events (selecting a device, waits, context-initializing cudaFree(0), names) give no device a
// rank: a process that looks at every device before settling on one keeps its launcher's rank.
bool uses_device(const Payload& payload) {
  if (const auto* free = std::get_if<Free>(&payload)) return free->base != 0;
  return std::holds_alternative<StreamCreate>(payload) ||
         std::holds_alternative<EventCreate>(payload) || std::holds_alternative<Alloc>(payload) ||
         std::holds_alternative<Copy>(payload) || std::holds_alternative<Set>(payload) ||
         std::holds_alternative<KernelLaunch>(payload) ||
         std::holds_alternative<HostFunction>(payload) ||
         std::holds_alternative<EventRecord>(payload) ||
         std::holds_alternative<StreamWaitEvent>(payload) ||
         std::holds_alternative<CommInit>(payload) || std::holds_alternative<Collective>(payload) ||
         std::holds_alternative<PointToPoint>(payload) ||
         std::holds_alternative<CaptureBegin>(payload) ||
         std::holds_alternative<GraphLaunch>(payload);
}

RankAssignment::Placement RankAssignment::place(ThreadId thread, const Payload& payload) {
  const DeviceId device = device_of(thread, payload);
  if (uses_device(payload)) {
    bool new_rank = false;
    const RankId rank = rank_of_device(device, new_rank);
    return {rank, device, new_rank};
  }
  if (const auto it = device_ranks_.find(device); it != device_ranks_.end())
    return {it->second, device};
  return {ranks_.empty() ? process_rank_ : ranks_.front(), device};
}

} // namespace streamrace::tracer
