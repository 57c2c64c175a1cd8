// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Replays a synthetic training-like trace through the engine and prints throughput and peak
// memory: 8 ranks x 8 streams x 512 tensors of 1 MiB. The mix, per draw: 70% kernels (two
// whole-tensor accesses; one kernel in twenty touches a view, a sub-range), 10% device copies,
// 12% event record/wait pairs, 4% fresh stream-ordered allocations used once and freed (new
// addresses all the time, so history would grow without a cap), 3% host stream syncs, 1% WORLD
// collectives (one event per rank). Events are generated in untimed chunks of 256 and each
// chunk is replayed as one batch, the way `streamrace report` decodes and replays its traces:
// a chunk of millions would be measuring how fast events come back from main memory.
//
//   engine-replay-bench [EVENTS=10000000] [HISTORY_LIMIT_MB=64]
//       prints the host's processor, the resident memory after each quarter of the events,
//       then the throughput (replay time only: generation is untimed), the cycles per event
//       at the core clock read between chunks, and the peak memory. Bad arguments print the
//       usage line and exit with status 2.
//   engine-replay-bench EVENTS HISTORY_LIMIT_MB --tensors-per-rank N
//       the same with N tensors per rank: a model with many more live tensors than 512.
//   engine-replay-bench EVENTS HISTORY_LIMIT_MB --repeat R
//       replays the same trace R times, each into a fresh engine, and ends with the best and
//       the median throughput: on a shared machine a single run measures the neighbours as
//       much as the engine (the best run is the closest to the engine's own speed, the median
//       to what a busy host gives it).
//   engine-replay-bench EVENTS HISTORY_LIMIT_MB --write-trace DIR
//       writes the same events as per-rank trace files DIR/rank<N>.srtrace (stamped in
//       generation order, so `streamrace report DIR` replays them in this order) instead.
#include "streamrace/engine/engine.h"
#include "streamrace/trace/trace_writer.h"
#include "whole_number.h"

#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

using namespace streamrace;

namespace {

constexpr int kRanks = 8;
constexpr int kStreamsPerRank = 8;
constexpr int kDefaultTensorsPerRank = 512;
constexpr std::uint64_t kBufferBytes = 1 << 20;
constexpr std::size_t kChunk = 256;
constexpr std::uint64_t kChunksPerClockReading = 8;

long resident_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  return 0;
}

// The host's processor as /proc/cpuinfo names it, with family and model (a virtual machine
// often names only the vendor): figures from different hosts differ by half.
std::string host_cpu() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  std::string name = "unknown";
  std::string family;
  std::string model;
  auto value = [&] { return line.substr(line.find(':') + 2); };
  while (std::getline(cpuinfo, line) && !line.empty()) {
    if (line.rfind("model name", 0) == 0)
      name = value();
    else if (line.rfind("cpu family", 0) == 0)
      family = value();
    else if (line.rfind("model\t", 0) == 0)
      model = value();
  }
  if (!family.empty() && !model.empty()) name += " (family " + family + ", model " + model + ")";
  return name;
}

// CPU time of this thread: on a shared machine, wall time also counts the time other
// processes held the core.
double thread_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

// The clock this core runs at, from a chain of dependent adds (one per cycle) timed in CPU
// time. On a shared host the replay rate moves by a quarter from one minute to the next:
// read between chunks, the clock tells whether the core slowed down or the engine waited
// longer (on memory the host shares), and turns replay time into cycles. 0 off x86-64.
double core_ghz() {
#if defined(__x86_64__)
  constexpr std::uint64_t k_rounds = 12'500; // eight adds each: 100k cycles, 50 us at 2 GHz
  const double start = thread_cpu_seconds();
  // Register operands: cores since Golden Cove fold dependent adds of an immediate at
  // rename, several per cycle, which read as an 11 GHz clock.
  std::uint64_t chain = 0;
  const std::uint64_t one = 1;
  for (std::uint64_t round = 0; round < k_rounds; ++round)
    asm volatile("add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
                 "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0"
                 : "+r"(chain)
                 : "r"(one));
  const double seconds = thread_cpu_seconds() - start;
  return seconds > 0 ? static_cast<double>(k_rounds * 8) / seconds / 1e9 : 0;
#else
  return 0;
#endif
}

long peak_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

class TraceGenerator {
public:
  explicit TraceGenerator(int tensors_per_rank) : tensors_(tensors_per_rank) {}

  std::vector<Event> setup() {
    std::vector<Event> events;
    for (int r = 0; r < kRanks; ++r) {
      events.push_back(at(r, CommInit{0xC0, 0xC0FFEE, kRanks, r, 0}));
      for (int s = 0; s < kStreamsPerRank; ++s)
        events.push_back(at(r, StreamCreate{stream(s), 0, StreamKind::NonBlocking, 0}));
      for (int b = 0; b < tensors_; ++b)
        events.push_back(at(r, Alloc{buffer(b), kBufferBytes, MemoryKind::Device, 0, 0}));
    }
    return events;
  }

  void chunk(std::vector<Event>& events, std::size_t count) {
    events.clear();
    while (events.size() < count) {
      const int r = static_cast<int>(rng_() % kRanks);
      const std::uint32_t dice = rng_() % 1000;
      const StreamHandle s = stream(static_cast<int>(rng_() % kStreamsPerRank));
      if (dice < 700) {
        const Address a = buffer(static_cast<int>(rng_() % tensors_));
        const Address b = buffer(static_cast<int>(rng_() % tensors_));
        // Most kernels touch whole tensors; some touch a view (a slice) of one.
        const bool view = rng_() % 20 == 0;
        const std::uint64_t offset = view ? (rng_() % 16) * 65536 : 0;
        const std::uint64_t bytes = view ? 65536 : kBufferBytes;
        events.push_back(
            at(r, KernelLaunch{s,
                               0,
                               {{a + offset, bytes, AccessMode::Read, Extent::Exact},
                                {b + offset, bytes, AccessMode::Write, Extent::Exact}}}));
      } else if (dice < 800) {
        const Address a = buffer(static_cast<int>(rng_() % tensors_));
        const Address b = buffer(static_cast<int>(rng_() % tensors_));
        events.push_back(
            at(r, Copy{s, a, b, kBufferBytes, 1, 0, 0, CopyKind::DeviceToDevice, false}));
      } else if (dice < 920) {
        const EventHandle e = 0xE000 + rng_() % 64;
        events.push_back(at(r, EventRecord{e, s}));
        events.push_back(
            at(r, StreamWaitEvent{stream(static_cast<int>(rng_() % kStreamsPerRank)), e}));
      } else if (dice < 960) {
        // A fresh pool allocation used once and freed: new addresses all the time.
        const Address fresh = 0x7000000000ull + (next_fresh_++ << 16);
        events.push_back(at(r, Alloc{fresh, 65536, MemoryKind::StreamOrdered, 0, s}));
        events.push_back(
            at(r, KernelLaunch{s, 0, {{fresh, 65536, AccessMode::Write, Extent::Exact}}}));
        events.push_back(at(r, Free{fresh, FreeApi::FreeAsync, s}));
      } else if (dice < 990) {
        events.push_back(at(r, StreamSynchronize{s, true}));
      } else {
        // A WORLD collective: every rank posts its part on stream 0.
        for (int q = 0; q < kRanks; ++q)
          events.push_back(at(q, Collective{stream(0), 0xC0, CollectiveKind::AllReduce, buffer(0),
                                            buffer(1), 4096, 4, 0, 7, 0}));
      }
    }
  }

private:
  static StreamHandle stream(int s) { return 0x1000 + static_cast<StreamHandle>(s); }
  static Address buffer(int b) { return 0x100000000ull + static_cast<Address>(b) * kBufferBytes; }
  Event at(int rank, Payload payload) {
    return Event{EventHeader{static_cast<RankId>(rank), 1, 1, static_cast<std::uint32_t>(rank), 0},
                 std::move(payload)};
  }
  int tensors_;
  std::mt19937_64 rng_{12345}; // NOLINT(bugprone-random-generator-seed): the same workload each run
  std::uint64_t next_fresh_ = 0;
};

int write_trace(const std::string& dir, std::uint64_t total, int tensors_per_rank) {
  std::filesystem::create_directories(dir);
  SymbolTable symbols;
  symbols.add_call_site(CallSite{"bench", {StackFrame{"chunk", "engine_replay_bench.cpp", 1}}});
  std::vector<std::unique_ptr<trace::TraceWriter>> writers;
  for (int r = 0; r < kRanks; ++r) {
    writers.push_back(std::make_unique<trace::TraceWriter>(
        dir + "/rank" + std::to_string(r) + ".srtrace", 1000 + r, 0));
    writers.back()->define_symbols(symbols);
  }
  TraceGenerator generator(tensors_per_rank);
  std::uint64_t time_ns = 0;
  auto write = [&](std::vector<Event>& events) {
    for (Event& event : events) {
      event.header.time_ns = ++time_ns;
      writers[event.header.rank]->write(event);
    }
  };
  std::vector<Event> chunk = generator.setup();
  write(chunk);
  for (std::uint64_t done = 0; done < total; done += chunk.size()) {
    generator.chunk(chunk, static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, total - done)));
    write(chunk);
  }
  for (auto& writer : writers)
    writer->flush();
  std::printf("wrote %llu events to %d trace files in %s\n",
              static_cast<unsigned long long>(time_ns), kRanks, dir.c_str());
  return 0;
}

constexpr const char* kUsage =
    "usage: engine-replay-bench [EVENTS (default 10000000, > 0)] [HISTORY_LIMIT_MB (default 64)]"
    " [--tensors-per-rank N (default 512)] [--repeat R (default 1)] [--write-trace DIR]";

int usage_error(const std::string& problem) {
  if (!problem.empty()) std::fprintf(stderr, "engine-replay-bench: %s\n", problem.c_str());
  std::fprintf(stderr, "%s\n", kUsage);
  return 2;
}

struct ReplayFigures {
  double rate = 0;             // millions of events per CPU second
  double cycles_per_event = 0; // 0 when the clock could not be read
};

// Replays `total` events of the generated trace into a fresh engine, printing its figures.
ReplayFigures replay(const Options& options, int tensors_per_rank, std::uint64_t total) {
  Engine engine(options, [](std::string_view) {});
  TraceGenerator generator(tensors_per_rank);
  for (const Event& event : generator.setup())
    engine.process(event);

  std::vector<Event> chunk;
  std::chrono::duration<double> busy{0};
  double busy_cpu = 0;
  double cycles = 0;
  double ghz = 0;
  std::uint64_t chunks = 0;
  std::uint64_t done = 0;
  int quarter = 1;
  std::uint64_t next_report = std::max<std::uint64_t>(total / 4, 1);
  while (done < total) {
    // Chunks end at the quarter marks (a draw may overshoot one by a few events); where they
    // end does not change the events, which come from one generator in one order.
    const std::uint64_t chunk_end = std::min(next_report, total);
    generator.chunk(chunk,
                    static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, chunk_end - done)));
    if (chunks++ % kChunksPerClockReading == 0) ghz = core_ghz();
    const auto start = std::chrono::steady_clock::now();
    const double start_cpu = thread_cpu_seconds();
    engine.process(chunk);
    const double chunk_cpu = thread_cpu_seconds() - start_cpu;
    busy += std::chrono::steady_clock::now() - start;
    busy_cpu += chunk_cpu;
    cycles += chunk_cpu * ghz * 1e9;
    done += chunk.size();
    if (done >= next_report || done >= total) {
      std::printf("  after %9llu events: resident %7ld KiB\n",
                  static_cast<unsigned long long>(done), resident_kib());
      ++quarter;
      next_report = quarter == 4 ? total : std::max<std::uint64_t>(total / 4 * quarter, done + 1);
    }
  }
  engine.finish();
  std::printf("events: %llu\n", static_cast<unsigned long long>(done));
  std::printf("replay time: %.3f s\n", busy.count());
  std::printf("throughput: %.2f M events/s\n", static_cast<double>(done) / busy.count() / 1e6);
  const double rate = static_cast<double>(done) / busy_cpu / 1e6;
  std::printf("replay CPU time: %.3f s (%.2f M events per CPU second)\n", busy_cpu, rate);
  const double cycles_per_event = cycles / static_cast<double>(done);
  if (cycles > 0)
    std::printf("replay cycles: %.0f per event, the core's clock read at %.2f GHz between "
                "chunks\n",
                cycles_per_event, cycles / busy_cpu / 1e9);
  std::printf("peak resident memory: %ld KiB\n", peak_kib());
  std::uint64_t occurrences = 0;
  for (const Finding& finding : engine.findings().all())
    occurrences += finding.count;
  std::printf("findings: %zu, %llu occurrences (history evictions: %llu)\n",
              engine.findings().size(), static_cast<unsigned long long>(occurrences),
              static_cast<unsigned long long>(engine.stats().history_evictions));
  return {rate, cycles_per_event};
}

} // namespace

int main(int argc, char** argv) {
  std::vector<std::string_view> numbers;
  std::string trace_dir;
  int tensors_per_rank = kDefaultTensorsPerRank;
  int repeat = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--write-trace") {
      if (i + 1 >= argc) return usage_error("--write-trace needs a directory");
      trace_dir = argv[++i];
    } else if (arg == "--tensors-per-rank" || arg == "--repeat") {
      // Each rank's tensors are 1 MiB apart below the fresh pool allocations at 0x7000000000.
      const int most = arg == "--repeat" ? 100 : 65536;
      const auto value = i + 1 < argc ? whole_number<std::uint64_t>(argv[i + 1]) : std::nullopt;
      if (!value || *value == 0 || *value > static_cast<std::uint64_t>(most))
        return usage_error(std::string(arg) + " needs a whole number from 1 to " +
                           std::to_string(most));
      (arg == "--repeat" ? repeat : tensors_per_rank) = static_cast<int>(*value);
      ++i;
    } else if (arg == "--help" || arg == "-h") {
      return usage_error("");
    } else if (numbers.size() < 2 && !arg.starts_with('-')) {
      numbers.push_back(arg);
    } else {
      return usage_error("unexpected argument '" + std::string(arg) + "'");
    }
  }
  std::uint64_t total = 10'000'000;
  Options options;
  options.history_limit_mb = 64;
  if (!numbers.empty()) {
    const auto events = whole_number<std::uint64_t>(numbers[0]);
    if (!events || *events == 0)
      return usage_error("EVENTS must be a positive whole number, got '" + std::string(numbers[0]) +
                         "'");
    total = *events;
  }
  if (numbers.size() > 1) {
    const auto limit = whole_number<std::uint64_t>(numbers[1]);
    if (!limit)
      return usage_error("HISTORY_LIMIT_MB must be a whole number, got '" +
                         std::string(numbers[1]) + "'");
    options.history_limit_mb = *limit;
  }
  if (!trace_dir.empty()) return write_trace(trace_dir, total, tensors_per_rank);
  std::printf("engine replay: %d ranks x %d streams x %d tensors, history_limit_mb=%llu\n", kRanks,
              kStreamsPerRank, tensors_per_rank,
              static_cast<unsigned long long>(options.history_limit_mb));
  std::printf("host CPU: %s\n", host_cpu().c_str());
  std::vector<double> rates;
  std::vector<double> cycles;
  for (int run = 1; run <= repeat; ++run) {
    if (repeat > 1) std::printf("run %d of %d:\n", run, repeat);
    const ReplayFigures figures = replay(options, tensors_per_rank, total);
    rates.push_back(figures.rate);
    cycles.push_back(figures.cycles_per_event);
  }
  if (repeat > 1) {
    std::sort(rates.begin(), rates.end());
    std::sort(cycles.begin(), cycles.end());
    std::printf("best of %d: %.2f M events per CPU second; median %.2f\n", repeat, rates.back(),
                rates[rates.size() / 2]);
    if (cycles.front() > 0)
      std::printf("cycles per event: fewest %.0f, median %.0f\n", cycles.front(),
                  cycles[cycles.size() / 2]);
  }
  return 0;
}
