// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/replay/settle.h"

#include "streamrace/replay/trace_set.h"
#include "streamrace/trace/trace_reader.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <set>
#include <thread>
#include <unordered_map>
#include <utility>

namespace streamrace {

namespace {

// A finding as replays with separate symbol tables can compare it: FindingSet's key, with call
// sites as text instead of ids.
std::string portable_key(const Finding& finding, const SymbolTable& symbols) {
  std::string key = finding_kind_name(finding.kind);
  for (const AccessSide* side : {&finding.first, &finding.second}) {
    const SideIdentity identity = SideIdentity::of(*side);
    key += '\x1f';
    if (const CallSite* site = symbols.call_site(identity.site); site && identity.site != 0) {
      key += SymbolTable::key_of(*site);
      continue;
    }
    key += std::to_string(identity.rank) + '/' + std::to_string(identity.on_host) + '/' +
           std::to_string(static_cast<int>(identity.kind)) + '/' + std::to_string(identity.stream);
  }
  return key;
}

struct LocalFinding {
  std::string key;
  std::uint64_t count = 0;
  std::vector<RankId> ranks;
};

// One process replayed by itself.
struct AloneReplay {
  std::vector<RankId> ranks; // the ranks its events belong to
  std::vector<LocalFinding> findings;
  bool failed = false;
};

AloneReplay replay_alone(const std::string& path, std::uint32_t address_space,
                         const Settings& settings) {
  AloneReplay result;
  SymbolTable symbols;
  Options options = settings.engine;
  options.cross_rank_ordering = false; // the peers' events are not here
  // Warnings (history limits) are the whole job's replay's to give.
  Engine engine(options, [](std::string_view) {});
  trace::TraceReader reader(path, address_space, symbols);
  std::set<RankId> ranks;
  std::vector<Event> batch;
  Event event;
  for (bool more = true; more;) {
    more = reader.next(event);
    if (more) {
      ranks.insert(event.header.rank);
      batch.push_back(std::move(event));
    }
    if (batch.size() == 256 || (!more && !batch.empty())) {
      engine.process(batch);
      batch.clear();
    }
  }
  engine.finish();
  result.ranks.assign(ranks.begin(), ranks.end());
  for (const Finding& finding : engine.findings().all())
    if (!finding.collective) // collective findings need every rank: the whole job's pass has them
      result.findings.push_back({portable_key(finding, symbols), finding.count, finding.ranks});
  return result;
}

std::vector<AloneReplay> replay_each_alone(const std::vector<std::string>& files,
                                           const Settings& settings) {
  std::vector<AloneReplay> results(files.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < files.size(); i = next++) {
      try {
        results[i] = replay_alone(files[i], static_cast<std::uint32_t>(i), settings);
      } catch (const std::exception&) {
        results[i].failed = true;
      }
    }
  };
  std::size_t jobs = settings.report.settle_jobs;
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  jobs = std::min(jobs, files.size());
  {
    std::vector<std::jthread> workers;
    for (std::size_t j = 1; j < jobs; ++j)
      workers.emplace_back(work);
    work();
  }
  return results;
}

// The processes whose alone replay found one finding (by portable key), the first of them its
// representative.
struct Group {
  std::size_t representative = 0;
  std::vector<std::size_t> members;
};

bool shares_a_rank(const std::vector<RankId>& sorted_ranks, const std::vector<RankId>& ranks) {
  return std::any_of(ranks.begin(), ranks.end(), [&](RankId rank) {
    return std::binary_search(sorted_ranks.begin(), sorted_ranks.end(), rank);
  });
}

} // namespace

Replay settle_traces(const std::vector<std::string>& paths, const Settings& settings) {
  Replay replay;
  TraceSet set = open_trace_set(paths, replay.symbols);
  std::vector<std::string> files;
  files.reserve(set.readers.size());
  for (const trace::TraceReader& reader : set.readers)
    files.push_back(reader.path());
  const std::vector<AloneReplay> alone = replay_each_alone(files, settings);
  // A file that could not be replayed alone names no ranks to check, so nothing of it would be:
  // the whole job's replay checks everything, or says what is wrong with the file.
  if (std::any_of(alone.begin(), alone.end(), [](const AloneReplay& one) { return one.failed; }))
    return replay_traces(paths, settings);

  SettleSummary summary;
  summary.processes = files.size();
  // A group's representative is its process of the lowest rank, whatever the files' names.
  std::vector<std::size_t> by_rank(files.size());
  for (std::size_t file = 0; file < files.size(); ++file)
    by_rank[file] = file;
  auto lowest_rank = [&](std::size_t file) {
    return alone[file].ranks.empty() ? ~RankId{0} : alone[file].ranks.front();
  };
  // Ties (files without events) keep the files' order.
  std::sort(by_rank.begin(), by_rank.end(), [&](std::size_t a, std::size_t b) {
    return std::pair(lowest_rank(a), a) < std::pair(lowest_rank(b), b);
  });
  std::map<std::string, Group> groups;
  std::vector<bool> settled(files.size(), false);
  for (std::size_t file : by_rank) {
    const bool candidate = !alone[file].findings.empty();
    if (candidate) ++summary.with_candidates;
    if (candidate && settings.report.settle_every) settled[file] = true;
    for (const LocalFinding& finding : alone[file].findings) {
      auto [it, first] = groups.try_emplace(finding.key);
      if (first) {
        it->second.representative = file;
        settled[file] = true;
      }
      it->second.members.push_back(file);
    }
  }

  // Findings of the last pass by portable key.
  std::unordered_map<std::string, std::size_t> found;
  for (;;) {
    ++summary.rounds;
    if (summary.rounds > 1) {
      set = TraceSet{};
      replay = Replay{};
      set = open_trace_set(paths, replay.symbols);
    }
    std::vector<bool> checked_ranks;
    for (std::size_t file = 0; file < files.size(); ++file)
      if (settled[file])
        for (RankId rank : alone[file].ranks) {
          if (rank >= checked_ranks.size()) checked_ranks.resize(rank + 1, false);
          checked_ranks[rank] = true;
        }
    replay_trace_set(replay, set, settings, Recording::FindingsOnly, &checked_ranks);

    found.clear();
    const std::vector<Finding>& findings = replay.engine->findings().all();
    for (std::size_t i = 0; i < findings.size(); ++i)
      if (!findings[i].collective) found.emplace(portable_key(findings[i], replay.symbols), i);
    // A representative the whole job orders says nothing of the group's other processes: each
    // may lack the chain through other ranks that orders it. They are settled themselves.
    bool again = false;
    for (const auto& [key, group] : groups) {
      const auto it = found.find(key);
      if (it != found.end() &&
          shares_a_rank(alone[group.representative].ranks, findings[it->second].ranks))
        continue;
      for (std::size_t member : group.members)
        if (!settled[member]) {
          settled[member] = true;
          again = true;
        }
    }
    if (!again) break;
  }
  // A finding its representative kept stands for every process that found it alone.
  for (const auto& [key, group] : groups) {
    const auto it = found.find(key);
    if (it == found.end()) continue;
    for (std::size_t member : group.members) {
      if (settled[member]) continue;
      for (const LocalFinding& finding : alone[member].findings)
        if (finding.key == key) {
          replay.engine->add_occurrences(it->second, finding.count, finding.ranks);
          ++summary.counted_through_representative;
        }
    }
  }
  summary.settled = static_cast<std::size_t>(std::count(settled.begin(), settled.end(), true));
  replay.settled = summary;
  return replay;
}

Replay replay_for_report(const std::vector<std::string>& paths, const Settings& settings) {
  const std::uint64_t settle_from = settings.report.settle_from;
  std::size_t processes = 0;
  try {
    if (settle_from != 0) processes = trace::find_trace_files(paths).size();
  } catch (const std::exception&) {
    // Paths that hold no trace, or cannot be read: opening the set says which and why.
    processes = 0;
  }
  if (settle_from != 0 && processes >= settle_from) return settle_traces(paths, settings);
  return replay_traces(paths, settings);
}

} // namespace streamrace
