// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Which synchronizations of a run carry the load. Every call site that made the host wait (a
// stream, event or device synchronize, a blocking copy or set) or made a stream wait (an event
// wait, as `wait_stream` and `wait_event` are traced) is taken out of the run, alone, and the
// run replayed without it: a finding the run did not have makes the site load-bearing, and names
// the pair it orders. The same replays, from the same trace, judge every site: what the advice
// calls redundant is a removal the happens-before engine checked, not a guess.
#pragma once

#include "streamrace/engine/engine.h"
#include "streamrace/report/finding_sarif.h"
#include "streamrace/report/perfetto_export.h"
#include "streamrace/report/suppressions.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace streamrace {

enum class SyncVerdict : std::uint8_t {
  LoadBearing, // without it, some pair of conflicting accesses is unordered
  OverStrong,  // a host wait whose only load-bearing pairs are stream to stream
  // A stream's wait without which nothing conflicting is left unordered, and every host wait
  // still waits for all the work it waited for.
  Redundant,
  // A host wait without which nothing the trace holds is left unordered, or a stream's wait
  // without which a later host wait no longer waits for all it did. It is not called redundant:
  // the host's own reads are traced only in pinned and managed memory, and only with
  // watch_host_accesses=1, so the host may read what it waited for where the trace cannot see.
  HostUnseen,
};

const char* sync_verdict_name(SyncVerdict verdict);

// One synchronizing call site: every execution of its API from its source line, whatever the
// stack above it, taken out together.
struct SyncSiteAdvice {
  std::string api;      // "cudaStreamSynchronize", "cudaStreamWaitEvent", ...
  std::string location; // "hpz_step.cpp:64", or "" when unknown
  std::string file;     // the location's parts: "" and 0 when unknown
  std::uint32_t line = 0;
  std::string function;
  bool host_wait = false;
  std::uint64_t executions = 0;
  // Host waits: how long their executions held the host in all, as the tracer timed each from
  // entry to return (stream synchronizes, event synchronizes and device synchronizes; 0 for
  // blocking copies and sets, whose time is the copy's, and for traces of format 10 or older).
  std::uint64_t waited_ns = 0;
  // ... of which inside the run's step ranges (SyncAdvice::step_range): its time a step is this
  // over SyncAdvice::rank_steps.
  std::uint64_t waited_in_steps_ns = 0;
  SyncVerdict verdict = SyncVerdict::Redundant;
  // LoadBearing, OverStrong: the first finding the removal brings, as "op (file:line) on
  // stream, op (file:line) on stream"; and how many it brings.
  std::string witness;
  std::size_t findings_without = 0;
  // OverStrong: the event edge that orders what it orders, as the finding's fix says it.
  std::string edge;
  // Redundant, HostUnseen: another site whose removal together with this one leaves a pair
  // unordered (the two cover each other: take out one, not both); empty when none does.
  std::string covered_by;
  // HostUnseen, for a stream's wait: the host wait that would no longer wait for all it did.
  std::string unmet_host_wait;
};

struct SyncAdvice {
  std::uint64_t replays = 0; // counterfactual replays run, the run itself not counted
  // The steps of the run: the NVTX ranges named `step_range` (report option) pushed, on every
  // rank and thread together (0: none pushed).
  std::string step_range;
  std::uint64_t rank_steps = 0;
  std::vector<SyncSiteAdvice> sites; // in the order the run first reached them
  std::uint64_t suppressed = 0;      // sites judged, and left out by a `sync:` suppression
};

// The advice for the run the trace files record (paths as `streamrace report` takes them).
// Every site is judged; those a `sync:` line of `suppressions` names are then left out (each
// hit counted in its rule).
SyncAdvice advise_synchronizations(const std::vector<std::string>& paths, const Settings& settings,
                                   std::optional<Suppressions>& suppressions);

// The text report's "Synchronization" section.
std::string sync_advice_text(const SyncAdvice& advice);
// The JSON report's "synchronization" member (docs/report-formats.md).
std::string sync_advice_json(const SyncAdvice& advice);
// The SARIF log's notes: one result of level "note" per site, under a rule per verdict.
SarifNotes sync_advice_sarif(const SyncAdvice& advice);
// The Perfetto export's marks: each located site's verdict on every execution of it.
std::vector<PerfettoSiteMark> sync_advice_marks(const SyncAdvice& advice);

} // namespace streamrace
