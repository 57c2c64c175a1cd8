// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// docs/semantics.md rule 7 is read by two front ends: the analyzer (synchronous_api.h) and the
// tracer's engine. For every synchronous copy and set, every memory on each side and every kind
// of stream the next work goes to, both must decide the same: whether that work is ordered after
// the call because the host waited for it.
#include "synchronous_api.h"

#include "streamrace/engine/engine.h"

#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <string>
#include <utility>

namespace streamrace {
namespace {

constexpr Address kSource = 0x10000, kDestination = 0x20000;
constexpr std::uint64_t kBytes = 256;
constexpr StreamHandle kNextStream = 0x400;

struct MemoryCase {
  MemoryKind traced;         // the engine's
  analyzer::MemoryKind seen; // the analyzer's
  const char* name;
};
// Pageable host memory is memory nobody allocated, for both sides.
constexpr std::array kMemories{
    MemoryCase{MemoryKind::Pageable, analyzer::MemoryKind::Unknown, "pageable"},
    MemoryCase{MemoryKind::Device, analyzer::MemoryKind::Device, "device"},
    MemoryCase{MemoryKind::PinnedHost, analyzer::MemoryKind::Pinned, "pinned"},
    MemoryCase{MemoryKind::Managed, analyzer::MemoryKind::Managed, "managed"},
    MemoryCase{MemoryKind::StreamOrdered, analyzer::MemoryKind::Device, "pool"},
};

struct CallCase {
  std::optional<CopyKind> direction; // none: a set
  const char* name;
};
constexpr std::array kCalls{
    CallCase{CopyKind::HostToHost, "cudaMemcpy H2H"},
    CallCase{CopyKind::HostToDevice, "cudaMemcpy H2D"},
    CallCase{CopyKind::DeviceToHost, "cudaMemcpy D2H"},
    CallCase{CopyKind::DeviceToDevice, "cudaMemcpy D2D"},
    CallCase{CopyKind::Default, "cudaMemcpy Default"},
    CallCase{std::nullopt, "cudaMemset"},
};

constexpr std::array kNextStreamKinds{StreamKind::Blocking, StreamKind::NonBlocking};

class TracedProgram {
public:
  void emit(Payload payload) {
    engine_.process(Event{EventHeader{0, 1, 0, 0, 0}, std::move(payload)});
  }
  void allocate(Address base, MemoryKind kind) {
    if (kind != MemoryKind::Pageable) emit(Alloc{base, kBytes, kind, kCurrentDevice, 0});
  }
  bool raced() {
    for (const Finding& finding : engine_.findings().all())
      if (finding.kind == FindingKind::RaceWriteWrite ||
          finding.kind == FindingKind::RaceWriteRead || finding.kind == FindingKind::RaceReadWrite)
        return true;
    return false;
  }

private:
  Engine engine_{Options{}};
};

// The engine's answer: the call on the legacy default stream, then a kernel writing both sides on
// another stream. It races exactly when nothing ordered it after the call.
bool engineOrdersNextWork(const CallCase& call, const MemoryCase& source,
                          const MemoryCase& destination, StreamKind nextStream) {
  TracedProgram program;
  program.emit(StreamCreate{kNextStream, 0, nextStream, 0});
  program.allocate(kSource, source.traced);
  program.allocate(kDestination, destination.traced);
  if (call.direction)
    program.emit(Copy{kNullStream, kDestination, kSource, kBytes, 1, 0, 0, *call.direction, true});
  else
    program.emit(Set{kNullStream, kDestination, kBytes, 1, 0, true});
  program.emit(KernelLaunch{kNextStream,
                            0,
                            {{kSource, kBytes, AccessMode::Write, Extent::Exact},
                             {kDestination, kBytes, AccessMode::Write, Extent::Exact}}});
  return !program.raced();
}

// An asynchronous copy on a non-blocking stream of its own, then the same kernel.
bool engineOrdersWorkAfterAsyncCopy(const CallCase& call, const MemoryCase& source,
                                    const MemoryCase& destination) {
  constexpr StreamHandle kCopyStream = 0x500;
  TracedProgram program;
  program.emit(StreamCreate{kCopyStream, 0, StreamKind::NonBlocking, 0});
  program.emit(StreamCreate{kNextStream, 0, StreamKind::NonBlocking, 0});
  program.allocate(kSource, source.traced);
  program.allocate(kDestination, destination.traced);
  program.emit(Copy{kCopyStream, kDestination, kSource, kBytes, 1, 0, 0, *call.direction, false});
  program.emit(KernelLaunch{kNextStream,
                            0,
                            {{kSource, kBytes, AccessMode::Write, Extent::Exact},
                             {kDestination, kBytes, AccessMode::Write, Extent::Exact}}});
  return !program.raced();
}

// The analyzer's answer: the host waited, or the next stream synchronizes with the legacy
// default stream (rule 2).
bool analyzerOrdersNextWork(const CallCase& call, const MemoryCase& source,
                            const MemoryCase& destination, StreamKind nextStream) {
  analyzer::CallEffect effect;
  effect.synchronousApi = true;
  effect.isCopy = call.direction.has_value();
  if (effect.isCopy) effect.copyKind = *call.direction;
  return nextStream == StreamKind::Blocking ||
         analyzer::hostWaitsOnReturn(effect, source.seen, destination.seen);
}

TEST(SynchronousApi, AnalyzerAndEngineReadTheSameRule) {
  int compared = 0;
  for (const CallCase& call : kCalls)
    for (const MemoryCase& source : kMemories)
      for (const MemoryCase& destination : kMemories)
        for (StreamKind nextStream : kNextStreamKinds) {
          if (!call.direction && source.traced != MemoryKind::Pageable) continue; // no source
          const bool engine = engineOrdersNextWork(call, source, destination, nextStream);
          const bool analyzer = analyzerOrdersNextWork(call, source, destination, nextStream);
          EXPECT_EQ(engine, analyzer)
              << call.name << " from " << source.name << " to " << destination.name
              << ", next work on a "
              << (nextStream == StreamKind::Blocking ? "blocking" : "non-blocking") << " stream";
          ++compared;
        }
  EXPECT_EQ(compared, 5 * 5 * 5 * 2 + 5 * 2);
}

// cudaMemcpyAsync holds the host only into pageable memory. The tracer takes memory it never saw
// allocated as pageable; the analyzer only memory it saw allocated so (malloc, a local array or
// vector), since a caller's buffer is most often pinned.
TEST(SynchronousApi, AsynchronousCopiesAgreeWhereTheAnalyzerSawTheMemory) {
  int compared = 0;
  for (const CallCase& call : kCalls) {
    if (!call.direction) continue; // cudaMemsetAsync never holds the host
    for (MemoryCase source : kMemories)
      for (MemoryCase destination : kMemories) {
        for (MemoryCase* side : {&source, &destination})
          if (side->traced == MemoryKind::Pageable) side->seen = analyzer::MemoryKind::Pageable;
        analyzer::CallEffect effect;
        effect.isCopy = true;
        effect.copyKind = *call.direction;
        EXPECT_EQ(engineOrdersWorkAfterAsyncCopy(call, source, destination),
                  analyzer::hostWaitsOnReturn(effect, source.seen, destination.seen))
            << call.name << "Async from " << source.name << " to " << destination.name;
        ++compared;
      }
  }
  EXPECT_EQ(compared, 5 * 5 * 5);
  analyzer::CallEffect toUnseenHost;
  toUnseenHost.isCopy = true;
  toUnseenHost.copyKind = api_model::CopyKind::DeviceToHost;
  EXPECT_TRUE(engineOrdersWorkAfterAsyncCopy(kCalls[2], kMemories[1], kMemories[0]));
  EXPECT_FALSE(analyzer::hostWaitsOnReturn(toUnseenHost, analyzer::MemoryKind::Device,
                                           analyzer::MemoryKind::Unknown));
}

// The comparison above would pass if both sides ignored the memory: pin the rule's corners.
TEST(SynchronousApi, TheRuleDependsOnTheMemory) {
  const MemoryCase pageable = kMemories[0], device = kMemories[1], pinned = kMemories[2];
  const CallCase toDevice = kCalls[1], set = kCalls[5];
  EXPECT_FALSE(engineOrdersNextWork(toDevice, pageable, device, StreamKind::NonBlocking));
  EXPECT_TRUE(engineOrdersNextWork(toDevice, pinned, device, StreamKind::NonBlocking));
  EXPECT_FALSE(engineOrdersNextWork(set, pageable, device, StreamKind::NonBlocking));
  EXPECT_TRUE(engineOrdersNextWork(set, pageable, pinned, StreamKind::NonBlocking));
}

} // namespace
} // namespace streamrace
