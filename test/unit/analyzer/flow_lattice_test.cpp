// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The flow analysis's values without an AST: byte ranges and whether two may share a byte, the
// join of two paths' states, and keys as findings show them.
#include "byte_range.h"
#include "flow_state.h"
#include "storage_keys.h"

#include <gtest/gtest.h>

namespace streamrace::analyzer {
namespace {

Polynomial atom(const char* name) {
  return Polynomial::atom(name);
}
Polynomial constant(std::int64_t value) {
  return Polynomial::constant(value);
}

ByteRange bytes(Polynomial offset, Polynomial length) {
  return ByteRange{std::move(offset), std::move(length), std::nullopt, {}};
}

TEST(ByteRange, PolynomialsAddUpTermsThatBecomeEqual) {
  const Polynomial row = (atom("iy_end") - constant(1)) * atom("nx") * constant(4);
  EXPECT_EQ(row, atom("iy_end") * atom("nx") * constant(4) - atom("nx") * constant(4));
  EXPECT_TRUE((atom("n") * constant(2) + constant(1)).plainlyPositive());
  EXPECT_FALSE((atom("n") - constant(1)).plainlyPositive());
  EXPECT_TRUE((atom("n") * atom("i")).linearIn("i"));
  EXPECT_FALSE((atom("i") * atom("i")).linearIn("i"));
  EXPECT_EQ((atom("i") + constant(2)).substituted("i", atom("i") - constant(1)),
            atom("i") + constant(1));
}

TEST(ByteRange, NeighbouringRowsOfAPitchedArrayAreApart) {
  // Rows iy_end - 1 and iy_end of an nx-wide float array: the first ends where the second starts.
  const Polynomial width = atom("nx") * constant(4);
  const ByteRange above = bytes((atom("iy_end") - constant(1)) * width, width);
  const ByteRange row = bytes(atom("iy_end") * width, width);
  EXPECT_FALSE(mayOverlap(above, row));
  EXPECT_FALSE(mayOverlap(row, above));
  EXPECT_TRUE(mayOverlap(row, row));
}

TEST(ByteRange, SlicesOfOneShapeAtSymbolicPlacesAreTheSlicesTheyAreComputedToBe) {
  const Polynomial chunk = atom("n") * constant(4);
  EXPECT_FALSE(mayOverlap(bytes(atom("i") * chunk, chunk), bytes(atom("j") * chunk, chunk)));
  // A window moved by half its length overlaps itself: 2n long, n apart.
  const Polynomial window = atom("n") * constant(2);
  EXPECT_TRUE(mayOverlap(bytes(atom("k"), window), bytes(atom("k") + atom("n"), window)));
  // Two lengths the analysis cannot compare say nothing.
  EXPECT_TRUE(mayOverlap(bytes(atom("i"), atom("a")), bytes(atom("j"), atom("b"))));
}

TEST(ByteRange, UnknownOffsetsMeetEverythingAndUnknownLengthsReachTheEnd) {
  const ByteRange first = bytes(constant(0), constant(16));
  EXPECT_TRUE(mayOverlap(ByteRange::unknown(), first));
  const ByteRange tail{constant(64), std::nullopt, std::nullopt, {}};
  EXPECT_FALSE(mayOverlap(first, tail));
  EXPECT_TRUE(mayOverlap(bytes(constant(128), constant(4)), tail));
}

ByteRange part(Polynomial offset, std::string function, std::string arguments, bool split) {
  return ByteRange{std::move(offset),
                   std::nullopt,
                   ChosenPart{std::move(function), std::move(arguments), split},
                   {}};
}

TEST(ByteRange, ChosenPartsMeetWhatHoldsTheirFirstByte) {
  const ByteRange interior = part(Polynomial(), "launch", "iy_start+1;iy_end-1;", false);
  // An upload of the first 120 bytes holds the part's first byte; a halo row further on may not.
  EXPECT_TRUE(mayOverlap(interior, bytes(constant(0), constant(120))));
  EXPECT_FALSE(mayOverlap(
      interior, bytes(atom("iy_end") * atom("nx") * constant(8), atom("nx") * constant(8))));
  EXPECT_TRUE(mayOverlap(interior, ByteRange::unknown()));
  // Split between calls, only what runs to the end of the storage from its start meets it.
  const ByteRange split = part(Polynomial(), "launch", "iy_start+1;iy_end-1;", true);
  EXPECT_FALSE(mayOverlap(split, bytes(constant(0), atom("nx") * constant(8))));
  EXPECT_TRUE(mayOverlap(split, ByteRange{Polynomial(), std::nullopt, std::nullopt, {}}));
}

TEST(ByteRange, ChosenPartsOfOneFunctionWithOtherArgumentsAreApart) {
  const ByteRange top = part(Polynomial(), "launch", "iy_start;iy_start+1;", true);
  const ByteRange interior = part(Polynomial(), "launch", "iy_start+1;iy_end-1;", true);
  EXPECT_FALSE(mayOverlap(top, interior));
  EXPECT_TRUE(mayOverlap(top, top));
  EXPECT_TRUE(mayOverlap(top, part(Polynomial(), "reduce", "iy_start;iy_start+1;", false)));
}

TEST(ByteRange, SpanningKeepsTheWholeStorageOrGivesUp) {
  const ByteRange whole{Polynomial(), std::nullopt, std::nullopt, {}};
  const ByteRange head = bytes(constant(0), constant(8));
  EXPECT_EQ(spanning(head, head), head);
  EXPECT_EQ(spanning(head, whole), whole);
  EXPECT_EQ(spanning(whole, head), whole);
  EXPECT_EQ(spanning(head, bytes(constant(8), constant(8))), ByteRange::unknown());
}

TEST(ByteRange, AShiftedRangeFollowsItsVariableUntilTheBound) {
  const ByteRange element = bytes(atom("i@A") * constant(4), constant(4));
  // After ++i, the element taken at the old i is at i - 1.
  const ByteRange moved = element.shifted("i@A", 1, [](const std::string& key) { return key; });
  EXPECT_EQ(moved.offset, (atom("i@A") - constant(1)) * constant(4));
  EXPECT_FALSE(mayOverlap(moved, element));
  EXPECT_EQ(element.forgetting("i@A"), ByteRange::unknown());
  EXPECT_EQ(bytes(constant(0), constant(4)).forgetting("i@A"), bytes(constant(0), constant(4)));
  // Moved past the bound, a range linear in the variable stays put for every iteration that far.
  ByteRange far = element;
  for (int step = 0; step < 64; ++step)
    far = far.shifted("i@A", 1, [](const std::string& key) { return key; });
  EXPECT_EQ(far, far.shifted("i@A", 1, [](const std::string& key) { return key; }));
}

AccessRecord record(const char* buffer, const char* stream, bool write) {
  AccessRecord access;
  access.buffer = buffer;
  access.stream = stream;
  access.streamElement = stream;
  access.write = write;
  return access;
}

TEST(FlowJoin, AccessesPendingOnEitherPathStayOrderedOnlyWhereBothOrderedThem) {
  const AccessRecord copy = record("buf@1", "s@2", true);
  const AccessRecord read = record("out@3", "t@4", false);
  FlowState ordered;
  ordered.pending.edit()[copy] = {"t@4", "u@5"};
  FlowState other;
  other.pending.edit()[copy] = {"u@5"};
  other.pending.edit()[read] = {};
  const FlowState joined = join(ordered, other);
  ASSERT_EQ(joined.pending->size(), 2u);
  EXPECT_EQ(joined.pending->at(copy), std::set<std::string>{"u@5"});
  EXPECT_TRUE(joined.pending->at(read).empty());
}

TEST(FlowJoin, AnUnreachablePathIsNeutral) {
  FlowState live;
  live.pending.edit()[record("buf@1", "s@2", true)] = {};
  FlowState never;
  never.unreachable = true;
  never.pending.edit()[record("other@9", "s@2", true)] = {};
  EXPECT_EQ(join(live, never), live);
  EXPECT_EQ(join(never, live), live);
}

TEST(FlowJoin, EventsRecordedOnOnePathAreRecordedOnSomePaths) {
  FlowState recorded;
  recorded.events.edit()["e@1"].status = RecordedStatus::Recorded;
  FlowState unrecorded;
  unrecorded.events.edit()["e@1"].status = RecordedStatus::Unrecorded;
  EXPECT_EQ(join(recorded, unrecorded).events->at("e@1").status, RecordedStatus::OnSomePaths);
  EXPECT_EQ(join(recorded, recorded).events->at("e@1").status, RecordedStatus::Recorded);
}

TEST(FlowJoin, WhatThePathsKnowDifferentlyIsNotKnown) {
  FlowState first;
  FlowState second;
  first.aliases.edit()[nullptr] = "a@1";
  second.aliases.edit()[nullptr] = "b@2";
  first.conditions.edit()[Condition{nullptr, 0}] = true;
  second.conditions.edit()[Condition{nullptr, 0}] = false;
  const FlowState joined = join(first, second);
  EXPECT_TRUE(joined.aliases->empty());
  EXPECT_TRUE(joined.conditions->empty());
  EXPECT_EQ(join(first, first).aliases->at(nullptr), "a@1");
}

TEST(StorageKeyGrammar, KeysAreShownAsTheSourceSpellsThem) {
  EXPECT_EQ(displayName("buf@1f2e.data[i@3a]"), "buf.data[i]");
  EXPECT_EQ(displayName("this.data"), "this->data");
  EXPECT_EQ(displayName("host@7[~i@3a]"), "host[*]"); // a correlated index names no element
  EXPECT_EQ(methodResultKey("t@5", "data"), "t@5.data()");
  EXPECT_EQ(streamDisplayName(kLegacyStream), "the legacy default stream");
  EXPECT_EQ(streamDisplayName(kPerThreadStream), "the per-thread default stream");
  EXPECT_EQ(streamDisplayName("streams@c0[1]"), "stream 'streams[1]'");
}

} // namespace
} // namespace streamrace::analyzer
