#include "replay.h"

#include "streamrace/trace/trace_reader.h"

#include <cstdio>

namespace streamrace::cli {

Replay replay_traces(const std::vector<std::string>& paths, const Options& options) {
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
  const std::vector<Event> events = trace::merge_by_time(files);
  replay.engine = std::make_unique<Engine>(options);
  for (const Event& event : events) replay.engine->process(event);
  replay.engine->finish();
  replay.events = events.size();
  return replay;
}

} // namespace streamrace::cli
