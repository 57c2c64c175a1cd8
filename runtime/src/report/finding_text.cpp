// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/report/finding_text.h"

#include "streamrace/report/finding_id.h"
#include "streamrace/report/finding_names.h"
#include "streamrace/report/rank_names.h"

#include "streamrace/engine/event.h"

#include <algorithm>
#include <map>
#include <sstream>

namespace streamrace {

namespace {

constexpr const char* kRule = "==================";

void stack(std::ostringstream& out, CallSiteId id, const SymbolTable& symbols, const char* indent) {
  const CallSite* site = symbols.call_site(id);
  if (!site || site->frames.empty()) {
    out << indent << "#0 <no stack: call site unknown>\n";
    return;
  }
  for (std::size_t i = 0; i < site->frames.size(); ++i) {
    const StackFrame& frame = site->frames[i];
    out << indent << "#" << i << " " << (frame.function.empty() ? "<unknown>" : frame.function);
    if (!frame.file.empty())
      out << " " << frame.file << (frame.line ? ":" + std::to_string(frame.line) : "");
    out << "\n";
  }
}

std::string nvtx_text(const Engine& engine, const SymbolTable& symbols, std::uint32_t path_id) {
  const std::vector<NameId>& path = engine.nvtx_path(path_id);
  std::string text;
  for (std::size_t i = 0; i < path.size(); ++i)
    text += (i ? "/" : "") + std::string(symbols.name(path[i]));
  return text;
}

// The finding's later access first, then the previous one it races with.
enum class Turn { Later, Previous };

void access_block(std::ostringstream& out, Turn turn, const AccessSide& side, const Engine& engine,
                  const SymbolTable& symbols, const RankNames& rank_names) {
  const bool previous = turn == Turn::Previous;
  const AccessRecord& a = side.access;
  std::string word = access_mode_word(a);
  if (!previous) word[0] = static_cast<char>(word[0] - 'a' + 'A');
  out << "  " << (previous ? "Previous " : "") << word << " of " << a.size << " bytes at "
      << hex_text(a.begin) << " by " << actor_text(engine, symbols, a.actor) << " ("
      << rank_names.name(side.rank) << ", thread " << a.thread << ") in " << op_name(a, symbols)
      << (a.extent == Extent::Exact ? " [exact]" : " [approximate extent]") << "\n";
  stack(out, a.site, symbols, "    ");
  if (std::string nvtx = nvtx_text(engine, symbols, a.nvtx); !nvtx.empty())
    out << "    NVTX range: " << nvtx << "\n";
}

const char* memory_kind_text(MemoryKind kind) {
  switch (kind) {
  case MemoryKind::Pageable:
    return "pageable host";
  case MemoryKind::Device:
    return "device";
  case MemoryKind::PinnedHost:
    return "pinned host";
  case MemoryKind::Managed:
    return "managed";
  case MemoryKind::StreamOrdered:
    return "stream-ordered";
  case MemoryKind::CachingBlock:
    return "caching-allocator block";
  }
  return "";
}

void collective_block(std::ostringstream& out, const Finding& finding,
                      const RankNames& rank_names) {
  const CollectiveDisagreement& c = finding.collective.value();
  if (finding.kind == FindingKind::CollectiveCountMismatch) {
    out << "  Communicator " << hex_text(c.comm)
        << ": ranks issued different numbers of collectives:";
    for (const auto& [rank, calls] : c.calls_per_rank)
      out << " comm rank " << rank << " issued " << calls << ";";
    out << "\n  The ranks that issued more wait forever for the others (a hang on real NCCL).\n";
    return;
  }
  auto call = [&](const CollectiveCall& k) {
    out << api_model::collectiveInfo(k.kind).function << "(count=" << k.count
        << ", datatype=" << int(k.datatype) << ", op=" << int(k.reduce_op) << ", root=" << k.root
        << ") on " << rank_names.name(k.rank);
  };
  out << "  Call #" << c.sequence << " on communicator " << hex_text(c.comm) << ": ";
  call(c.first);
  out << "\n  disagrees with ";
  call(c.second);
  out << "\n";
}

} // namespace

std::string describe_finding(const Finding& finding, const Engine& engine,
                             const SymbolTable& symbols) {
  std::ostringstream out;
  out << kRule << "\nWARNING: streamrace: " << finding_kind_name(finding.kind);
  const RankNames rank_names(engine);
  if (!finding.ranks.empty()) out << " on " << rank_names.names(finding.ranks);
  if (finding.count > 1) out << " (" << finding.count << " occurrences)";
  out << " [" << finding_id(finding, engine, symbols) << "]\n";
  if (finding.collective) {
    collective_block(out, finding, rank_names);
    out << kRule << "\n";
    return out.str();
  }
  access_block(out, Turn::Later, finding.second, engine, symbols, rank_names);
  access_block(out, Turn::Previous, finding.first, engine, symbols, rank_names);

  const MemoryContext& memory = finding.memory;
  out << "  Memory: " << memory.overlap_size << " bytes at " << hex_text(memory.overlap_begin);
  if (memory.allocation) {
    const Allocation& a = *memory.allocation;
    out << ", offset " << memory.overlap_begin - a.base << " of a " << a.size << "-byte "
        << memory_kind_text(a.kind) << (a.kind == MemoryKind::CachingBlock ? "" : " allocation");
    if (a.name) out << " '" << symbols.name(a.name) << "'";
    out << " at " << hex_text(a.base) << (a.freed ? " (freed)" : "") << ", allocated at:\n";
    stack(out, a.site, symbols, "    ");
    if (a.freed) {
      out << "    freed at:\n";
      stack(out, a.free_site, symbols, "    ");
    }
    if (memory.reuse_site != 0) {
      out << "    handed out again at:\n";
      stack(out, memory.reuse_site, symbols, "    ");
    }
  } else {
    out << " (memory streamrace did not see allocated)\n";
  }

  if (finding.unrecorded_wait) {
    const UnrecordedWait& w = *finding.unrecorded_wait;
    out << "  Note: the second stream waited on event " << hex_text(w.event);
    if (w.event_name) out << " '" << symbols.name(w.event_name) << "'";
    out << " before that event was ever recorded, so the wait ordered nothing:\n";
    stack(out, w.site, symbols, "    ");
  }

  if (std::string fix = fix_text(finding, engine, symbols); !fix.empty())
    out << "  To fix: " << fix << "\n";
  out << kRule << "\n";
  return out.str();
}

std::string fix_text(const Finding& finding, const Engine& engine, const SymbolTable& symbols) {
  const FixSuggestion& fix = finding.fix;
  const std::string from = actor_text(engine, symbols, fix.from);
  const std::string to = actor_text(engine, symbols, fix.to);
  const std::string op1 = "the " + access_op_text(finding.first.access, symbols);
  const std::string op2 = "the " + access_op_text(finding.second.access, symbols);
  if (finding.kind == FindingKind::BlockFreedInUse && fix.kind != FixSuggestion::Kind::None)
    return "tell the allocator the block is in use on " + from + " until " + op1 +
           " is done (PyTorch: tensor.record_stream(that stream)), or make " + to +
           " wait on an event recorded on " + from + " after it before the tensor is freed (" +
           op2 + ")";
  switch (fix.kind) {
  case FixSuggestion::Kind::RecordAndWait:
    return "record an event on " + from + " after " + op1 + "; make " + to + " wait on it before " +
           op2;
  case FixSuggestion::Kind::WaitOnExisting:
    return "make " + to + " wait on event " + hex_text(fix.event) + " (already recorded on " +
           from + " after " + op1 + ") before " + op2;
  case FixSuggestion::Kind::HostSynchronize:
    return "synchronize " + from + " (or an event recorded after " + op1 + ") on the host before " +
           op2;
  case FixSuggestion::Kind::None:
    if (finding.kind == FindingKind::UseAfterFree && finding.first.access.kind == OpKind::Free)
      return "the memory was freed before this access was enqueued; keep it alive until the "
             "access is done";
    break;
  }
  return "";
}

std::string summary_line(std::span<const Finding> findings, const Engine& engine) {
  std::map<std::string, std::size_t> kinds;
  std::vector<RankId> ranks;
  for (const Finding& finding : findings) {
    const bool race = finding.kind <= FindingKind::RaceReadWrite;
    ++kinds[race ? "race" : finding_kind_name(finding.kind)];
    for (RankId rank : finding.ranks)
      if (std::find(ranks.begin(), ranks.end(), rank) == ranks.end()) ranks.push_back(rank);
  }
  std::sort(ranks.begin(), ranks.end());
  std::ostringstream out;
  out << "SUMMARY: streamrace: " << findings.size() << " finding"
      << (findings.size() == 1 ? "" : "s");
  if (!findings.empty()) {
    out << " (";
    bool first = true;
    for (const auto& [kind, n] : kinds) {
      out << (first ? "" : ", ") << n << " " << kind << (n > 1 && kind == "race" ? "s" : "");
      first = false;
    }
    out << ") on " << RankNames(engine).names(ranks);
  }
  return out.str();
}

std::string findings_text(std::span<const Finding> findings, const Engine& engine,
                          const SymbolTable& symbols) {
  std::string text;
  std::size_t guessed = 0;
  const auto guessed_kernel_side = [](const AccessSide& side) {
    return side.access.kind == OpKind::Kernel && side.access.extent == Extent::Approximate;
  };
  for (const Finding& finding : findings) {
    text += describe_finding(finding, engine, symbols);
    if (guessed_kernel_side(finding.first) || guessed_kernel_side(finding.second)) ++guessed;
  }
  text += summary_line(findings, engine) + "\n";
  // Where a kernel's extent is a guess, the finding may be one only because of the guess (two
  // kernels on disjoint slices of one allocation): say how to replace the guess.
  if (guessed != 0)
    text += "streamrace: " + std::to_string(guessed) + " of these rest on a kernel's " +
            "[approximate extent] (its pointer taken to reach the end of its allocation); " +
            "kernel summaries (streamrace-check --kernel-summaries=FILE on the kernels' sources, " +
            "then the kernel_summaries=FILE option) or annotations (streamrace/annotations.h) " +
            "state what each kernel touches\n";
  return text;
}

} // namespace streamrace
