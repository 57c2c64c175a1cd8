// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/report/finding_json.h"

#include "streamrace/engine/event.h"
#include "streamrace/report/finding_id.h"
#include "streamrace/report/finding_names.h"
#include "streamrace/report/json_text.h"
#include "streamrace/report/rank_names.h"

#include <sstream>

namespace streamrace {

namespace {

std::string quote(std::string_view text) {
  return json_quote(text);
}

std::string hex(std::uint64_t value) {
  return quote(hex_text(value));
}

std::string frames(CallSiteId id, const SymbolTable& symbols) {
  std::string out = "[";
  if (const CallSite* site = symbols.call_site(id)) {
    for (std::size_t i = 0; i < site->frames.size(); ++i) {
      const StackFrame& f = site->frames[i];
      out += (i ? "," : "") + std::string("{\"function\":") + quote(f.function) +
             ",\"file\":" + quote(f.file) + ",\"line\":" + std::to_string(f.line) + "}";
    }
  }
  return out + "]";
}

std::string access_json(const AccessSide& side, const Engine& engine, const SymbolTable& symbols) {
  const AccessRecord& a = side.access;
  std::ostringstream out;
  const char* mode = a.kind == OpKind::Free         ? "free"
                     : a.kind == OpKind::Allocation ? "allocation"
                     : a.mode == AccessMode::Read   ? "read"
                     : a.mode == AccessMode::Write  ? "write"
                                                    : "read-write";
  std::string nvtx;
  for (NameId name : engine.nvtx_path(a.nvtx))
    nvtx += (nvtx.empty() ? "" : ",") + quote(symbols.name(name));
  out << "{\"mode\":\"" << mode << "\",\"bytes\":" << a.size << ",\"address\":" << hex(a.begin)
      << ",\"exact\":" << (a.extent == Extent::Exact ? "true" : "false")
      << ",\"api\":" << quote(op_name(a, symbols)) << ",\"op\":" << a.op
      << ",\"rank\":" << side.rank << ",\"rank_name\":" << quote(RankNames(engine).name(side.rank))
      << ",\"thread\":" << a.thread << ",\"on_host\":" << (side.on_host ? "true" : "false")
      << ",\"stream\":" << hex(side.stream)
      << ",\"stream_name\":" << quote(actor_text(engine, symbols, a.actor))
      << ",\"device\":" << side.device << ",\"nvtx\":[" << nvtx << "]"
      << ",\"stack\":" << frames(a.site, symbols) << "}";
  return out.str();
}

} // namespace

std::string findings_json(const std::vector<Finding>& findings, const Engine& engine,
                          const SymbolTable& symbols, const std::vector<TraceSource>& sources,
                          const std::string& synchronization) {
  std::ostringstream out;
  out << "{\"schema\":\"streamrace-report\",\"version\":1,\"traces\":[";
  for (std::size_t i = 0; i < sources.size(); ++i)
    out << (i ? "," : "") << "{\"path\":" << quote(sources[i].path)
        << ",\"records\":" << sources[i].records
        << ",\"complete\":" << (sources[i].problem.empty() ? "true" : "false")
        << ",\"problem\":" << quote(sources[i].problem) << "}";
  out << "],\"checking_pauses\":[";
  const std::vector<CheckingPause>& pauses = engine.checking_pauses();
  for (std::size_t i = 0; i < pauses.size(); ++i) {
    const CheckingPause& p = pauses[i];
    out << (i ? "," : "") << "{\"rank\":" << p.rank << ",\"begin_ns\":" << p.begin_ns
        << ",\"end_ns\":" << p.end_ns << ",\"duration_ns\":" << p.end_ns - p.begin_ns
        << ",\"unchecked_accesses\":" << p.unchecked_accesses
        << ",\"caller_wait_ns\":" << p.caller_wait_ns
        << ",\"resumed\":" << (p.resumed ? "true" : "false") << "}";
  }
  out << "],\"findings\":[";
  for (std::size_t i = 0; i < findings.size(); ++i) {
    const Finding& f = findings[i];
    out << (i ? "," : "") << "{\"id\":" << i + 1
        << ",\"finding_id\":" << quote(finding_id(f, engine, symbols)) << ",\"kind\":\""
        << finding_kind_id(f.kind) << "\",\"count\":" << f.count << ",\"ranks\":[";
    for (std::size_t r = 0; r < f.ranks.size(); ++r)
      out << (r ? "," : "") << f.ranks[r];
    out << "]";
    if (f.collective) {
      const CollectiveDisagreement& c = *f.collective;
      out << ",\"communicator\":" << hex(c.comm) << ",\"call\":" << c.sequence;
      if (f.kind == FindingKind::CollectiveMismatch) {
        auto call = [&](const CollectiveCall& k) {
          out << "{\"rank\":" << k.rank
              << ",\"op\":" << quote(api_model::collectiveInfo(k.kind).function)
              << ",\"count\":" << k.count << ",\"datatype\":" << int(k.datatype)
              << ",\"reduce_op\":" << int(k.reduce_op) << ",\"root\":" << k.root
              << ",\"stack\":" << frames(k.site, symbols) << "}";
        };
        out << ",\"calls\":[";
        call(c.first);
        out << ",";
        call(c.second);
        out << "]";
      } else {
        out << ",\"calls_per_rank\":{";
        for (std::size_t r = 0; r < c.calls_per_rank.size(); ++r)
          out << (r ? "," : "") << "\"" << c.calls_per_rank[r].first
              << "\":" << c.calls_per_rank[r].second;
        out << "}";
      }
      out << "}";
      continue;
    }
    out << ",\"access\":" << access_json(f.second, engine, symbols)
        << ",\"previous\":" << access_json(f.first, engine, symbols);
    out << ",\"memory\":{\"address\":" << hex(f.memory.overlap_begin)
        << ",\"bytes\":" << f.memory.overlap_size;
    if (f.memory.allocation) {
      const Allocation& a = *f.memory.allocation;
      out << ",\"allocation\":{\"base\":" << hex(a.base) << ",\"size\":" << a.size
          << ",\"offset\":" << f.memory.overlap_begin - a.base
          << ",\"name\":" << quote(symbols.name(a.name))
          << ",\"freed\":" << (a.freed ? "true" : "false")
          << ",\"stack\":" << frames(a.site, symbols);
      if (a.freed) out << ",\"free_stack\":" << frames(a.free_site, symbols);
      if (f.memory.reuse_site != 0)
        out << ",\"reuse_stack\":" << frames(f.memory.reuse_site, symbols);
      out << ",\"caching_block\":" << (a.kind == MemoryKind::CachingBlock ? "true" : "false")
          << "}";
    }
    out << "}";
    const char* fix = f.fix.kind == FixSuggestion::Kind::RecordAndWait    ? "record-and-wait"
                      : f.fix.kind == FixSuggestion::Kind::WaitOnExisting ? "wait-on-existing-event"
                      : f.fix.kind == FixSuggestion::Kind::HostSynchronize ? "host-synchronize"
                                                                           : "none";
    out << ",\"fix\":{\"kind\":\"" << fix
        << "\",\"from\":" << quote(actor_text(engine, symbols, f.fix.from))
        << ",\"to\":" << quote(actor_text(engine, symbols, f.fix.to));
    if (f.fix.kind == FixSuggestion::Kind::WaitOnExisting) out << ",\"event\":" << hex(f.fix.event);
    out << "}";
    if (f.unrecorded_wait)
      out << ",\"unrecorded_wait\":{\"event\":" << hex(f.unrecorded_wait->event)
          << ",\"stack\":" << frames(f.unrecorded_wait->site, symbols) << "}";
    out << "}";
  }
  out << "]";
  if (!synchronization.empty()) out << ",\"synchronization\":" << synchronization;
  out << "}\n";
  return out.str();
}

} // namespace streamrace
