// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/report/perfetto_export.h"

#include "streamrace/report/event_names.h"
#include "streamrace/report/finding_id.h"
#include "streamrace/report/finding_names.h"
#include "streamrace/report/finding_text.h"
#include "streamrace/report/json_text.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace streamrace {

namespace {

// Microseconds, as the JSON format's "ts" and "dur" expect, finer than a nanosecond so that
// flows bind inside slices one nanosecond apart.
std::string micros(double us) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.4f", us);
  return text;
}

struct Track {
  int pid = 0;
  int tid = 0;
  std::string name;
  int sort = 0;
};

struct Slice {
  std::uint32_t event = 0;
  std::size_t track = 0;
  ActorId actor = 0;
  bool has_actor = false;
  Epoch step = 0; // the op's number on its stream, 0 when the slice is no step
  double ts = 0;
  double dur = 0;
  std::vector<std::string> findings;
  const PerfettoSiteMark* mark = nullptr;
  double mid() const { return ts + dur / 2; }
};

class Exporter {
public:
  Exporter(const RecordedReplay& run, std::ostream& out) : run_(run), out_(out) {}

  void write(const std::vector<Finding>& findings, const std::vector<PerfettoSiteMark>& marks) {
    choose_clock();
    make_slices();
    size_slices();
    mark_findings(findings);
    mark_sites(marks);
    out_ << "{\"traceEvents\":[\n";
    metadata();
    for (const Slice& slice : slices_)
      slice_event(slice);
    flows();
    instants(findings);
    site_instants();
    out_ << "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":"
            "\"streamrace export\",\"timestamps\":"
         << json_quote(trace_time_ ? "trace: the host time of each call (op durations are not "
                                     "measured; a slice lasts until the next one on its track)"
                                   : "synthetic: one microsecond per event, in replay order")
         << ",\"findings\":" << findings.size() << "}}\n";
  }

private:
  void choose_clock() {
    const std::vector<EventSummary>& events = run_.events;
    trace_time_ =
        !events.empty() && std::all_of(events.begin(), events.end(),
                                       [](const EventSummary& e) { return e.header.time_ns != 0; });
    if (!trace_time_) return;
    first_ns_ = events.front().header.time_ns;
    for (const EventSummary& event : events)
      first_ns_ = std::min(first_ns_, event.header.time_ns);
  }

  double time_of(std::uint32_t event) const {
    return trace_time_ ? static_cast<double>(run_.events[event].header.time_ns - first_ns_) / 1000.0
                       : static_cast<double>(event);
  }

  int pid_of(RankId rank) const { return static_cast<int>(rank) + 1; }

  enum class TrackKind { HostThread, Stream };
  std::size_t track(RankId rank, TrackKind kind, std::uint64_t handle, ActorId actor) {
    const bool stream = kind == TrackKind::Stream;
    const auto key = std::make_tuple(rank, stream, handle);
    auto [it, inserted] = track_index_.try_emplace(key, tracks_.size());
    if (!inserted) return it->second;
    Track t;
    t.pid = pid_of(rank);
    // Thread ids unique across processes: viewers that key threads by tid alone would merge
    // the same tid of two ranks.
    t.tid = static_cast<int>(tracks_.size()) + 1;
    t.sort = (stream ? 1000 : 0) + ++tracks_on_rank_[rank];
    t.name = stream ? stream_name(actor) : "host thread " + std::to_string(handle);
    tracks_.push_back(t);
    return it->second;
  }

  std::string stream_name(ActorId id) const {
    const ActorInfo& actor = run_.engine.ordering().actor(id);
    const char* kind = actor.graph_lane                                 ? "graph lane"
                       : actor.stream_kind == StreamKind::NonBlocking   ? "non-blocking"
                       : actor.stream_kind == StreamKind::Blocking      ? "blocking"
                       : actor.stream_kind == StreamKind::LegacyDefault ? "legacy default"
                                                                        : "per-thread default";
    const bool default_stream = actor.stream_kind == StreamKind::LegacyDefault ||
                                actor.stream_kind == StreamKind::PerThreadDefault;
    if (actor.name)
      return "stream '" + std::string(run_.symbols.name(actor.name)) + "' (" +
             (default_stream ? "" : hex_text(actor.handle) + ", ") + kind + ")";
    if (actor.stream_kind == StreamKind::LegacyDefault) return "legacy default stream";
    if (actor.stream_kind == StreamKind::PerThreadDefault) return "per-thread default stream";
    return "stream " + hex_text(actor.handle) + " (" + kind + ")";
  }

  std::size_t actor_track(ActorId id) {
    const ActorInfo& actor = run_.engine.ordering().actor(id);
    return track(actor.rank, actor.is_stream ? TrackKind::Stream : TrackKind::HostThread,
                 actor.handle, id);
  }

  // One slice per trace event and actor it moved; events that moved none sit on their host
  // thread's track (name-only events are left out).
  void make_slices() {
    const auto& nodes = run_.graph.nodes();
    std::vector<bool> sliced(run_.events.size(), false);
    for (std::size_t n = 0; n < nodes.size(); ++n) {
      const auto& node = nodes[n];
      const std::uint64_t key = (static_cast<std::uint64_t>(node.event) << 32) | node.actor;
      auto [it, inserted] = slice_of_.try_emplace(key, slices_.size());
      if (inserted) {
        Slice slice;
        slice.event = node.event;
        slice.track = actor_track(node.actor);
        slice.actor = node.actor;
        slice.has_actor = true;
        slices_.push_back(slice);
        sliced[node.event] = true;
      }
      Slice& slice = slices_[it->second];
      if (node.step && run_.engine.ordering().actor(node.actor).is_stream) slice.step = node.epoch;
    }
    for (std::uint32_t e = 0; e < run_.events.size(); ++e) {
      const EventSummary& event = run_.events[e];
      if (sliced[e] || event.names_only) continue;
      Slice slice;
      slice.event = e;
      slice.track = track(event.header.rank, TrackKind::HostThread, event.header.thread, 0);
      slices_.push_back(slice);
    }
    // In event order, slices of one event in the order they were made. (Not std::stable_sort:
    // libstdc++ 12 builds it on get_temporary_buffer, deprecated in C++20, which clang flags.)
    std::vector<std::size_t> order(slices_.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return std::tie(slices_[a].event, a) < std::tie(slices_[b].event, b);
    });
    std::vector<Slice> sorted;
    sorted.reserve(slices_.size());
    for (std::size_t i : order)
      sorted.push_back(std::move(slices_[i]));
    slices_ = std::move(sorted);
    slice_of_.clear();
    for (std::size_t i = 0; i < slices_.size(); ++i)
      if (slices_[i].has_actor)
        slice_of_[(static_cast<std::uint64_t>(slices_[i].event) << 32) | slices_[i].actor] = i;
  }

  // A slice lasts until the next one on its track (four fifths of the gap, so slices never
  // touch and every flow binds to exactly one).
  void size_slices() {
    constexpr double k_longest = 1000.0;
    std::vector<std::size_t> last(tracks_.size(), slices_.size());
    for (std::size_t i = 0; i < slices_.size(); ++i) {
      Slice& slice = slices_[i];
      slice.ts = time_of(slice.event);
      slice.dur = 0.8;
      if (std::size_t previous = last[slice.track]; previous != slices_.size())
        slices_[previous].dur = 0.8 * std::min(slice.ts - slices_[previous].ts, k_longest);
      last[slice.track] = i;
    }
  }

  const Slice* node_slice(HappensBeforeGraph::NodeId node) const {
    if (node == HappensBeforeGraph::kNoNode) return nullptr;
    const auto& n = run_.graph.nodes()[node];
    auto it = slice_of_.find((static_cast<std::uint64_t>(n.event) << 32) | n.actor);
    return it == slice_of_.end() ? nullptr : &slices_[it->second];
  }

  void mark_findings(const std::vector<Finding>& findings) {
    for (const Finding& finding : findings) {
      if (finding.collective) continue;
      const std::string id = finding_id(finding, run_.engine, run_.symbols);
      for (const AccessSide* side : {&finding.first, &finding.second})
        if (const Slice* slice = node_slice(op_node(run_, *side)))
          slices_[static_cast<std::size_t>(slice - slices_.data())].findings.push_back(id);
    }
  }

  void mark_sites(const std::vector<PerfettoSiteMark>& marks) {
    if (marks.empty()) return;
    std::map<std::pair<std::string_view, std::string_view>, const PerfettoSiteMark*> by_site;
    for (const PerfettoSiteMark& mark : marks)
      by_site.emplace(std::pair<std::string_view, std::string_view>(mark.api, mark.location),
                      &mark);
    for (Slice& slice : slices_) {
      const EventSummary& event = run_.events[slice.event];
      const std::string api = event_api(event, run_.symbols);
      const std::string location = program_line(event, run_.symbols);
      auto found = by_site.find({api, location});
      if (found != by_site.end()) slice.mark = found->second;
    }
  }

  void metadata() {
    std::map<int, RankId> ranks;
    for (const auto& [key, index] : track_index_)
      ranks[tracks_[index].pid] = std::get<0>(key);
    const RankNames rank_names(run_.engine);
    for (const auto& [pid, rank] : ranks) {
      out_ << sep() << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" << pid
           << ",\"tid\":0,\"args\":{\"name\":" << json_quote(rank_names.name(rank)) << "}}";
      out_ << sep() << "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" << pid
           << ",\"tid\":0,\"args\":{\"sort_index\":" << rank << "}}";
    }
    for (const Track& t : tracks_) {
      out_ << sep() << "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" << t.pid
           << ",\"tid\":" << t.tid << ",\"args\":{\"name\":" << json_quote(t.name) << "}}";
      out_ << sep() << "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":" << t.pid
           << ",\"tid\":" << t.tid << ",\"args\":{\"sort_index\":" << t.sort << "}}";
    }
  }

  void slice_event(const Slice& slice) {
    const EventSummary& event = run_.events[slice.event];
    const Track& t = tracks_[slice.track];
    out_ << sep() << "{\"ph\":\"X\",\"name\":" << json_quote(event_api(event, run_.symbols))
         << ",\"cat\":\"" << (slice.findings.empty() ? "op" : "op,finding")
         << (slice.mark ? ",sync" : "") << "\",\"pid\":" << t.pid << ",\"tid\":" << t.tid
         << ",\"ts\":" << micros(slice.ts) << ",\"dur\":" << micros(slice.dur);
    if (!slice.findings.empty()) out_ << ",\"cname\":\"terrible\"";
    out_ << ",\"args\":{\"event\":" << slice.event;
    if (slice.step) out_ << ",\"op\":\"#" << slice.step << "\"";
    if (const std::uint64_t bytes = event.bytes) out_ << ",\"bytes\":" << bytes;
    if (std::string where = event_location(event, run_.symbols); !where.empty())
      out_ << ",\"call site\":" << json_quote(where);
    if (!slice.findings.empty()) {
      std::string ids;
      for (const std::string& id : slice.findings)
        ids += (ids.empty() ? "" : ",") + id;
      out_ << ",\"finding\":" << json_quote(ids);
    }
    if (slice.mark)
      out_ << ",\"sync\":" << json_quote(slice.mark->verdict)
           << ",\"sync advice\":" << json_quote(slice.mark->note);
    out_ << "}}";
  }

  void flows() {
    const auto& edges = run_.graph.edges();
    for (std::size_t i = 0; i < edges.size(); ++i) {
      const auto& edge = edges[i];
      const Slice* from = node_slice(edge.from);
      const Slice* to = node_slice(edge.to);
      if (!from || !to) continue;
      const Track& a = tracks_[from->track];
      const Track& b = tracks_[to->track];
      const char* name = join_kind_name(edge.kind);
      out_ << sep() << "{\"ph\":\"s\",\"name\":\"" << name
           << "\",\"cat\":\"happens-before\",\"id\":" << i + 1 << ",\"pid\":" << a.pid
           << ",\"tid\":" << a.tid << ",\"ts\":" << micros(from->mid()) << "}";
      out_ << sep() << "{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"" << name
           << "\",\"cat\":\"happens-before\",\"id\":" << i + 1 << ",\"pid\":" << b.pid
           << ",\"tid\":" << b.tid << ",\"ts\":" << micros(to->mid()) << "}";
    }
  }

  void instants(const std::vector<Finding>& findings) {
    for (const Finding& finding : findings) {
      if (finding.collective) continue;
      const std::string id = finding_id(finding, run_.engine, run_.symbols);
      const std::string fix = fix_text(finding, run_.engine, run_.symbols);
      int which = 1;
      for (const AccessSide* side : {&finding.first, &finding.second}) {
        const Slice* slice = node_slice(op_node(run_, *side));
        const int number = which++;
        if (!slice) continue;
        const Track& t = tracks_[slice->track];
        out_ << sep() << "{\"ph\":\"i\",\"s\":\"t\",\"name\":"
             << json_quote(id + " " + finding_kind_name(finding.kind) + ": op " +
                           std::to_string(number))
             << ",\"cat\":\"finding\",\"pid\":" << t.pid << ",\"tid\":" << t.tid
             << ",\"ts\":" << micros(slice->mid()) << ",\"args\":{\"finding\":" << json_quote(id)
             << ",\"fix\":" << json_quote(fix) << "}}";
      }
    }
  }

  // One mark per execution of an advised site, on the track of its first slice.
  void site_instants() {
    std::uint32_t marked_event = 0;
    bool any = false;
    for (const Slice& slice : slices_) {
      if (!slice.mark || (any && slice.event == marked_event)) continue;
      any = true;
      marked_event = slice.event;
      const Track& t = tracks_[slice.track];
      out_ << sep() << "{\"ph\":\"i\",\"s\":\"t\",\"name\":"
           << json_quote("sync " + slice.mark->verdict + ": " + slice.mark->api)
           << ",\"cat\":\"sync\",\"pid\":" << t.pid << ",\"tid\":" << t.tid
           << ",\"ts\":" << micros(slice.mid())
           << ",\"args\":{\"call site\":" << json_quote(slice.mark->location)
           << ",\"advice\":" << json_quote(slice.mark->note) << "}}";
    }
  }

  const char* sep() {
    const char* text = first_ ? "" : ",\n";
    first_ = false;
    return text;
  }

  const RecordedReplay& run_;
  bool first_ = true;
  bool trace_time_ = false;
  std::uint64_t first_ns_ = 0;
  std::vector<Track> tracks_;
  std::map<std::tuple<RankId, bool, std::uint64_t>, std::size_t> track_index_;
  std::map<RankId, int> tracks_on_rank_;
  std::vector<Slice> slices_;
  std::unordered_map<std::uint64_t, std::size_t> slice_of_;
  std::ostream& out_;
};

} // namespace

void write_perfetto_trace(const RecordedReplay& run, const std::vector<Finding>& findings,
                          std::ostream& out, const std::vector<PerfettoSiteMark>& marks) {
  Exporter(run, out).write(findings, marks);
}

} // namespace streamrace
