#include "replay.h"

#include "streamrace/report/finding_id.h"
#include "streamrace/trace/trace_reader.h"

#include <cstdio>
#include <stdexcept>

namespace streamrace::cli {

Replay replay_traces(const std::vector<std::string>& paths, const Options& options, bool record) {
  Replay replay;
  std::vector<trace::TraceReader> readers;
  std::uint32_t address_space = 0;
  for (const std::string& path : trace::find_trace_files(paths))
    readers.emplace_back(path, address_space++, replay.symbols);
  replay.engine = std::make_unique<Engine>(options);
  if (record) {
    replay.graph = std::make_unique<HappensBeforeGraph>();
    replay.engine->ordering().set_observer(replay.graph.get());
  }
  // Events stream from the files through the engine; only a recorded replay keeps them.
  trace::TimeOrderedMerge merged(readers);
  while (const Event* event = merged.next()) {
    if (record) {
      replay.graph->set_event(static_cast<std::uint32_t>(replay.events));
      replay.merged.push_back(*event);
    }
    replay.engine->process(*event);
    ++replay.events;
  }
  for (const trace::TraceReader& file : readers) {
    replay.sources.push_back(TraceSource{file.path(), file.records(), file.problem()});
    if (!file.problem().empty())
      std::fprintf(stderr, "streamrace: warning: trace '%s': %s\n", file.path().c_str(),
                   file.problem().c_str());
  }
  replay.engine->finish();
  replay.engine->ordering().set_observer(nullptr);
  return replay;
}

Reported unsuppressed_findings(const Replay& replay, std::optional<Suppressions>& suppressions) {
  Reported reported;
  for (const Finding& finding : replay.engine->findings().all()) {
    if (suppressions && suppressions->suppresses(finding, *replay.engine, replay.symbols))
      ++reported.suppressed;
    else
      reported.findings.push_back(finding);
  }
  return reported;
}

} // namespace streamrace::cli

namespace streamrace::cli {

const Finding& select_finding(const Replay& replay, const std::vector<Finding>& findings,
                              const std::string& id) {
  std::string known;
  for (std::size_t i = 0; i < findings.size(); ++i) {
    const std::string finding = finding_id(findings[i], *replay.engine, replay.symbols);
    if (finding == id || std::to_string(i + 1) == id) return findings[i];
    known += (known.empty() ? "" : ", ") + finding;
  }
  throw std::runtime_error(
      "no finding '" + id + "' in these traces (" +
      (known.empty() ? std::string("they have no findings") : "their findings: " + known) + ")");
}

} // namespace streamrace::cli
