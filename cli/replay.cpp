// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "replay.h"

#include "streamrace/report/finding_id.h"
#include "streamrace/report/raw_frames.h"
#include "streamrace/trace/trace_format.h"
#include "streamrace/trace/trace_reader.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string_view>

namespace streamrace::cli {

namespace {

namespace fs = std::filesystem;

void warn(const std::string& path, const std::string& problem) {
  std::fprintf(stderr, "streamrace: warning: trace '%s': %s\n", path.c_str(), problem.c_str());
}

// Why a file that starts like a trace holds no complete header (a process killed before its
// first flush leaves one), or empty when it has a header or is no trace at all (the reader
// names those).
std::string missing_header(const std::string& path) {
  std::error_code error;
  const std::uintmax_t size = fs::file_size(path, error);
  if (error || size >= trace::kFileHeaderSize) return {};
  if (size == 0)
    return "the file is empty (was the process killed before it wrote anything?); skipped";
  std::string start(static_cast<std::size_t>(size), '\0');
  std::ifstream(path, std::ios::binary).read(start.data(), static_cast<std::streamsize>(size));
  const std::size_t magic = std::min(start.size(), sizeof(trace::kMagic));
  if (start.compare(0, magic, std::string_view(trace::kMagic, magic)) != 0) return {};
  return "the file ends at byte " + std::to_string(size) + ", inside its " +
         std::to_string(trace::kFileHeaderSize) +
         "-byte header (was the writer killed mid-write?); skipped";
}

// The trace reader's own errors cannot say why a path is unusable (permissions, most often):
// an unreadable folder would pass for an empty one and a file it cannot stat for a missing one.
void check_readable(const std::string& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (error && error != std::errc::no_such_file_or_directory)
    throw std::runtime_error("cannot read '" + path + "': " + error.message());
  if (fs::is_directory(status)) {
    fs::directory_iterator(path, error);
    if (error) throw std::runtime_error("cannot read folder '" + path + "': " + error.message());
  } else if (fs::exists(status) && !fs::is_regular_file(status)) {
    // The reader measures and seeks in the file: a pipe would look empty, hence "bad header".
    throw std::runtime_error("'" + path +
                             "' is not a regular file (a pipe or a device); save the trace to a "
                             "file first");
  } else if (fs::exists(status)) {
    const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                               &std::fclose);
    if (!file)
      throw std::runtime_error("cannot read trace file '" + path + "': " + std::strerror(errno));
  }
}

// Every trace file once: a path named twice (or a file and its directory) and a copy of a
// process's trace under another name would replay that process twice, doubling its ops and,
// in a multi-rank job, giving one rank two voices in every collective.
std::vector<trace::TraceReader> open_traces(const std::vector<std::string>& paths, Replay& replay) {
  std::vector<trace::TraceReader> readers;
  std::map<fs::path, std::string> opened; // canonical path -> as named
  for (const std::string& path : paths)
    check_readable(path);
  for (const std::string& path : trace::find_trace_files(paths)) {
    check_readable(path);
    std::error_code error;
    fs::path canonical = fs::weakly_canonical(path, error);
    if (error) canonical = path;
    if (auto [it, inserted] = opened.emplace(canonical, path); !inserted) {
      warn(path, it->second == path ? "named twice; read once"
                                    : "the same file as '" + it->second + "'; read once");
      continue;
    }
    if (std::string problem = missing_header(path); !problem.empty()) {
      warn(path, problem);
      replay.sources.push_back(TraceSource{path, 0, problem});
      continue;
    }
    trace::TraceReader& reader =
        readers.emplace_back(path, static_cast<std::uint32_t>(readers.size()), replay.symbols);
    for (std::size_t i = 0; i + 1 < readers.size(); ++i) {
      if (readers[i].pid() != reader.pid() || readers[i].start_time_ns() != reader.start_time_ns())
        continue;
      warn(path, "a copy of '" + readers[i].path() + "' (process " + std::to_string(reader.pid()) +
                     ", same start time); read once");
      readers.pop_back();
      break;
    }
  }
  if (readers.empty())
    throw std::runtime_error("no trace to replay: every file named is empty or cut inside its "
                             "header");
  return readers;
}

} // namespace

Replay replay_traces(const std::vector<std::string>& paths, const Options& options, bool record) {
  Replay replay;
  std::vector<trace::TraceReader> readers = open_traces(paths, replay);
  replay.engine = std::make_unique<Engine>(options);
  if (record) {
    replay.graph = std::make_unique<HappensBeforeGraph>();
    replay.engine->ordering().set_observer(replay.graph.get());
  }
  // Events stream from the files through the engine in small batches: while it runs one
  // event it fetches the memory the next ones touch. Only a recorded replay keeps them, and it
  // runs them one at a time, so that the graph knows which event made each edge.
  const std::size_t batch_size = record ? 1 : 256;
  std::vector<Event> batch;
  batch.reserve(batch_size);
  trace::TimeOrderedMerge merged(readers);
  while (Event* event = merged.next()) {
    if (record) {
      replay.graph->set_event(static_cast<std::uint32_t>(replay.events));
      replay.merged.push_back(*event);
    }
    batch.push_back(std::move(*event));
    ++replay.events;
    if (batch.size() == batch_size) {
      replay.engine->process(batch);
      batch.clear();
    }
  }
  replay.engine->process(batch);
  for (const trace::TraceReader& file : readers) {
    replay.sources.push_back(TraceSource{file.path(), file.records(), file.problem()});
    if (!file.problem().empty()) warn(file.path(), file.problem());
  }
  replay.engine->finish();
  replay.engine->ordering().set_observer(nullptr);
  // A process that crashed or was killed left its call sites as object files and offsets.
  std::vector<CallSiteId> sites;
  for (const trace::TraceReader& file : readers) {
    const std::vector<CallSiteId> file_sites = file.call_sites();
    sites.insert(sites.end(), file_sites.begin(), file_sites.end());
  }
  symbolize_raw_frames(replay.symbols, sites);
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

std::string suppressed_line(const Reported& reported,
                            const std::optional<Suppressions>& suppressions) {
  if (reported.suppressed == 0 || !suppressions) return {};
  std::string line = "streamrace: " + std::to_string(reported.suppressed) + " finding" +
                     (reported.suppressed == 1 ? "" : "s") + " suppressed:";
  for (const Suppressions::Rule& rule : suppressions->rules())
    if (rule.hits)
      line += " " + std::to_string(rule.hits) + " " + rule.type + ":" + rule.pattern + ";";
  return line + "\n";
}

} // namespace streamrace::cli

namespace streamrace::cli {

namespace {

// An id as a user may paste it from a report header: "[SR-CB0D8329]" names SR-cb0d8329.
std::string normalized_id(std::string_view id) {
  if (id.size() >= 2 && id.front() == '[' && id.back() == ']') id = id.substr(1, id.size() - 2);
  std::string lower(id);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

} // namespace

const Finding& select_finding(const Replay& replay, const std::vector<Finding>& findings,
                              const std::string& id) {
  const std::string wanted = normalized_id(id);
  std::string known;
  for (std::size_t i = 0; i < findings.size(); ++i) {
    const std::string finding = finding_id(findings[i], *replay.engine, replay.symbols);
    if (normalized_id(finding) == wanted || std::to_string(i + 1) == wanted) return findings[i];
    known += (known.empty() ? "" : ", ") + finding;
  }
  throw std::runtime_error(
      "no finding '" + id + "' in these traces (" +
      (known.empty() ? std::string("they have no findings") : "their findings: " + known) + ")");
}

} // namespace streamrace::cli
