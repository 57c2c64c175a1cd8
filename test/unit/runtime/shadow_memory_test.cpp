#include "streamrace/runtime/engine.h"
#include "streamrace/runtime/shadow_memory.h"

#include <gtest/gtest.h>

#include <string>

namespace streamrace {
namespace {

AccessRecord record(ActorId actor, Epoch epoch, std::uint64_t op, AccessMode mode) {
  AccessRecord r;
  r.actor = actor;
  r.epoch = epoch;
  r.op = op;
  r.mode = mode;
  return r;
}

TEST(ShadowSpace, WholeRangeWritesCoalesceIntoOneInterval) {
  ShadowSpace space;
  VectorClock clock;
  clock.tick(0);
  std::vector<Conflict> conflicts;
  space.apply(0, 100, record(0, 1, 1, AccessMode::Write), clock, conflicts);
  space.apply(50, 100, record(0, 1, 2, AccessMode::Read), clock, conflicts);
  EXPECT_EQ(space.segment_count(), 3u);
  clock.tick(0);
  space.apply(0, 150, record(0, 2, 3, AccessMode::Write), clock, conflicts);
  EXPECT_EQ(space.segment_count(), 1u);
  EXPECT_EQ(space.read_count(), 0u);
  EXPECT_TRUE(conflicts.empty());
}

TEST(ShadowSpace, OneConflictPerPreviousAccessAcrossIntervals) {
  ShadowSpace space;
  VectorClock writer;
  writer.tick(0);
  std::vector<Conflict> conflicts;
  space.apply(0, 100, record(0, 1, 1, AccessMode::Write), writer, conflicts);
  space.apply(40, 10, record(0, 1, 1, AccessMode::Write), writer, conflicts); // splits
  VectorClock reader;
  reader.tick(1);
  space.apply(0, 100, record(1, 1, 2, AccessMode::Read), reader, conflicts);
  ASSERT_EQ(conflicts.size(), 1u);
  EXPECT_EQ(conflicts[0].overlap_begin, 0u);
  EXPECT_EQ(conflicts[0].overlap_size, 100u);
}

TEST(ShadowSpace, ResetForgetsHistory) {
  ShadowSpace space;
  VectorClock a;
  a.tick(0);
  std::vector<Conflict> conflicts;
  space.apply(0, 100, record(0, 1, 1, AccessMode::Write), a, conflicts);
  space.reset(0, 100, nullptr);
  VectorClock b;
  b.tick(1);
  space.apply(0, 100, record(1, 1, 2, AccessMode::Write), b, conflicts);
  EXPECT_TRUE(conflicts.empty());
}

TEST(ShadowSpace, EvictionDropsOnlyOldIntervals) {
  ShadowSpace space;
  VectorClock clock;
  clock.tick(0);
  std::vector<Conflict> conflicts;
  for (std::uint64_t i = 0; i < 10; ++i)
    space.apply(i * 1000, 10, record(0, 1, i + 1, AccessMode::Write), clock, conflicts);
  space.evict_older_than(6);
  EXPECT_EQ(space.segment_count(), 5u);
}

TEST(EngineHistory, CapDropsOldHistoryWithOneWarningAndStopsGrowing) {
  Options options;
  options.history_limit_mb = 1;
  std::vector<std::string> warnings;
  Engine engine(options, [&](std::string_view w) { warnings.emplace_back(w); });
  auto emit = [&](Payload p) { engine.process(Event{EventHeader{0, 1, 0, 0, 0}, std::move(p)}); };
  emit(StreamCreate{0x100, 0, StreamKind::NonBlocking, 0});
  // Fresh addresses every op: without a cap, history would grow with the trace.
  for (Address i = 0; i < 200000; ++i)
    emit(KernelLaunch{0x100, 0, {{i * 4096, 64, AccessMode::Write, Extent::Exact}}});
  EXPECT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("history_limit_mb=1"), std::string::npos);
  EXPECT_GT(engine.stats().history_evictions, 0u);
}

} // namespace
} // namespace streamrace
