// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Rules 12-14 of docs/semantics.md: NCCL calls as stream ops, groups, and meetings across ranks.
#include "engine_fixture.h"

#include "streamrace/engine/collective_extents.h"

namespace streamrace::testing {
namespace {

constexpr StreamHandle A = 0xa00, B = 0xb00;
constexpr CommHandle WORLD = 0xc0, OTHER = 0xc1;
constexpr Address SEND = 0x10000, RECV = 0x20000, H = 0x90000;
constexpr std::uint64_t COUNT = 64; // floats

Collective all_gather(StreamHandle s, CommHandle comm, Address send, Address recv) {
  return Collective{s, comm, CollectiveKind::AllGather, send, recv, COUNT, 4, 0, 7, 0};
}
Collective all_reduce(StreamHandle s, CommHandle comm, Address send, Address recv,
                      std::uint64_t count = COUNT) {
  return Collective{s, comm, CollectiveKind::AllReduce, send, recv, count, 4, 0, 7, 0};
}

std::vector<Access> collective_accesses(const Collective& call, int nranks, int comm_rank) {
  std::vector<Access> accesses;
  streamrace::collective_accesses(call, nranks, comm_rank, accesses);
  return accesses;
}

// Rule 12: extents from (count, datatype, nranks, rank).
TEST(CollectiveExtents, FollowTheNcclDefinitions) {
  const auto ag = collective_accesses(all_gather(A, WORLD, SEND, RECV), 4, 1);
  ASSERT_EQ(ag.size(), 2u);
  EXPECT_EQ(ag[0].size, COUNT * 4);
  EXPECT_EQ(ag[1].size, COUNT * 4 * 4);
  Collective rs{A, WORLD, CollectiveKind::ReduceScatter, SEND, RECV, COUNT, 4, 0, 7, 0};
  const auto rsx = collective_accesses(rs, 4, 1);
  EXPECT_EQ(rsx[0].size, COUNT * 4 * 4);
  EXPECT_EQ(rsx[1].size, COUNT * 4);
  Collective bcast{A, WORLD, CollectiveKind::Broadcast, SEND, RECV, COUNT, 4, 2, 7, 0};
  EXPECT_EQ(collective_accesses(bcast, 4, 1).size(), 1u); // non-root only receives
  EXPECT_EQ(collective_accesses(bcast, 4, 2).size(), 2u);
  Collective reduce{A, WORLD, CollectiveKind::Reduce, SEND, RECV, COUNT, 4, 0, 7, 0};
  EXPECT_EQ(collective_accesses(reduce, 4, 3).size(), 1u); // non-root only sends
  Collective gather{A, WORLD, CollectiveKind::Gather, SEND, RECV, COUNT, 4, 0, 7, 0};
  EXPECT_EQ(collective_accesses(gather, 4, 0)[1].size, COUNT * 4 * 4);
  Collective scatter{A, WORLD, CollectiveKind::Scatter, SEND, RECV, COUNT, 4, 0, 7, 0};
  EXPECT_EQ(collective_accesses(scatter, 4, 0)[0].size, COUNT * 4 * 4);
  Collective a2a{A, WORLD, CollectiveKind::AllToAll, SEND, RECV, COUNT, 4, 0, 7, 0};
  EXPECT_EQ(collective_accesses(a2a, 4, 0)[1].size, COUNT * 4 * 4);
}

class Nccl : public EngineTest {
protected:
  void SetUp() override { join(0, 1); }
  // This thread's rank joins WORLD (as comm rank `comm_rank` of `nranks`) and makes streams.
  void join(std::int32_t comm_rank, std::int32_t nranks) {
    emit(CommInit{WORLD, 0xfeed, nranks, comm_rank, 0});
    stream(A);
    stream(B);
    malloc(SEND, 1 << 16);
    malloc(RECV, 1 << 16);
  }
};

TEST_F(Nccl, CollectiveReadsItsSendBufferAsAStreamOp) {
  write(B, SEND, COUNT * 4);
  emit(all_gather(A, WORLD, SEND, RECV));
  ASSERT_EQ(count(FindingKind::RaceWriteRead), 1u) << report();
  EXPECT_EQ(findings()[0].second.access.kind, OpKind::Collective);
}
TEST_F(Nccl, CollectiveAfterAnEventIsOrdered) {
  write(B, SEND, COUNT * 4);
  record(1, B);
  wait(A, 1);
  emit(all_gather(A, WORLD, SEND, RECV));
  EXPECT_TRUE(findings().empty()) << report();
}
TEST_F(Nccl, WritesBeyondTheSendExtentDoNotConflict) {
  write(B, SEND + COUNT * 4, 64);
  emit(all_gather(A, WORLD, SEND, RECV));
  EXPECT_TRUE(findings().empty()) << report();
}
TEST_F(Nccl, InPlaceAllGatherIsNotASelfConflict) {
  emit(all_gather(A, WORLD, RECV, RECV)); // rank 0 of 1: send == recv + rank * count
  EXPECT_TRUE(findings().empty()) << report();
}

// Rule 13: a group on one communicator across several streams is one op on all of them.
TEST_F(Nccl, GroupJoinsEarlierWorkOfAllItsStreams) {
  write(A, SEND, COUNT * 4);
  emit(GroupStart{});
  emit(all_reduce(A, WORLD, RECV, RECV + 4096));
  emit(all_gather(B, WORLD, SEND, RECV + 8192));
  emit(GroupEnd{});
  EXPECT_TRUE(findings().empty()) << report();
}
TEST_F(Nccl, GroupOrdersLaterWorkAfterAllItsCalls) {
  emit(GroupStart{});
  emit(all_gather(B, WORLD, SEND, RECV));
  emit(all_reduce(A, WORLD, RECV + 8192, RECV + 8192));
  emit(GroupEnd{});
  write(A, SEND, COUNT * 4); // after B's read of SEND, through the group
  EXPECT_TRUE(findings().empty()) << report();
}
TEST_F(Nccl, CallsOutsideAGroupAreNotJoined) {
  write(A, SEND, COUNT * 4);
  emit(all_reduce(A, WORLD, RECV, RECV + 4096));
  emit(all_gather(B, WORLD, SEND, RECV + 8192));
  EXPECT_EQ(count(FindingKind::RaceWriteRead), 1u) << report();
}
TEST_F(Nccl, GroupCallsOnDifferentCommunicatorsAreNotJoined) {
  emit(CommInit{OTHER, 0xbeef, 1, 0, 0});
  write(A, SEND, COUNT * 4);
  emit(GroupStart{});
  emit(all_reduce(A, WORLD, RECV, RECV + 4096));
  emit(all_gather(B, OTHER, SEND, RECV + 8192));
  emit(GroupEnd{});
  EXPECT_EQ(count(FindingKind::RaceWriteRead), 1u) << report();
}
TEST_F(Nccl, NestedGroupsPostAtTheOutermostEnd) {
  write(A, SEND, COUNT * 4);
  emit(GroupStart{});
  emit(GroupStart{});
  emit(all_reduce(A, WORLD, RECV, RECV + 4096));
  emit(GroupEnd{});
  emit(all_gather(B, WORLD, SEND, RECV + 8192));
  emit(GroupEnd{});
  EXPECT_TRUE(findings().empty()) << report();
}

// Rule 14: two ranks that share one process (and so pinned host memory).
class TwoRanks : public EngineTest {
protected:
  void SetUp() override {
    for (RankId r : {0u, 1u}) {
      on(r);
      emit(CommInit{WORLD, 0xfeed, 2, static_cast<std::int32_t>(r), static_cast<DeviceId>(r)});
      emit(SetDevice{static_cast<DeviceId>(r)});
      stream(A, StreamKind::Blocking, static_cast<DeviceId>(r));
      malloc(SEND + r * 0x100000, 1 << 16);
      malloc(RECV + r * 0x100000, 1 << 16);
    }
    on(0);
    malloc(H, 4096, MemoryKind::PinnedHost);
  }
  void on(RankId r) {
    rank = r;
    thread = 10 + r;
  }
  void reduce_on(RankId r, std::uint64_t count = COUNT) {
    on(r);
    emit(all_reduce(A, WORLD, SEND + r * 0x100000, RECV + r * 0x100000, count));
  }
};

TEST_F(TwoRanks, CollectiveOrdersEveryRanksEarlierWork) {
  on(0);
  copy(A, H, SEND, 4096, CopyKind::DeviceToHost);
  reduce_on(0);
  reduce_on(1);
  on(1);
  read(A, H, 4096);
  finish();
  EXPECT_TRUE(findings().empty()) << report();
}
TEST_F(TwoRanks, WithoutTheCollectiveTheRanksRace) {
  malloc(0x70000, 4096, MemoryKind::PinnedHost);
  on(0);
  copy(A, 0x70000, SEND, 4096, CopyKind::DeviceToHost);
  on(1);
  read(A, 0x70000, 4096);
  finish();
  EXPECT_EQ(count(FindingKind::RaceWriteRead), 1u) << report();
}
TEST_F(TwoRanks, LateArrivalOfAnotherRankStillOrders) {
  // Rank 1 posts its part of the collective after rank 0 already enqueued later work.
  on(1);
  copy(A, H, SEND + 0x100000, 4096, CopyKind::HostToDevice);
  write(A, H, 4096);
  reduce_on(0);
  reduce_on(1); // rank 1's write of H happened before its collective...
  finish();
  on(0);
  write(A, H, 4096); // ...so rank 0's later write is ordered after it
  finish();
  EXPECT_TRUE(findings().empty()) << report();
}
TEST_F(TwoRanks, PendingFindingIsResolvedByTheMeeting) {
  on(1);
  write(A, H, 4096);
  reduce_on(1); // rank 1 arrives first
  on(0);
  reduce_on(0);
  write(A, H, 4096);
  finish();
  EXPECT_TRUE(findings().empty()) << report();
}
TEST_F(TwoRanks, PendingFindingIsReportedWhenTheMeetingDoesNotOrder) {
  reduce_on(0);
  on(0);
  write(A, H, 4096); // after the meeting on rank 0
  on(1);
  write(A, H, 4096); // before the meeting on rank 1: a real race
  reduce_on(1);
  finish();
  EXPECT_EQ(count(FindingKind::RaceWriteWrite), 1u) << report();
}
TEST_F(TwoRanks, DisagreeingCollectivesAreAMismatch) {
  reduce_on(0, COUNT);
  reduce_on(1, COUNT * 2);
  finish();
  ASSERT_EQ(count(FindingKind::CollectiveMismatch), 1u) << report();
  EXPECT_EQ(findings()[0].collective->first.count, COUNT);
  EXPECT_EQ(findings()[0].collective->second.count, COUNT * 2);
}
TEST_F(TwoRanks, DifferentCallCountsAreAMismatch) {
  reduce_on(0);
  reduce_on(1);
  reduce_on(0);
  finish();
  ASSERT_EQ(count(FindingKind::CollectiveCountMismatch), 1u) << report();
  const auto& calls = findings()[0].collective->calls_per_rank;
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].second, 2u);
  EXPECT_EQ(calls[1].second, 1u);
}
TEST_F(TwoRanks, MatchingCallsAreSilent) {
  reduce_on(0);
  reduce_on(1);
  finish();
  EXPECT_TRUE(findings().empty()) << report();
}
// Rule 11 with several devices in one process: a graph is instantiated while another device is
// current (nccl-tests' -G mode), and still runs as the rank of the stream it is launched on.
TEST_F(TwoRanks, GraphInstantiatedUnderAnotherDeviceRunsAsItsStreamsRank) {
  for (RankId r : {0u, 1u}) {
    on(r);
    emit(CaptureBegin{A});
    reduce_on(r);
    emit(CaptureEnd{A, 0x9000 + r});
  }
  on(0); // both instantiated as rank 0
  emit(GraphInstantiate{0x9000, 0x9100});
  emit(GraphInstantiate{0x9001, 0x9101});
  for (RankId r : {0u, 1u}) {
    on(r);
    emit(GraphLaunch{0x9100 + r, A});
  }
  finish();
  EXPECT_TRUE(findings().empty()) << report();
}
TEST_F(TwoRanks, RaceInAGraphInstantiatedUnderAnotherDeviceIsFound) {
  on(1);
  emit(CaptureBegin{A});
  write(A, H, 4096);
  emit(CaptureEnd{A, 0x9001});
  on(0);
  emit(GraphInstantiate{0x9001, 0x9101});
  on(1);
  emit(GraphLaunch{0x9101, A});
  on(0);
  write(A, H, 4096);
  finish();
  EXPECT_EQ(count(FindingKind::RaceWriteWrite), 1u) << report();
}
TEST_F(TwoRanks, SendOrdersTheSendersWorkBeforeTheReceiversLaterWork) {
  on(0);
  write(A, H, 4096);
  emit(PointToPoint{A, WORLD, true, SEND, COUNT, 4, 1, 7});
  on(1);
  emit(PointToPoint{A, WORLD, false, RECV + 0x100000, COUNT, 4, 0, 7});
  read(A, H, 4096);
  finish();
  EXPECT_TRUE(findings().empty()) << report();
}
TEST_F(TwoRanks, ReceiveGivesTheSenderNothing) {
  on(1);
  write(A, H, 4096);
  emit(PointToPoint{A, WORLD, false, RECV + 0x100000, COUNT, 4, 0, 7});
  on(0);
  emit(PointToPoint{A, WORLD, true, SEND, COUNT, 4, 1, 7});
  read(A, H, 4096); // one-way edge: rank 0 learns nothing about rank 1
  finish();
  EXPECT_EQ(count(FindingKind::RaceWriteRead), 1u) << report();
}

class LocalView : public EngineTest {
protected:
  static Options local() {
    Options options;
    options.cross_rank_ordering = false;
    return options;
  }
  LocalView() : EngineTest(local()) {}
};
TEST_F(LocalView, OneRankAloneNeverWaitsForItsPeers) {
  emit(CommInit{WORLD, 0xfeed, 4, 0, 0});
  stream(A);
  malloc(SEND, 4096);
  malloc(RECV, 4096 * 4);
  emit(all_gather(A, WORLD, SEND, RECV));
  write(A, SEND, 4096);
  finish();
  EXPECT_TRUE(findings().empty()) << report();
}

} // namespace
} // namespace streamrace::testing
