// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/report/finding_names.h"

#include "streamrace/engine/event.h"

#include <sstream>

namespace streamrace {

std::string actor_text(const Engine& engine, const SymbolTable& symbols, ActorId id) {
  const ActorInfo& actor = engine.ordering().actor(id);
  if (!actor.is_stream) return "host thread " + std::to_string(actor.handle);
  if (actor.name != 0) return "stream '" + std::string(symbols.name(actor.name)) + "'";
  if (actor.graph_lane) return "a graph lane";
  switch (actor.stream_kind) {
  case StreamKind::LegacyDefault:
    return "the legacy default stream";
  case StreamKind::PerThreadDefault:
    return "the per-thread default stream";
  default:
    return "stream " + hex_text(actor.handle);
  }
}

std::string access_op_text(const AccessRecord& access, const SymbolTable& symbols) {
  std::string text = op_name(access, symbols);
  if (const CallSite* site = symbols.call_site(access.site); site && !site->frames.empty()) {
    const StackFrame& top = site->frames.front();
    if (!top.file.empty()) text += " (" + top.file + ":" + std::to_string(top.line) + ")";
  }
  return text;
}

std::string op_name(const AccessRecord& access, const SymbolTable& symbols) {
  if (const CallSite* site = symbols.call_site(access.site); site && !site->api.empty())
    return site->api;
  switch (access.kind) {
  case OpKind::Copy:
    return "a copy";
  case OpKind::Set:
    return "a memset";
  case OpKind::Kernel:
    return "a kernel";
  case OpKind::HostFunction:
    return "a host function";
  case OpKind::Collective:
    return api_model::collectiveInfo(static_cast<CollectiveKind>(access.detail)).function;
  case OpKind::PointToPoint:
    return access.detail ? "ncclSend" : "ncclRecv";
  case OpKind::HostAccess:
    return "a host access";
  case OpKind::Allocation:
    return "cudaMallocAsync";
  case OpKind::Free:
    return "a free";
  }
  return "an op";
}

const char* access_mode_word(const AccessRecord& access) {
  switch (access.kind) {
  case OpKind::Free:
    return "free";
  case OpKind::Allocation:
    return "allocation";
  default:
    return access.mode == AccessMode::Read    ? "read"
           : access.mode == AccessMode::Write ? "write"
                                              : "read-write";
  }
}

std::string hex_text(std::uint64_t value) {
  std::ostringstream out;
  out << "0x" << std::hex << value;
  return out.str();
}

} // namespace streamrace
