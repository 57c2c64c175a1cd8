#include "streamrace/runtime/finding_text.h"

#include "streamrace/runtime/collective_extents.h"

#include <sstream>

namespace streamrace {

namespace {

std::string hex(std::uint64_t value) {
  std::ostringstream out;
  out << "0x" << std::hex << value;
  return out.str();
}

std::string actor_text(const Engine& engine, const SymbolTable& symbols, ActorId id) {
  const ActorInfo& actor = engine.ordering().actor(id);
  if (!actor.is_stream) return "host thread " + std::to_string(actor.handle);
  if (actor.name != 0) return "stream '" + std::string(symbols.name(actor.name)) + "'";
  if (actor.graph_lane) return "a graph lane";
  switch (actor.stream_kind) {
  case StreamKind::LegacyDefault: return "the legacy default stream";
  case StreamKind::PerThreadDefault: return "the per-thread default stream";
  default: return "stream " + hex(actor.handle);
  }
}

std::string op_name(const AccessRecord& access, const SymbolTable& symbols) {
  if (const CallSite* site = symbols.call_site(access.site); site && !site->api.empty())
    return site->api;
  switch (access.kind) {
  case OpKind::Copy: return "a copy";
  case OpKind::Set: return "a memset";
  case OpKind::Kernel: return "a kernel";
  case OpKind::HostFunction: return "a host function";
  case OpKind::Collective: return collective_name(static_cast<CollectiveKind>(access.detail));
  case OpKind::PointToPoint: return access.detail ? "ncclSend" : "ncclRecv";
  case OpKind::HostAccess: return "a host access";
  case OpKind::Allocation: return "cudaMallocAsync";
  case OpKind::Free: return "a free";
  }
  return "an op";
}

std::string where(CallSiteId id, const SymbolTable& symbols) {
  const CallSite* site = symbols.call_site(id);
  if (!site || site->frames.empty()) return {};
  const StackFrame& top = site->frames.front();
  std::string text = top.function;
  if (!top.file.empty())
    text += " (" + top.file + (top.line ? ":" + std::to_string(top.line) : "") + ")";
  return text;
}

std::string short_site(const AccessRecord& access, const SymbolTable& symbols) {
  std::string text = "the " + op_name(access, symbols);
  if (const CallSite* site = symbols.call_site(access.site); site && !site->frames.empty()) {
    const StackFrame& top = site->frames.front();
    if (!top.file.empty()) text += " (" + top.file + ":" + std::to_string(top.line) + ")";
  }
  return text;
}

std::string mode_word(const AccessRecord& access, bool capital) {
  std::string word;
  switch (access.kind) {
  case OpKind::Free: word = "free"; break;
  case OpKind::Allocation: word = "allocation"; break;
  default:
    word = access.mode == AccessMode::Read    ? "read"
           : access.mode == AccessMode::Write ? "write"
                                              : "read-write";
  }
  if (capital) word[0] = static_cast<char>(word[0] - 'a' + 'A');
  return word;
}

void access_line(std::ostringstream& out, const char* prefix, const AccessSide& side,
                 const Engine& engine, const SymbolTable& symbols, bool capital) {
  const AccessRecord& a = side.access;
  out << "  " << prefix << mode_word(a, capital) << " of " << a.size << " bytes at "
      << hex(a.begin) << " by " << actor_text(engine, symbols, a.actor) << " (rank " << side.rank
      << ", thread " << a.thread << ") in " << op_name(a, symbols);
  if (std::string at = where(a.site, symbols); !at.empty()) out << " at " << at;
  out << (a.extent == Extent::Exact ? " [exact]" : " [approximate extent]");
  const std::vector<NameId>& path = engine.nvtx_path(a.nvtx);
  if (!path.empty()) {
    out << " [nvtx:";
    for (std::size_t i = 0; i < path.size(); ++i) out << (i ? "/" : " ") << symbols.name(path[i]);
    out << "]";
  }
  out << "\n";
}

const char* memory_kind_text(MemoryKind kind) {
  switch (kind) {
  case MemoryKind::Pageable: return "pageable host";
  case MemoryKind::Device: return "device";
  case MemoryKind::PinnedHost: return "pinned host";
  case MemoryKind::Managed: return "managed";
  case MemoryKind::StreamOrdered: return "stream-ordered";
  }
  return "";
}

void describe_collective(std::ostringstream& out, const Finding& finding) {
  const CollectiveDisagreement& c = *finding.collective;
  if (finding.kind == FindingKind::CollectiveCountMismatch) {
    out << "  communicator " << hex(c.comm) << ": ranks issued different numbers of collectives:";
    for (const auto& [rank, calls] : c.calls_per_rank) out << " rank " << rank << "=" << calls;
    out << "\n";
    return;
  }
  auto call = [&](const CollectiveCall& k) {
    out << collective_name(k.kind) << "(count=" << k.count << ", datatype=" << int(k.datatype)
        << ", op=" << int(k.reduce_op) << ", root=" << k.root << ") on rank " << k.rank;
  };
  out << "  call #" << c.sequence << " on communicator " << hex(c.comm) << ": ";
  call(c.first);
  out << " vs ";
  call(c.second);
  out << "\n";
}

} // namespace

std::string describe_finding(const Finding& finding, const Engine& engine,
                             const SymbolTable& symbols) {
  std::ostringstream out;
  out << "streamrace: " << finding_kind_name(finding.kind);
  if (finding.collective) {
    out << "\n";
    describe_collective(out, finding);
    return out.str();
  }
  out << " between " << actor_text(engine, symbols, finding.second.access.actor) << " and "
      << actor_text(engine, symbols, finding.first.access.actor) << "\n";
  access_line(out, "", finding.second, engine, symbols, true);
  access_line(out, "Previous ", finding.first, engine, symbols, false);

  const MemoryContext& memory = finding.memory;
  out << "  Memory: " << memory.overlap_size << " bytes at " << hex(memory.overlap_begin);
  if (memory.allocation) {
    const Allocation& a = *memory.allocation;
    out << ", offset " << memory.overlap_begin - a.base << " of a " << a.size << "-byte "
        << memory_kind_text(a.kind) << " allocation at " << hex(a.base);
    if (a.name) out << " '" << symbols.name(a.name) << "'";
    if (std::string at = where(a.site, symbols); !at.empty()) out << " allocated at " << at;
    if (a.freed) out << " (freed)";
  }
  out << "\n";

  if (finding.unrecorded_wait) {
    const UnrecordedWait& w = *finding.unrecorded_wait;
    out << "  Note: stream waited on event " << hex(w.event);
    if (w.event_name) out << " '" << symbols.name(w.event_name) << "'";
    out << " before it was ever recorded";
    if (std::string at = where(w.site, symbols); !at.empty()) out << " at " << at;
    out << "; that wait ordered nothing\n";
  }

  const FixSuggestion& fix = finding.fix;
  const std::string from = actor_text(engine, symbols, fix.from);
  const std::string to = actor_text(engine, symbols, fix.to);
  const std::string op1 = short_site(finding.first.access, symbols);
  const std::string op2 = short_site(finding.second.access, symbols);
  switch (fix.kind) {
  case FixSuggestion::Kind::RecordAndWait:
    out << "  To fix: record an event on " << from << " after " << op1 << "; make " << to
        << " wait on it before " << op2 << "\n";
    break;
  case FixSuggestion::Kind::WaitOnExisting:
    out << "  To fix: make " << to << " wait on event " << hex(fix.event)
        << " (already recorded on " << from << " after " << op1 << ") before " << op2 << "\n";
    break;
  case FixSuggestion::Kind::HostSynchronize:
    out << "  To fix: synchronize " << from << " (or an event recorded after " << op1
        << ") on the host before " << op2 << "\n";
    break;
  case FixSuggestion::Kind::None: break;
  }
  if (finding.count > 1 || finding.ranks.size() > 1) {
    out << "  Seen " << finding.count << " time" << (finding.count > 1 ? "s" : "") << " on rank"
        << (finding.ranks.size() > 1 ? "s " : " ");
    for (std::size_t i = 0; i < finding.ranks.size(); ++i) out << (i ? "," : "") << finding.ranks[i];
    out << "\n";
  }
  return out.str();
}

} // namespace streamrace
