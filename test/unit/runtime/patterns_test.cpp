// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Synchronization shapes beyond single rules: branches, chains, many readers, several waits.
#include "engine_fixture.h"

namespace streamrace::testing {
namespace {

constexpr StreamHandle S1 = 0x100, S2 = 0x200, S3 = 0x300, S4 = 0x400;
constexpr EventHandle E1 = 0xe1, E2 = 0xe2, E3 = 0xe3;
constexpr Address X = 0x10000, Y = 0x20000, Z = 0x40000;
constexpr std::uint64_t N = 256;

class Patterns : public EngineTest {
protected:
  void SetUp() override {
    for (StreamHandle s : {S1, S2, S3, S4})
      stream(s, StreamKind::NonBlocking);
    malloc(X, N);
    malloc(Y, N);
  }
};

TEST_F(Patterns, BranchOneEventTwoWaiters) {
  write(S1, X, N);
  record(E1, S1);
  wait(S2, E1);
  wait(S3, E1);
  read(S2, X, N);
  read(S3, X, N);
  EXPECT_TRUE(findings().empty()) << report();
}
TEST_F(Patterns, BranchesAreNotOrderedWithEachOther) {
  record(E1, S1);
  wait(S2, E1);
  wait(S3, E1);
  write(S2, X, N);
  read(S3, X, N);
  EXPECT_EQ(count(FindingKind::RaceWriteRead), 1u) << report();
}
TEST_F(Patterns, ChainThroughThreeStreams) {
  write(S1, X, N);
  record(E1, S1);
  wait(S2, E1);
  record(E2, S2);
  wait(S3, E2);
  record(E3, S3);
  wait(S4, E3);
  write(S4, X, N);
  EXPECT_TRUE(findings().empty()) << report();
}
TEST_F(Patterns, BrokenChainRaces) {
  write(S1, X, N);
  record(E1, S1);
  wait(S2, E1);
  record(E2, S2);
  record(E3, S3); // S3 never waited on E2
  wait(S4, E3);
  write(S4, X, N);
  EXPECT_EQ(count(FindingKind::RaceWriteWrite), 1u) << report();
}
TEST_F(Patterns, EveryReadSinceTheLastWriteIsCheckedAgainstANewWrite) {
  write(S1, X, N);
  sync(S1);
  read(S2, X, N);
  read(S3, X, N);
  read(S4, X, N);
  record(E2, S2);
  wait(S1, E2);
  record(E3, S3);
  wait(S1, E3); // S4's read is still unordered
  write(S1, X, N);
  ASSERT_EQ(count(FindingKind::RaceReadWrite), 1u) << report();
  EXPECT_EQ(findings()[0].first.stream, S4);
}
TEST_F(Patterns, NewWriteAfterAllReadersIsSilent) {
  write(S1, X, N);
  sync(S1);
  read(S2, X, N);
  read(S3, X, N);
  record(E2, S2);
  record(E3, S3);
  wait(S1, E2);
  wait(S1, E3);
  write(S1, X, N);
  EXPECT_TRUE(findings().empty()) << report();
}
TEST_F(Patterns, SeveralWaitsJoinAllProducers) {
  write(S1, X, N);
  write(S2, Y, N);
  record(E1, S1);
  record(E2, S2);
  wait(S3, E1);
  wait(S3, E2);
  emit(KernelLaunch{
      S3, 0, {{X, N, AccessMode::Read, Extent::Exact}, {Y, N, AccessMode::Read, Extent::Exact}}});
  EXPECT_TRUE(findings().empty()) << report();
}
TEST_F(Patterns, OverlappingViewsConflictOnlyWhereTheyOverlap) {
  write(S1, X, 128);
  read(S2, X + 64, 128);
  ASSERT_EQ(races(), 1u) << report();
  EXPECT_EQ(findings()[0].memory.overlap_begin, X + 64);
  EXPECT_EQ(findings()[0].memory.overlap_size, 64u);
  EXPECT_EQ(findings()[0].memory.allocation->base, X);
}
TEST_F(Patterns, DisjointRangesOfOneAllocationDoNotConflict) {
  write(S1, X, 128);
  write(S2, X + 128, 128);
  EXPECT_TRUE(findings().empty()) << report();
}
TEST_F(Patterns, RepeatedRaceIsOneFindingWithACount) {
  const CallSiteId w = site("cudaMemcpyAsync", "producer", 10);
  const CallSiteId r = site("ncclAllGather", "consumer", 20);
  for (int i = 0; i < 5; ++i) {
    write(S1, X, N, w);
    read(S2, X, N, r);
    sync_device();
  }
  ASSERT_EQ(findings().size(), 1u) << report();
  EXPECT_EQ(findings()[0].count, 5u);
}
TEST_F(Patterns, ApproximateKernelAccessesAreMarked) {
  write(S1, X, N);
  emit(KernelLaunch{S2, 0, {{X, N, AccessMode::Read, Extent::Approximate}}});
  ASSERT_EQ(races(), 1u);
  EXPECT_EQ(findings()[0].second.access.extent, Extent::Approximate);
  EXPECT_NE(report().find("[approximate extent]"), std::string::npos) << report();
}
TEST_F(Patterns, TwoDimensionalCopiesTouchOnlyTheirRows) {
  // Two 2D copies write alternating columns of one pitched buffer: no byte in common.
  emit(Copy{S1, X, Y, 8, 4, 32, 8, CopyKind::DeviceToDevice, false});
  emit(Copy{S2, X + 8, Y, 8, 4, 32, 8, CopyKind::DeviceToDevice, false});
  EXPECT_EQ(count(FindingKind::RaceWriteWrite), 0u) << report();
  emit(Copy{S3, X + 4, Y + 128, 8, 4, 32, 8, CopyKind::DeviceToDevice, false});
  EXPECT_EQ(count(FindingKind::RaceWriteWrite), 2u) << report();
}

TEST_F(Patterns, ThreeDimensionalCopiesTouchOnlyTheRowsOfTheirSlices) {
  // Two 3D copies write the first two of four rows of each slice, one row at byte 0, the other
  // at byte 8: no byte in common. A set of the last two rows of each slice touches neither.
  malloc(Z, 1024);
  const Copy left{S1, Z, Y, 8, 2, 32, 8, CopyKind::DeviceToDevice, false, 3, 128, 16};
  Copy right = left;
  right.stream = S2;
  right.dst = Z + 8;
  emit(left);
  emit(right);
  Set lower{S3, Z + 64, 32, 2, 32, false, 3, 128};
  emit(lower);
  EXPECT_EQ(count(FindingKind::RaceWriteWrite), 0u) << report();
  // The same rows one slice further overlap the first copy's second and third slices.
  Copy shifted = left;
  shifted.stream = S3;
  shifted.dst = Z + 128;
  emit(shifted);
  ASSERT_EQ(count(FindingKind::RaceWriteWrite), 1u) << report();
  EXPECT_EQ(findings()[0].memory.overlap_size, 8u) << report();
  EXPECT_EQ(findings()[0].count, 4u) << report(); // two rows in each of two slices
}

TEST_F(Patterns, ThreeDimensionalCopiesOfWholeSlicesAreOneRange) {
  malloc(Z, 1024);
  Copy whole{S1, Z, Y, 32, 4, 32, 32, CopyKind::DeviceToDevice, false, 3, 128, 128};
  emit(whole);
  Copy after_the_end = whole;
  after_the_end.stream = S2;
  after_the_end.dst = Z + 3 * 128;
  emit(after_the_end);
  EXPECT_EQ(count(FindingKind::RaceWriteWrite), 0u) << report();
  after_the_end.dst = Z + 3 * 128 - 1;
  emit(after_the_end);
  EXPECT_EQ(count(FindingKind::RaceWriteWrite), 1u) << report();
}

} // namespace
} // namespace streamrace::testing
