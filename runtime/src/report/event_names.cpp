// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/report/event_names.h"

#include "streamrace/engine/event.h"

#include <type_traits>

namespace streamrace {

namespace {

const StackFrame* located_frame(const EventSummary& event, const SymbolTable& symbols) {
  const CallSite* site = symbols.call_site(event.header.site);
  if (!site) return nullptr;
  for (const StackFrame& frame : site->frames)
    if (!frame.file.empty()) return &frame;
  return nullptr;
}

std::string file_line(const StackFrame* frame) {
  if (!frame) return "";
  return frame->line ? frame->file + ":" + std::to_string(frame->line) : frame->file;
}

template <typename Payload> std::string payload_api(const Payload& p, const SymbolTable& symbols) {
  if constexpr (std::is_same_v<Payload, StreamCreate>)
    return "cudaStreamCreate";
  else if constexpr (std::is_same_v<Payload, StreamDestroy>)
    return "cudaStreamDestroy";
  else if constexpr (std::is_same_v<Payload, EventCreate>)
    return "cudaEventCreate";
  else if constexpr (std::is_same_v<Payload, EventDestroy>)
    return "cudaEventDestroy";
  else if constexpr (std::is_same_v<Payload, EventRecord>)
    return "cudaEventRecord";
  else if constexpr (std::is_same_v<Payload, StreamWaitEvent>)
    return "cudaStreamWaitEvent";
  else if constexpr (std::is_same_v<Payload, StreamSynchronize>)
    return "cudaStreamSynchronize";
  else if constexpr (std::is_same_v<Payload, EventSynchronize>)
    return "cudaEventSynchronize";
  else if constexpr (std::is_same_v<Payload, DeviceSynchronize>)
    return "cudaDeviceSynchronize";
  else if constexpr (std::is_same_v<Payload, SetDevice>)
    return "cudaSetDevice";
  else if constexpr (std::is_same_v<Payload, Alloc>)
    return p.kind == MemoryKind::StreamOrdered ? "cudaMallocAsync" : "cudaMalloc";
  else if constexpr (std::is_same_v<Payload, Free>)
    return p.api == FreeApi::FreeAsync ? "cudaFreeAsync" : "cudaFree";
  else if constexpr (std::is_same_v<Payload, Copy>)
    return p.synchronous_api ? "cudaMemcpy" : "cudaMemcpyAsync";
  else if constexpr (std::is_same_v<Payload, Set>)
    return p.synchronous_api ? "cudaMemset" : "cudaMemsetAsync";
  else if constexpr (std::is_same_v<Payload, KernelLaunch>)
    return p.kernel ? std::string(symbols.name(p.kernel)) : "cudaLaunchKernel";
  else if constexpr (std::is_same_v<Payload, HostFunction>)
    return "cudaLaunchHostFunc";
  else if constexpr (std::is_same_v<Payload, HostAccess>)
    return "host access";
  else if constexpr (std::is_same_v<Payload, CommInit>)
    return "ncclCommInitRank";
  else if constexpr (std::is_same_v<Payload, CommDestroy>)
    return "ncclCommDestroy";
  else if constexpr (std::is_same_v<Payload, Collective>)
    return api_model::collectiveInfo(p.kind).function;
  else if constexpr (std::is_same_v<Payload, PointToPoint>)
    return p.is_send ? "ncclSend" : "ncclRecv";
  else if constexpr (std::is_same_v<Payload, GroupStart>)
    return "ncclGroupStart";
  else if constexpr (std::is_same_v<Payload, GroupEnd>)
    return "ncclGroupEnd";
  else if constexpr (std::is_same_v<Payload, CaptureBegin>)
    return "cudaStreamBeginCapture";
  else if constexpr (std::is_same_v<Payload, CaptureEnd>)
    return "cudaStreamEndCapture";
  else if constexpr (std::is_same_v<Payload, GraphInstantiate>)
    return "cudaGraphInstantiate";
  else if constexpr (std::is_same_v<Payload, GraphExecDestroy>)
    return "cudaGraphExecDestroy";
  else if constexpr (std::is_same_v<Payload, GraphLaunch>)
    return "cudaGraphLaunch";
  else if constexpr (std::is_same_v<Payload, NvtxRangePush>)
    return "nvtxRangePush";
  else if constexpr (std::is_same_v<Payload, NvtxRangePop>)
    return "nvtxRangePop";
  else if constexpr (std::is_same_v<Payload, NameStream>)
    return "nvtxNameCudaStream";
  else if constexpr (std::is_same_v<Payload, NameEvent>)
    return "nvtxNameCudaEvent";
  else if constexpr (std::is_same_v<Payload, NameMemory>)
    return "name memory";
  else if constexpr (std::is_same_v<Payload, BlockAlloc>)
    return "caching allocator: block handed out";
  else if constexpr (std::is_same_v<Payload, BlockStreamUse>)
    return "caching allocator: record_stream";
  else if constexpr (std::is_same_v<Payload, BlockFree>)
    return "caching allocator: block freed";
  else if constexpr (std::is_same_v<Payload, HostRelease>)
    return "host release";
  else if constexpr (std::is_same_v<Payload, HostAcquire>)
    return "host acquire";
  else if constexpr (std::is_same_v<Payload, HostFunctionEnd>)
    return "host function end";
  else if constexpr (std::is_same_v<Payload, AccessChecks>)
    return p.paused ? "access checking paused" : "access checking resumed";
  else if constexpr (std::is_same_v<Payload, HostNodeAccess>)
    return "graph host node access";
  else if constexpr (std::is_same_v<Payload, RankDevice>)
    return "rank device";
  else
    static_assert(sizeof(Payload) == 0, "every payload needs a name");
}

std::uint64_t sum(const std::vector<Access>& accesses) {
  std::uint64_t bytes = 0;
  for (const Access& access : accesses)
    bytes += access.size;
  return bytes;
}

std::uint64_t event_bytes(const Event& event) {
  return std::visit(
      [](const auto& p) -> std::uint64_t {
        using Payload = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<Payload, Copy> || std::is_same_v<Payload, Set>)
          return p.width * p.height;
        else if constexpr (std::is_same_v<Payload, KernelLaunch> ||
                           std::is_same_v<Payload, HostFunction> ||
                           std::is_same_v<Payload, HostAccess> ||
                           std::is_same_v<Payload, HostNodeAccess>)
          return sum(p.accesses);
        else if constexpr (std::is_same_v<Payload, Collective> ||
                           std::is_same_v<Payload, PointToPoint>)
          return p.count * p.element_size;
        else if constexpr (std::is_same_v<Payload, Alloc>)
          return p.size;
        else
          return 0;
      },
      event.payload);
}

bool names_only(const Event& event) {
  return std::holds_alternative<NvtxRangePush>(event.payload) ||
         std::holds_alternative<NvtxRangePop>(event.payload) ||
         std::holds_alternative<NameStream>(event.payload) ||
         std::holds_alternative<NameEvent>(event.payload) ||
         std::holds_alternative<NameMemory>(event.payload) ||
         std::holds_alternative<RankDevice>(event.payload);
}

} // namespace

std::string event_api(const EventSummary& event, const SymbolTable& symbols) {
  if (const CallSite* site = symbols.call_site(event.header.site); site && !site->api.empty())
    return site->api;
  return std::string(symbols.name(event.payload_api));
}

std::string event_file_line(const EventSummary& event, const SymbolTable& symbols) {
  return file_line(located_frame(event, symbols));
}

std::string event_location(const EventSummary& event, const SymbolTable& symbols) {
  const StackFrame* frame = located_frame(event, symbols);
  if (!frame) return "";
  const std::string where = event_file_line(event, symbols);
  return frame->function.empty() ? where : frame->function + " " + where;
}

const StackFrame* program_frame(const EventSummary& event, const SymbolTable& symbols) {
  if (const CallSite* site = symbols.call_site(event.header.site))
    for (const StackFrame& frame : site->frames)
      if (frame.file.ends_with(".py") && frame.file.find("/torch/") == std::string::npos)
        return &frame;
  return located_frame(event, symbols);
}

std::string program_line(const EventSummary& event, const SymbolTable& symbols) {
  return file_line(program_frame(event, symbols));
}

EventSummary summarize(const Event& event, SymbolTable& symbols) {
  const std::string api =
      std::visit([&](const auto& payload) { return payload_api(payload, symbols); }, event.payload);
  return EventSummary{event.header, symbols.intern(api), names_only(event), event_bytes(event)};
}

} // namespace streamrace
