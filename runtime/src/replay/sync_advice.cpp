// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/replay/sync_advice.h"

#include "streamrace/engine/ordering_observer.h"
#include "streamrace/replay/replay.h"
#include "streamrace/replay/trace_set.h"
#include "streamrace/report/event_names.h"
#include "streamrace/report/finding_id.h"
#include "streamrace/report/finding_names.h"
#include "streamrace/report/finding_text.h"
#include "streamrace/report/json_text.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <unordered_set>
#include <utility>

namespace streamrace {

namespace {

// Pairs of redundant sites tried together to find which covers which, past which the advice
// says no more about covering (each try is a replay of the whole run).
constexpr std::uint64_t kMaxCoverReplays = 64;

enum class Wait : std::uint8_t { None, Host, Stream };

// What kind of wait an event is, as the run executed it (a query that found work still
// running waited for nothing).
Wait wait_of(const Event& event) {
  return std::visit(
      [](const auto& p) {
        using P = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<P, StreamWaitEvent>)
          return Wait::Stream;
        else if constexpr (std::is_same_v<P, StreamSynchronize> ||
                           std::is_same_v<P, EventSynchronize>)
          return p.completed ? Wait::Host : Wait::None;
        else if constexpr (std::is_same_v<P, DeviceSynchronize>)
          return Wait::Host;
        else if constexpr (std::is_same_v<P, Copy> || std::is_same_v<P, Set>)
          return p.synchronous_api ? Wait::Host : Wait::None;
        else
          return Wait::None;
      },
      event.payload);
}

// The event as the run would have made it without the wait: a blocking copy or set becomes its
// asynchronous form, a synchronize a query that found work running; false drops the event (an
// event wait, a device synchronize).
bool without_wait(Event& event) {
  return std::visit(
      [](auto& p) {
        using P = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<P, StreamSynchronize> || std::is_same_v<P, EventSynchronize>)
          p.completed = false;
        else if constexpr (std::is_same_v<P, Copy> || std::is_same_v<P, Set>)
          p.synchronous_api = false;
        else
          return false;
        return true;
      },
      event.payload);
}

// How long a host wait held its thread, as the tracer measured it (0 when unknown).
std::uint64_t waited_ns_of(const Event& event) {
  return std::visit(
      [](const auto& p) -> std::uint64_t {
        using P = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<P, StreamSynchronize> || std::is_same_v<P, EventSynchronize> ||
                      std::is_same_v<P, DeviceSynchronize>)
          return p.waited_ns;
        else
          return 0;
      },
      event.payload);
}

struct SeenSite {
  std::size_t first = 0; // its first execution, in the run's events: named once they are all read
  Wait wait = Wait::None;
  std::uint64_t executions = 0;
  std::uint64_t waited_ns = 0;
  std::uint64_t waited_in_steps_ns = 0;
};

// The call sites of one API on one source line: the site the advice judges.
struct SiteGroup {
  std::vector<CallSiteId> ids;
  std::size_t advice_index = 0;
};

// What taking some sites out did: the findings the run itself does not have, and a host wait
// of the run that no longer waits for all the work it waited for.
struct Outcome {
  std::size_t new_findings = 0;
  std::string witness;
  std::string edge;
  bool stream_to_stream = true; // every new finding is two streams an event edge can order
  std::string unmet_host_wait;  // "cudaStreamSynchronize at train.py:40", or "" when none
  bool needed() const { return new_findings > 0 || !unmet_host_wait.empty(); }
};

// Ops whose steps touch memory, as opposed to those that only order (records, waits) or name.
bool touches_memory(const Event& event) {
  return std::visit(
      [](const auto& p) {
        using P = std::decay_t<decltype(p)>;
        return std::is_same_v<P, Copy> || std::is_same_v<P, Set> ||
               std::is_same_v<P, KernelLaunch> || std::is_same_v<P, HostFunction> ||
               std::is_same_v<P, HostAccess> || std::is_same_v<P, HostNodeAccess> ||
               std::is_same_v<P, Collective> || std::is_same_v<P, PointToPoint> ||
               std::is_same_v<P, GraphLaunch>;
      },
      event.payload);
}

// The steps of each actor that touched memory, as the run took them (in increasing order).
class MemorySteps : public OrderingObserver {
public:
  void step(ActorId actor, Epoch epoch) override {
    if (!touching_) return;
    if (actor >= steps_.size()) steps_.resize(actor + 1);
    steps_[actor].push_back(epoch);
  }
  void join(const OrderingJoin&) override {}
  void set_touching(bool touching) { touching_ = touching; }

  // Whether `now` misses a step that touched memory and that `before` covers.
  bool misses_work(const VectorClock& before, const VectorClock& now) const {
    for (ActorId actor = 0; actor < before.size() && actor < steps_.size(); ++actor) {
      const Epoch had = before.get(actor);
      const Epoch has = now.get(actor);
      if (has >= had) continue;
      const std::vector<Epoch>& steps = steps_[actor];
      // A step in (has, had]: the first step after `has` is one the host no longer waits for.
      auto next = std::upper_bound(steps.begin(), steps.end(), has);
      if (next != steps.end() && *next <= had) return true;
    }
    return false;
  }

private:
  bool touching_ = false;
  std::vector<std::vector<Epoch>> steps_;
};

std::string witness_text(const Finding& finding, const SymbolTable& symbols) {
  return std::string(finding_kind_name(finding.kind)) + " between " +
         access_op_text(finding.first.access, symbols) + " and " +
         access_op_text(finding.second.access, symbols);
}

bool event_edge_orders(const Finding& finding) {
  return !finding.first.on_host && !finding.second.on_host &&
         (finding.fix.kind == FixSuggestion::Kind::RecordAndWait ||
          finding.fix.kind == FixSuggestion::Kind::WaitOnExisting);
}

class Advisor {
public:
  Advisor(const std::vector<std::string>& paths, const Settings& settings,
          std::optional<Suppressions>& suppressions)
      : paths_(paths), settings_(settings), suppressions_(suppressions) {}

  SyncAdvice advise() {
    TraceSet set = open_trace_set(paths_, run_.symbols);
    replay_trace_set(run_, set, settings_, Recording::FindingsOnly, nullptr,
                     [this](const Event& event) { note(event); });
    const SymbolTable& symbols = run_.symbols;
    for (const Finding& finding : run_.engine->findings().all())
      baseline_.insert(finding_fingerprint(finding, *run_.engine, symbols));
    learn_host_waits();
    SyncAdvice advice;
    advice.step_range = settings_.report.step_range;
    advice.rank_steps = rank_steps_;
    std::map<std::string, std::size_t> group_of_line;
    for (CallSiteId id : order_) {
      const SeenSite& seen = sites_.at(id);
      const EventSummary summary = summarize(events_[seen.first], run_.symbols);
      const std::string api = event_api(summary, symbols);
      const std::string location = program_line(summary, symbols);
      const StackFrame* frame = program_frame(summary, symbols);
      // Sites nothing locates stay apart: their stacks are all that tells them apart.
      std::string line = location.empty() ? std::to_string(id) : api;
      if (!location.empty()) line.append("\n").append(location);
      auto [group, added] = group_of_line.try_emplace(line, groups_.size());
      if (added) {
        groups_.push_back(SiteGroup{{}, advice.sites.size()});
        SyncSiteAdvice& site = advice.sites.emplace_back();
        site.api = api;
        site.location = location;
        if (frame) {
          site.file = frame->file;
          site.line = frame->line;
          site.function = frame->function;
        }
      }
      groups_[group->second].ids.push_back(id);
      SyncSiteAdvice& site = advice.sites[groups_[group->second].advice_index];
      site.host_wait = site.host_wait || seen.wait == Wait::Host;
      site.executions += seen.executions;
      site.waited_ns += seen.waited_ns;
      site.waited_in_steps_ns += seen.waited_in_steps_ns;
    }
    std::vector<std::size_t> unneeded;
    for (std::size_t index = 0; index < groups_.size(); ++index) {
      SyncSiteAdvice& site = advice.sites[index];
      const Outcome outcome = judge({index}, advice);
      site.findings_without = outcome.new_findings;
      site.witness = outcome.witness;
      if (outcome.new_findings == 0 && !outcome.unmet_host_wait.empty()) {
        // Needed alone: no partner to look for.
        site.verdict = SyncVerdict::HostUnseen;
        site.unmet_host_wait = outcome.unmet_host_wait;
      } else if (outcome.new_findings == 0) {
        site.verdict = site.host_wait ? SyncVerdict::HostUnseen : SyncVerdict::Redundant;
        unneeded.push_back(index);
      } else if (site.host_wait && outcome.stream_to_stream) {
        site.verdict = SyncVerdict::OverStrong;
        site.edge = outcome.edge;
      } else {
        site.verdict = SyncVerdict::LoadBearing;
      }
    }
    name_covering(unneeded, advice);
    leave_out_suppressed(advice);
    return advice;
  }

private:
  // Each site nothing needs alone, taken out with those before it that could all go together:
  // where the set of them leaves a pair unordered, the site and one of those cover each other.
  void name_covering(const std::vector<std::size_t>& unneeded, SyncAdvice& advice) {
    std::vector<std::size_t> removable;
    std::uint64_t tries = 0;
    for (std::size_t index : unneeded) {
      std::vector<std::size_t> together = removable;
      together.push_back(index);
      if (removable.empty() || !judge(together, advice).needed()) {
        removable.push_back(index);
        continue;
      }
      std::string& covered_by = advice.sites[index].covered_by;
      covered_by = "the sites before it that nothing needs alone, taken out together";
      for (std::size_t other : removable) {
        if (tries++ == kMaxCoverReplays) return;
        if (!judge({index, other}, advice).needed()) continue;
        const SyncSiteAdvice& partner = advice.sites[other];
        covered_by = partner.api + (partner.location.empty() ? "" : " at " + partner.location);
        break;
      }
    }
  }

  // Judged with the rest (a suppressed site may cover another), then left out.
  void leave_out_suppressed(SyncAdvice& advice) {
    if (!suppressions_) return;
    std::vector<SyncSiteAdvice> kept;
    for (std::size_t index = 0; index < groups_.size(); ++index) {
      bool suppressed = false;
      for (CallSiteId id : groups_[index].ids)
        if (const CallSite* site = run_.symbols.call_site(id))
          suppressed = suppressed || suppressions_->suppresses_call("sync", *site);
      if (suppressed)
        ++advice.suppressed;
      else
        kept.push_back(std::move(advice.sites[index]));
    }
    advice.sites = std::move(kept);
  }

  void note(const Event& event) {
    events_.push_back(event);
    follow_step_ranges(event);
    const Wait wait = wait_of(event);
    if (wait == Wait::None) return;
    auto [seen, added] = sites_.try_emplace(event.header.site);
    if (added) {
      seen->second.first = events_.size() - 1;
      seen->second.wait = wait;
      order_.push_back(event.header.site);
    }
    ++seen->second.executions;
    const std::uint64_t waited_ns = waited_ns_of(event);
    seen->second.waited_ns += waited_ns;
    if (steps_open_[{event.header.rank, event.header.thread}] > 0)
      seen->second.waited_in_steps_ns += waited_ns;
  }

  // The step ranges each thread is inside: NVTX pops the innermost range of its thread, whatever
  // its name, so each thread's ranges are kept, each marked step or not.
  void follow_step_ranges(const Event& event) {
    const std::pair<RankId, ThreadId> thread{event.header.rank, event.header.thread};
    if (const auto* push = std::get_if<NvtxRangePush>(&event.payload)) {
      const bool step = run_.symbols.name(push->name) == settings_.report.step_range;
      ranges_[thread].push_back(step);
      if (step) {
        ++rank_steps_;
        ++steps_open_[thread];
      }
    } else if (std::holds_alternative<NvtxRangePop>(event.payload)) {
      std::vector<bool>& open = ranges_[thread];
      if (open.empty()) return;
      if (open.back()) --steps_open_[thread];
      open.pop_back();
    }
  }

  // What each host wait of the run waited for (the host thread's clock right after it), and
  // which steps touched memory: the replay of the run with nothing taken out, watched.
  void learn_host_waits() {
    Engine engine(settings_.engine, [](std::string_view) {});
    engine.ordering().set_observer(&memory_steps_);
    for (std::size_t index = 0; index < events_.size(); ++index) {
      const Event& event = events_[index];
      memory_steps_.set_touching(touches_memory(event));
      engine.process(event);
      if (wait_of(event) == Wait::Host)
        host_waits_.emplace_back(
            index, engine.ordering().thread(event.header.rank, event.header.thread).clock);
    }
    engine.ordering().set_observer(nullptr);
  }

  // The run replayed without the waits of the groups `removed`, against the run itself. It
  // replays the events the run kept, so that call site ids and names are the run's. Where only
  // stream waits are taken out, each host wait of the run is held to what it waited for: one
  // that no longer waits for some work the run waited for before going on may let the host read
  // or reuse what that work touches, which the trace sees only in part.
  Outcome judge(const std::vector<std::size_t>& removed, SyncAdvice& advice) {
    ++advice.replays;
    std::unordered_set<CallSiteId> ids;
    bool host_waits_removed = false;
    for (std::size_t group : removed) {
      ids.insert(groups_[group].ids.begin(), groups_[group].ids.end());
      host_waits_removed = host_waits_removed || advice.sites[group].host_wait;
    }
    // The run's own replay already said what the engine had to warn of.
    Engine engine(settings_.engine, [](std::string_view) {});
    Outcome outcome;
    std::size_t next_wait = 0; // the first of host_waits_ not passed yet
    for (std::size_t index = 0; index < events_.size(); ++index) {
      const Event& recorded = events_[index];
      if (!ids.contains(recorded.header.site) || wait_of(recorded) == Wait::None) {
        engine.process(recorded);
        if (!host_waits_removed && outcome.unmet_host_wait.empty())
          hold_to_its_wait(index, next_wait, recorded, engine, outcome);
        continue;
      }
      Event event = recorded;
      if (without_wait(event)) engine.process(event);
    }
    engine.finish();
    for (const Finding& finding : engine.findings().all()) {
      if (baseline_.contains(finding_fingerprint(finding, engine, run_.symbols))) continue;
      if (outcome.new_findings++ == 0) {
        outcome.witness = witness_text(finding, run_.symbols);
        outcome.edge = fix_text(finding, engine, run_.symbols);
      }
      outcome.stream_to_stream = outcome.stream_to_stream && event_edge_orders(finding);
    }
    return outcome;
  }

  // `next_wait` walks host_waits_ along with the replay: no lookup per event.
  void hold_to_its_wait(std::size_t index, std::size_t& next_wait, const Event& event,
                        Engine& engine, Outcome& outcome) {
    while (next_wait < host_waits_.size() && host_waits_[next_wait].first < index)
      ++next_wait;
    if (next_wait == host_waits_.size() || host_waits_[next_wait].first != index) return;
    const VectorClock& now = engine.ordering().thread(event.header.rank, event.header.thread).clock;
    if (!memory_steps_.misses_work(host_waits_[next_wait].second, now)) return;
    const EventSummary summary = summarize(event, run_.symbols);
    const std::string location = program_line(summary, run_.symbols);
    outcome.unmet_host_wait =
        event_api(summary, run_.symbols) + (location.empty() ? "" : " at " + location);
  }

  const std::vector<std::string>& paths_;
  const Settings& settings_;
  std::uint64_t rank_steps_ = 0; // the step ranges pushed (SyncAdvice::rank_steps)
  std::map<std::pair<RankId, ThreadId>, std::vector<bool>> ranges_; // open ranges: step or not
  std::map<std::pair<RankId, ThreadId>, std::uint64_t> steps_open_;
  std::optional<Suppressions>& suppressions_;
  std::map<CallSiteId, SeenSite> sites_;
  std::vector<CallSiteId> order_;
  Replay run_;
  std::vector<Event> events_;     // the run's, as the trace holds them
  std::vector<SiteGroup> groups_; // indexed as the advice's sites
  std::unordered_set<std::uint64_t> baseline_;
  MemorySteps memory_steps_;
  // Each host wait of the run, in event order: its index, and the host's clock right after it.
  std::vector<std::pair<std::size_t, VectorClock>> host_waits_;
};

std::string covering(const SyncSiteAdvice& site) {
  return site.covered_by.empty()
             ? std::string()
             : ", but not without " + site.covered_by + " as well: take out one, not both";
}

std::string milliseconds(std::uint64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", static_cast<double>(ns) / 1e6);
  return text;
}

std::string plural(std::uint64_t count, const std::string& word) {
  return std::to_string(count) + " " + word + (count == 1 ? "" : "s");
}

// A host wait's time a step on one rank: its time inside steps over the rank-steps of the run.
std::uint64_t waited_ns_per_step(const SyncSiteAdvice& site, const SyncAdvice& advice) {
  return advice.rank_steps == 0 ? 0 : site.waited_in_steps_ns / advice.rank_steps;
}

std::string executions_text(const SyncSiteAdvice& site, const SyncAdvice& advice) {
  if (site.waited_ns == 0) return plural(site.executions, "execution");
  return plural(site.executions, "execution") + ", held the host " + milliseconds(site.waited_ns) +
         " ms" +
         (advice.rank_steps == 0 || site.waited_in_steps_ns == 0
              ? ""
              : ", " + milliseconds(waited_ns_per_step(site, advice)) + " ms a step");
}

// Why the site has its verdict, a line each.
std::vector<std::string> reasons(const SyncSiteAdvice& site) {
  switch (site.verdict) {
  case SyncVerdict::LoadBearing:
    return {"without it: " + site.witness +
            (site.findings_without > 1
                 ? " (and " + std::to_string(site.findings_without - 1) + " more)"
                 : "")};
  case SyncVerdict::OverStrong:
    return {"the host waits, but only stream work depends on it: " + site.witness,
            "instead: " + site.edge};
  case SyncVerdict::Redundant:
    return {"without it, every conflicting pair is still ordered" + covering(site)};
  case SyncVerdict::HostUnseen:
    break;
  }
  if (!site.host_wait && !site.unmet_host_wait.empty())
    return {"nothing the trace holds needs it" + covering(site) + ", but without it " +
            site.unmet_host_wait +
            " no longer waits for all it waited for; the host may need it: its own reads are "
            "traced only in pinned and managed memory, with watch_host_accesses=1"};
  return {"nothing the trace holds needs it" + covering(site) +
          "; the host may: its own reads are traced only in pinned and managed memory, "
          "with watch_host_accesses=1"};
}

std::string reasons_sentence(const SyncSiteAdvice& site) {
  std::string sentence;
  for (const std::string& reason : reasons(site))
    sentence += (sentence.empty() ? "" : "; ") + reason;
  return sentence;
}

// The SARIF rules, in SyncVerdict's order.
std::vector<SarifNotes::Rule> sync_rules() {
  return {
      {"streamrace-sync-load-bearing", "SyncLoadBearing",
       "A synchronization without which the run has a race",
       "Taken out of the run, and the run replayed without it, this call site leaves a pair of "
       "conflicting accesses unordered: keep it."},
      {"streamrace-sync-over-strong", "SyncOverStrong", "A host wait only stream work depends on",
       "Every pair this host wait orders is two streams' work: an event recorded on the first "
       "stream and waited for on the second orders them without holding the host."},
      {"streamrace-sync-redundant", "SyncRedundant", "A stream wait the run does not need",
       "Taken out of the run, and the run replayed without it, every conflicting pair stays "
       "ordered; where another site covers the same pairs, take out one of the two, not both."},
      {"streamrace-sync-host-unseen", "SyncHostUnseen",
       "A synchronization only the host may depend on",
       "Taken out of the run, no traced access is left unordered, but the host waited for what "
       "it orders (at this host wait, or at a later one that waited through this stream wait), "
       "and the host's own reads are traced only in pinned and managed memory with "
       "watch_host_accesses=1: check what the host reads or reuses after it before taking it "
       "out."},
  };
}

} // namespace

const char* sync_verdict_name(SyncVerdict verdict) {
  switch (verdict) {
  case SyncVerdict::LoadBearing:
    return "load-bearing";
  case SyncVerdict::OverStrong:
    return "over-strong";
  case SyncVerdict::Redundant:
    return "redundant";
  case SyncVerdict::HostUnseen:
    return "host-unseen";
  }
  return "redundant";
}

SyncAdvice advise_synchronizations(const std::vector<std::string>& paths, const Settings& settings,
                                   std::optional<Suppressions>& suppressions) {
  return Advisor(paths, settings, suppressions).advise();
}

std::string sync_advice_text(const SyncAdvice& advice) {
  std::map<SyncVerdict, std::size_t> counts;
  for (const SyncSiteAdvice& site : advice.sites)
    ++counts[site.verdict];
  std::string out =
      "streamrace: synchronization: " + plural(advice.sites.size() + advice.suppressed, "site") +
      ", each taken out of the run and replayed (" + plural(advice.replays, "replay") +
      "): " + std::to_string(counts[SyncVerdict::LoadBearing]) + " load-bearing, " +
      std::to_string(counts[SyncVerdict::OverStrong]) + " over-strong, " +
      std::to_string(counts[SyncVerdict::Redundant]) + " redundant, " +
      std::to_string(counts[SyncVerdict::HostUnseen]) + " host-unseen" +
      (advice.suppressed ? ", " + std::to_string(advice.suppressed) + " suppressed" : "") + "\n";
  if (advice.rank_steps != 0)
    out += "  steps: " + plural(advice.rank_steps, "'" + advice.step_range + "' range") +
           " pushed over the ranks; a host wait's time a step is its time inside them over "
           "their number\n";
  for (const SyncSiteAdvice& site : advice.sites) {
    out += "  " + std::string(sync_verdict_name(site.verdict)) + ": " + site.api +
           (site.location.empty() ? "" : " at " + site.location) + " (" +
           executions_text(site, advice) + ")\n";
    for (const std::string& reason : reasons(site))
      out += "    " + reason + "\n";
  }
  return out;
}

std::string sync_advice_json(const SyncAdvice& advice) {
  std::string out = "{\"replays\":" + std::to_string(advice.replays) +
                    ",\"step_range\":" + json_quote(advice.step_range) +
                    ",\"steps\":" + std::to_string(advice.rank_steps) + ",\"sites\":[";
  for (std::size_t i = 0; i < advice.sites.size(); ++i) {
    const SyncSiteAdvice& site = advice.sites[i];
    out += std::string(i ? "," : "") + "{\"api\":" + json_quote(site.api) +
           ",\"location\":" + json_quote(site.location) +
           ",\"host_wait\":" + (site.host_wait ? "true" : "false") +
           ",\"executions\":" + std::to_string(site.executions) +
           ",\"waited_ns\":" + std::to_string(site.waited_ns) +
           ",\"waited_ns_per_step\":" + std::to_string(waited_ns_per_step(site, advice)) +
           ",\"verdict\":\"" + sync_verdict_name(site.verdict) +
           "\",\"findings_without\":" + std::to_string(site.findings_without) +
           ",\"witness\":" + json_quote(site.witness) + ",\"edge\":" + json_quote(site.edge) +
           ",\"covered_by\":" + json_quote(site.covered_by) +
           ",\"unmet_host_wait\":" + json_quote(site.unmet_host_wait) + "}";
  }
  return out + "]}";
}

SarifNotes sync_advice_sarif(const SyncAdvice& advice) {
  SarifNotes notes{sync_rules(), {}};
  for (const SyncSiteAdvice& site : advice.sites)
    notes.notes.push_back(SarifNotes::Note{
        static_cast<std::size_t>(site.verdict), site.file, site.line, site.function,
        site.api + " (" + executions_text(site, advice) + ") is " +
            sync_verdict_name(site.verdict) + ": " + reasons_sentence(site) + ".",
        site.api + " " + site.location,
        "\"verdict\":\"" + std::string(sync_verdict_name(site.verdict)) + "\",\"executions\":" +
            std::to_string(site.executions) + ",\"waitedNs\":" + std::to_string(site.waited_ns) +
            ",\"waitedNsPerStep\":" + std::to_string(waited_ns_per_step(site, advice)) +
            ",\"findingsWithout\":" + std::to_string(site.findings_without)});
  return notes;
}

std::vector<PerfettoSiteMark> sync_advice_marks(const SyncAdvice& advice) {
  std::vector<PerfettoSiteMark> marks;
  for (const SyncSiteAdvice& site : advice.sites)
    if (!site.location.empty())
      marks.push_back(PerfettoSiteMark{site.api, site.location, sync_verdict_name(site.verdict),
                                       reasons_sentence(site)});
  return marks;
}

} // namespace streamrace
