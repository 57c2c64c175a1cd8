// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/replay/replay.h"

#include "decode_ahead.h"

#include "streamrace/replay/trace_set.h"
#include "streamrace/report/checking_pauses_text.h"
#include "streamrace/report/finding_text.h"
#include "streamrace/report/raw_frames.h"

namespace streamrace {

Replay replay_traces(const std::vector<std::string>& paths, const Settings& settings,
                     Recording recording) {
  Replay replay;
  TraceSet set = open_trace_set(paths, replay.symbols);
  replay_trace_set(replay, set, settings, recording);
  return replay;
}

void replay_trace_set(Replay& replay, TraceSet& set, const Settings& settings, Recording recording,
                      const std::vector<bool>* checked_ranks, const EventWatcher& watch) {
  const bool record = recording == Recording::Graph;
  std::vector<trace::TraceReader>& readers = set.readers;
  replay.engine = std::make_unique<Engine>(settings.engine);
  if (checked_ranks) replay.engine->check_only(*checked_ranks);
  if (record) {
    replay.graph = std::make_unique<HappensBeforeGraph>();
    replay.engine->ordering().set_observer(replay.graph.get());
  }
  // Events stream from the files through the engine in small batches: while it runs one
  // event it fetches the memory the next ones touch. A recorded replay keeps a summary of each
  // (what exports show of it) and runs them one at a time, so that the graph knows which event
  // made each edge.
  {
    DecodeAhead decoded(readers, 256);
    std::vector<Event> batch;
    while (decoded.next(batch)) {
      if (watch)
        for (const Event& event : batch)
          watch(event);
      if (!record) {
        replay.events += batch.size();
        replay.engine->process(batch);
        continue;
      }
      for (const Event& event : batch) {
        replay.graph->set_event(static_cast<std::uint32_t>(replay.events++));
        replay.summaries.push_back(summarize(event, replay.symbols));
        replay.engine->process(event);
      }
    }
  }
  replay.sources = read_sources(set);
  replay.engine->finish();
  replay.engine->ordering().set_observer(nullptr);
  // A process that crashed or was killed left its call sites as object files and offsets.
  std::vector<CallSiteId> sites;
  for (const trace::TraceReader& file : readers) {
    const std::vector<CallSiteId> file_sites = file.call_sites();
    sites.insert(sites.end(), file_sites.begin(), file_sites.end());
  }
  symbolize_raw_frames(replay.symbols, sites, settings.report.symbolizer);
}

ReportedFindings unsuppressed_findings(const Replay& replay,
                                       std::optional<Suppressions>& suppressions) {
  return unsuppressed_findings(replay.engine->findings().all(), *replay.engine, replay.symbols,
                               suppressions);
}

std::string report_text(const Replay& replay, const ReportedFindings& reported,
                        const std::optional<Suppressions>& suppressions) {
  const std::string files = std::to_string(replay.sources.size()) + " trace file" +
                            (replay.sources.size() == 1 ? "" : "s");
  std::string settled;
  if (const auto& summary = replay.settled)
    settled = "streamrace: settled: " + std::to_string(summary->with_candidates) + " of " +
              std::to_string(summary->processes) + " processes found something replayed alone; " +
              std::to_string(summary->settled) + " of them replayed against the whole job, in " +
              std::to_string(summary->rounds) + " pass" + (summary->rounds == 1 ? "" : "es") + "\n";
  if (replay.settled && replay.settled->counted_through_representative > 0)
    settled +=
        "streamrace: settled: " + std::to_string(replay.settled->counted_through_representative) +
        " findings of processes not replayed against the whole job are counted on their "
        "representative's word (settle_every=1 replays each)\n";
  return "streamrace: replayed " + std::to_string(replay.events) + " events from " + files + "\n" +
         settled + checking_pauses_text(*replay.engine) +
         findings_text(reported.findings, *replay.engine, replay.symbols) +
         suppressed_line(reported, suppressions);
}

} // namespace streamrace
