#include "replay.h"

#include "streamrace/report/finding_id.h"
#include "streamrace/trace/trace_reader.h"

#include <cstdio>
#include <stdexcept>

namespace streamrace::cli {

Replay replay_traces(const std::vector<std::string>& paths, const Options& options, bool record) {
  Replay replay;
  std::vector<trace::TraceFile> files;
  std::uint32_t address_space = 0;
  for (const std::string& path : trace::find_trace_files(paths)) {
    files.push_back(trace::read_trace(path, address_space++, replay.symbols));
    const trace::TraceFile& file = files.back();
    replay.sources.push_back(TraceSource{file.path, file.records, file.problem});
    if (!file.problem.empty())
      std::fprintf(stderr, "streamrace: warning: trace '%s': %s\n", file.path.c_str(),
                   file.problem.c_str());
  }
  std::vector<Event> events = trace::merge_by_time(files);
  replay.engine = std::make_unique<Engine>(options);
  if (record) {
    replay.graph = std::make_unique<HappensBeforeGraph>();
    replay.engine->ordering().set_observer(replay.graph.get());
    for (std::uint32_t i = 0; i < events.size(); ++i) {
      replay.graph->set_event(i);
      replay.engine->process(events[i]);
    }
  } else {
    for (const Event& event : events)
      replay.engine->process(event);
  }
  replay.engine->finish();
  replay.engine->ordering().set_observer(nullptr);
  replay.events = events.size();
  if (record) replay.merged = std::move(events);
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
