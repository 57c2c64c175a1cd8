// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/engine/engine.h"
#include "streamrace/engine/shadow_memory.h"
#include "streamrace/report/checking_pauses_text.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <tuple>

namespace streamrace {
namespace {

AccessRecord record(ActorId actor, Epoch epoch, std::uint64_t op, AccessMode mode,
                    Address begin = 0, std::uint64_t size = 0) {
  AccessRecord r;
  r.actor = actor;
  r.epoch = epoch;
  r.op = op;
  r.mode = mode;
  r.begin = begin;
  r.size = size;
  return r;
}

TEST(ShadowSpace, WholeRangeWritesCoalesceIntoOneInterval) {
  ShadowSpace space;
  VectorClock clock;
  clock.tick(0);
  std::vector<Conflict> conflicts;
  space.apply(record(0, 1, 1, AccessMode::Write, 0, 100), clock, conflicts);
  space.apply(record(0, 1, 2, AccessMode::Read, 50, 100), clock, conflicts);
  EXPECT_EQ(space.segment_count(), 2u); // [0, 100) keeps the read of its upper half whole
  clock.tick(0);
  space.apply(record(0, 2, 3, AccessMode::Write, 0, 150), clock, conflicts);
  EXPECT_EQ(space.segment_count(), 1u);
  EXPECT_EQ(space.read_count(), 0u);
  EXPECT_TRUE(conflicts.empty());
}

// One tensor of 1000 bytes, written once, then read in parts.
class PartialReads : public ::testing::Test {
protected:
  void SetUp() override {
    writer.tick(0);
    space.apply(record(0, 1, 1, AccessMode::Write, 0, 1000), writer, conflicts);
  }
  // A write over the whole tensor, ordered after the first write only; its conflicts by op.
  std::vector<Conflict> rewrite(ActorId actor, std::uint64_t op) {
    VectorClock late_writer = writer;
    conflicts.clear();
    space.apply(record(actor, late_writer.tick(actor), op, AccessMode::Write, 0, 1000), late_writer,
                conflicts);
    std::sort(conflicts.begin(), conflicts.end(),
              [](const Conflict& a, const Conflict& b) { return a.previous.op < b.previous.op; });
    return conflicts;
  }
  ShadowSpace space;
  std::vector<Conflict> conflicts;
  VectorClock writer;
};

// A tensor view read leaves its tensor in one interval; a write over the tensor then races
// with each view read on the bytes that read touched, and only those.
TEST_F(PartialReads, KeepTheIntervalWholeAndConflictOnTheirOwnBytes) {
  VectorClock reader_b = writer;
  VectorClock reader_c = writer;
  space.apply(record(1, reader_b.tick(1), 2, AccessMode::Read, 200, 100), reader_b, conflicts);
  space.apply(record(2, reader_c.tick(2), 3, AccessMode::Read, 600, 100), reader_c, conflicts);
  EXPECT_TRUE(conflicts.empty());
  EXPECT_EQ(space.segment_count(), 1u);
  EXPECT_EQ(space.read_count(), 2u);

  const std::vector<Conflict> found = rewrite(3, 4);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].previous.op, 2u);
  EXPECT_EQ(found[0].overlap_begin, 200u);
  EXPECT_EQ(found[0].overlap_size, 100u);
  EXPECT_EQ(found[1].previous.op, 3u);
  EXPECT_EQ(found[1].overlap_begin, 600u);
  EXPECT_EQ(found[1].overlap_size, 100u);
}

// An actor keeps one read per interval: its second read of another part cuts the interval,
// so that neither read's bytes are forgotten.
TEST_F(PartialReads, ASecondPartialReadBySameActorCutsTheInterval) {
  VectorClock reader = writer;
  space.apply(record(1, reader.tick(1), 2, AccessMode::Read, 200, 100), reader, conflicts);
  space.apply(record(1, reader.tick(1), 3, AccessMode::Read, 400, 100), reader, conflicts);
  EXPECT_EQ(space.segment_count(), 3u);
  EXPECT_EQ(space.read_count(), 2u); // the cut-off tail keeps no read that missed its bytes

  const std::vector<Conflict> found = rewrite(2, 4);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].overlap_begin, 200u);
  EXPECT_EQ(found[0].overlap_size, 100u);
  EXPECT_EQ(found[1].overlap_begin, 400u);
  EXPECT_EQ(found[1].overlap_size, 100u);
  EXPECT_EQ(space.segment_count(), 1u);
}

// One tensor of 1000 bytes, written once by actor 0; then views of it are written.
class ViewWrites : public ::testing::Test {
protected:
  void SetUp() override {
    first.tick(0);
    space.apply(record(0, 1, 1, AccessMode::Write, 0, 1000), first, conflicts);
  }
  // An access by `actor` under `clock` (ticked for it); its conflicts as (op, begin, size).
  std::vector<std::tuple<std::uint64_t, Address, std::uint64_t>>
  access(ActorId actor, VectorClock& clock, std::uint64_t op, AccessMode mode, Address begin,
         std::uint64_t size) {
    conflicts.clear();
    space.apply(record(actor, clock.tick(actor), op, mode, begin, size), clock, conflicts);
    std::vector<std::tuple<std::uint64_t, Address, std::uint64_t>> found;
    for (const Conflict& c : conflicts)
      found.emplace_back(c.previous.op, c.overlap_begin, c.overlap_size);
    std::sort(found.begin(), found.end());
    return found;
  }
  using Found = std::vector<std::tuple<std::uint64_t, Address, std::uint64_t>>;
  ShadowSpace space;
  std::vector<Conflict> conflicts;
  VectorClock first;
};

// A view write leaves its tensor one interval. Later accesses find the view's write on the
// view's bytes and the tensor's first write on the others; ordered after both, they are
// silent, and a whole write leaves one plain interval.
TEST_F(ViewWrites, StayInTheirTensorsIntervalAndConflictOnTheirOwnBytes) {
  VectorClock view = first;
  EXPECT_TRUE(access(1, view, 2, AccessMode::Write, 200, 100).empty());
  EXPECT_EQ(space.segment_count(), 1u);

  VectorClock reader; // ordered after neither write
  EXPECT_EQ(access(2, reader, 3, AccessMode::Read, 0, 250), (Found{{1, 0, 200}, {2, 200, 50}}));

  VectorClock after_first = first; // ordered after the first write, not after the view
  EXPECT_EQ(access(3, after_first, 4, AccessMode::Read, 150, 500), (Found{{2, 200, 100}}));

  VectorClock after_both = first;
  after_both.join(view);
  after_both.join(reader);
  after_both.join(after_first);
  EXPECT_TRUE(access(4, after_both, 5, AccessMode::Write, 0, 1000).empty());
  EXPECT_EQ(space.segment_count(), 1u);
  EXPECT_EQ(space.read_count(), 0u);
  VectorClock after_whole = after_both;
  EXPECT_TRUE(access(5, after_whole, 6, AccessMode::Write, 0, 1000).empty());
}

// A read from before a view write stays the last access of the bytes outside the view, and
// only of those.
TEST_F(ViewWrites, HideEarlierReadsOnlyOnTheirOwnBytes) {
  VectorClock reader = first;
  EXPECT_TRUE(access(1, reader, 2, AccessMode::Read, 0, 1000).empty());
  VectorClock view = reader; // ordered after the read
  EXPECT_TRUE(access(2, view, 3, AccessMode::Write, 0, 300).empty());
  EXPECT_EQ(space.segment_count(), 1u);

  VectorClock late_writer = first; // ordered after the first write only
  EXPECT_EQ(access(3, late_writer, 4, AccessMode::Write, 0, 1000),
            (Found{{2, 300, 700}, {3, 0, 300}}));

  VectorClock ordered = view;
  ordered.join(late_writer);
  EXPECT_TRUE(access(4, ordered, 5, AccessMode::Write, 0, 1000).empty());
}

// An interval holds one overlay: a second view write that does not cover the first cuts the
// tensor, and a whole write conflicts with both views on their own bytes.
TEST_F(ViewWrites, ASecondViewWriteElsewhereCutsTheInterval) {
  VectorClock view = first;
  EXPECT_TRUE(access(1, view, 2, AccessMode::Write, 200, 100).empty());
  EXPECT_TRUE(access(1, view, 3, AccessMode::Write, 600, 100).empty());
  EXPECT_EQ(space.segment_count(), 3u);

  VectorClock late_writer = first;
  EXPECT_EQ(access(2, late_writer, 4, AccessMode::Write, 0, 1000),
            (Found{{2, 200, 100}, {3, 600, 100}}));
  EXPECT_EQ(space.segment_count(), 1u);
}

TEST(ShadowSpace, OneConflictPerPreviousAccessAcrossIntervals) {
  ShadowSpace space;
  VectorClock writer;
  writer.tick(0);
  std::vector<Conflict> conflicts;
  space.apply(record(0, 1, 1, AccessMode::Write, 0, 100), writer, conflicts);
  space.apply(record(0, 1, 1, AccessMode::Write, 40, 10), writer, conflicts); // splits
  VectorClock reader;
  reader.tick(1);
  space.apply(record(1, 1, 2, AccessMode::Read, 0, 100), reader, conflicts);
  ASSERT_EQ(conflicts.size(), 1u);
  EXPECT_EQ(conflicts[0].overlap_begin, 0u);
  EXPECT_EQ(conflicts[0].overlap_size, 100u);
}

TEST(ShadowSpace, ResetForgetsHistory) {
  ShadowSpace space;
  VectorClock a;
  a.tick(0);
  std::vector<Conflict> conflicts;
  space.apply(record(0, 1, 1, AccessMode::Write, 0, 100), a, conflicts);
  space.reset(0, 100, nullptr);
  VectorClock b;
  b.tick(1);
  space.apply(record(1, 1, 2, AccessMode::Write, 0, 100), b, conflicts);
  EXPECT_TRUE(conflicts.empty());
}

TEST(ShadowSpace, EvictionDropsOnlyOldIntervals) {
  ShadowSpace space;
  VectorClock clock;
  clock.tick(0);
  std::vector<Conflict> conflicts;
  for (std::uint64_t i = 0; i < 10; ++i)
    space.apply(record(0, 1, i + 1, AccessMode::Write, i * 1000, 10), clock, conflicts);
  space.evict_older_than(6);
  EXPECT_EQ(space.segment_count(), 5u);
}

// A process with far more live tensors than the lookup table has slots walks the tree for most
// accesses until the table grows; one with few keeps the small table.
TEST(ShadowSpace, LookupTableGrowsWithManyLiveTensorsOnly) {
  constexpr std::uint64_t kTensorBytes = 4096;
  auto touch_all = [](ShadowSpace& space, Address tensors, std::uint64_t& op, int rounds) {
    VectorClock clock;
    std::vector<Conflict> conflicts;
    std::size_t reported = 0;
    for (int round = 0; round < rounds; ++round)
      for (Address t = 0; t < tensors; ++t) {
        // One actor, in order: nothing ever conflicts, however the table finds the intervals.
        const AccessMode mode = round % 2 ? AccessMode::Read : AccessMode::Write;
        space.apply(record(0, clock.tick(0), ++op, mode, t * kTensorBytes, kTensorBytes), clock,
                    conflicts);
        reported += conflicts.size();
        conflicts.clear();
      }
    return reported;
  };
  std::uint64_t op = 0;
  ShadowSpace few;
  const std::size_t initial = few.lookup_slots();
  EXPECT_EQ(touch_all(few, 256, op, 400), 0u);
  EXPECT_EQ(few.lookup_slots(), initial);

  ShadowSpace many;
  EXPECT_EQ(touch_all(many, 20000, op, 8), 0u);
  EXPECT_GE(many.lookup_slots(), 20000u);
  EXPECT_EQ(many.segment_count(), 20000u);

  // The grown table still finds what another actor's unordered write conflicts with: the last
  // round's write of the tensor and its read since.
  VectorClock other;
  std::vector<Conflict> conflicts;
  many.apply(record(1, other.tick(1), ++op, AccessMode::Write, 7 * kTensorBytes, kTensorBytes),
             other, conflicts);
  ASSERT_EQ(conflicts.size(), 2u);
  for (const Conflict& conflict : conflicts) {
    EXPECT_EQ(conflict.overlap_begin, 7 * kTensorBytes);
    EXPECT_EQ(conflict.overlap_size, kTensorBytes);
  }
}

// The interval map against a byte-by-byte model of the same rules: random overlapping
// accesses, allocations and clock moves must report the same conflicts with the same overlaps.
void agree_with_byte_model(unsigned seed) {
  struct Byte {
    std::optional<AccessRecord> write;
    std::vector<AccessRecord> reads; // one per actor
  };
  constexpr Address kBytes = 96;
  constexpr ActorId kActors = 4;
  std::mt19937 rng(seed);
  ShadowSpace space;
  std::vector<Byte> model(kBytes);
  std::vector<VectorClock> clocks(kActors);
  std::uint64_t op = 0;
  using Found = std::tuple<std::uint64_t, ActorId, Address, std::uint64_t>;
  std::size_t reported = 0;
  for (int step = 0; step < 20000; ++step) {
    const ActorId actor = rng() % kActors;
    const Address begin = rng() % kBytes;
    const std::uint64_t size = 1 + rng() % std::min<Address>(40, kBytes - begin);
    const unsigned dice = rng() % 20;
    if (dice == 0) {
      clocks[actor].join(clocks[rng() % kActors]); // a synchronization
      continue;
    }
    if (dice == 1) { // an allocation over the range, with or without a birth
      AccessRecord birth = record(actor, clocks[actor].tick(actor), ++op, AccessMode::Write);
      birth.kind = OpKind::Allocation;
      const bool born = rng() % 2 == 0;
      space.reset(begin, size, born ? &birth : nullptr);
      for (Address b = begin; b < begin + size; ++b)
        model[b] = born ? Byte{birth, {}} : Byte{};
      continue;
    }
    const AccessMode mode = dice < 12 ? AccessMode::Read : AccessMode::Write;
    AccessRecord access = record(actor, clocks[actor].tick(actor), ++op, mode);
    access.kind = dice == 19 ? OpKind::Free : OpKind::Kernel;
    access.begin = begin;
    access.size = size;
    std::vector<Conflict> conflicts;
    space.apply(access, clocks[actor], conflicts);

    std::map<std::pair<std::uint64_t, ActorId>, std::pair<Address, Address>> expected;
    auto conflict = [&](const AccessRecord& previous, Address b) {
      auto [it, inserted] = expected.try_emplace({previous.op, previous.actor}, b, b + 1);
      it->second.first = std::min(it->second.first, b);
      it->second.second = std::max(it->second.second, b + 1);
    };
    for (Address b = begin; b < begin + size; ++b) {
      Byte& byte = model[b];
      if (byte.write && (byte.write->kind == OpKind::Free ||
                         !clocks[actor].covers(byte.write->actor, byte.write->epoch)))
        conflict(*byte.write, b);
      if (access.writes()) {
        for (const AccessRecord& read : byte.reads)
          if (!clocks[actor].covers(read.actor, read.epoch)) conflict(read, b);
        byte.write = access;
        byte.reads.clear();
      } else {
        auto same = std::find_if(byte.reads.begin(), byte.reads.end(),
                                 [&](const AccessRecord& r) { return r.actor == actor; });
        if (same != byte.reads.end())
          *same = access;
        else
          byte.reads.push_back(access);
      }
    }
    std::vector<Found> want;
    for (const auto& [who, range] : expected)
      want.emplace_back(who.first, who.second, range.first, range.second - range.first);
    std::vector<Found> got;
    for (const Conflict& c : conflicts)
      got.emplace_back(c.previous.op, c.previous.actor, c.overlap_begin, c.overlap_size);
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    ASSERT_EQ(got, want) << "step " << step;
    reported += got.size();
  }
  EXPECT_GT(reported, 10000u); // the clocks leave plenty unordered
  EXPECT_LE(space.segment_count(), kBytes);
}

// Several seeds: partial writes, overlays, cuts and merges meet in many orders.
TEST(ShadowSpace, AgreesWithAByteByByteModel) {
  for (unsigned seed : {7u, 11u, 23u, 42u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    agree_with_byte_model(seed);
    if (HasFatalFailure()) return;
  }
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

TEST(EngineChecks, PausedAccessesAreNeitherCheckedNorKept) {
  Engine engine;
  std::uint64_t time = 0;
  auto emit = [&](Payload p, std::uint64_t at = 0) {
    time = at != 0 ? at : time + 1;
    engine.process(Event{EventHeader{0, 1, 0, 0, time}, std::move(p)});
  };
  auto write = [&](StreamHandle stream) {
    emit(KernelLaunch{stream, 0, {{0x1000, 64, AccessMode::Write, Extent::Exact}}});
  };
  for (StreamHandle stream : {0x100, 0x200, 0x300, 0x400})
    emit(StreamCreate{stream, 0, StreamKind::NonBlocking, 0});
  emit(EventCreate{0x50});
  write(0x100);
  emit(AccessChecks{true}, 1'000'000);
  write(0x200); // races with 0x100's write, unchecked
  emit(EventRecord{0x50, 0x100});
  emit(StreamWaitEvent{0x300, 0x50});
  emit(AccessChecks{false}, 3'500'000);
  write(0x300); // ordered after 0x100's by the wait made in the window; 0x200's is forgotten
  EXPECT_EQ(engine.findings().size(), 0u);
  write(0x400); // checking resumed: races with 0x300's
  EXPECT_EQ(engine.findings().size(), 1u);

  ASSERT_EQ(engine.checking_pauses().size(), 1u);
  const CheckingPause& pause = engine.checking_pauses()[0];
  EXPECT_EQ(pause.unchecked_accesses, 1u);
  EXPECT_TRUE(pause.resumed);
  EXPECT_EQ(checking_pauses_text(engine),
            "streamrace: warning: rank 0: access checking paused 1 time for 2.5 ms in all, the "
            "tracer behind the program (block_on_full=1 makes the program wait for it instead): 1 "
            "accesses went unchecked, and races they took part in may be missed\n");
}

TEST(EngineChecks, TheResumeSaysHowLongCallsWaitedForTheFrontEnd) {
  Engine engine;
  auto emit = [&](Payload p, std::uint64_t at) {
    engine.process(Event{EventHeader{1, 1, 0, 0, at}, std::move(p)});
  };
  for (int window = 0; window < 2; ++window) {
    emit(AccessChecks{true}, 1'000'000 + window * 10'000'000);
    emit(AccessChecks{false, 1'500'000}, 2'000'000 + window * 10'000'000);
  }
  ASSERT_EQ(engine.checking_pauses().size(), 2u);
  EXPECT_EQ(engine.checking_pauses()[1].caller_wait_ns, 1'500'000u);
  EXPECT_EQ(checking_pauses_text(engine),
            "streamrace: warning: rank 1: access checking paused 2 times for 2.0 ms in all, the "
            "tracer behind the program (block_on_full=1 makes the program wait for it instead): 0 "
            "accesses went unchecked, and races they took part in may be missed; the paused calls "
            "filled the overflow (overflow_capacity), and the program's calls waited 3.0 ms in "
            "all for the tracer\n");
}

TEST(EngineChecks, AWindowTheTraceNeverClosedLastsToItsLastUncheckedAccess) {
  Engine engine;
  auto emit = [&](Payload p, std::uint64_t at) {
    engine.process(Event{EventHeader{2, 1, 0, 0, at}, std::move(p)});
  };
  emit(StreamCreate{0x100, 0, StreamKind::NonBlocking, 0}, 1);
  emit(AccessChecks{true}, 1'000'000);
  emit(KernelLaunch{0x100, 0, {{0x1000, 64, AccessMode::Write, Extent::Exact}}}, 2'000'000);
  engine.finish();
  EXPECT_NE(checking_pauses_text(engine).find(
                "rank 2: access checking paused 1 time for 1.0 ms in all (the last until "
                "the trace ends)"),
            std::string::npos);
}

// A process that drives two devices has a rank per device; the warning names the device, as
// findings do.
TEST(EngineChecks, APauseOfOneOfAProcesssDevicesNamesTheDevice) {
  Engine engine;
  auto emit = [&](RankId rank, Payload p, std::uint64_t at) {
    engine.process(Event{EventHeader{rank, 1, 0, 0, at}, std::move(p)});
  };
  emit(0, RankDevice{0, 0}, 1);
  emit(1, RankDevice{0, 1}, 2);
  emit(1, AccessChecks{true}, 1'000'000);
  emit(1, AccessChecks{false}, 2'000'000);
  EXPECT_EQ(checking_pauses_text(engine).rfind("streamrace: warning: device 1: access checking "
                                               "paused 1 time for 1.0 ms in all",
                                               0),
            0u)
      << checking_pauses_text(engine);
}

} // namespace
} // namespace streamrace
