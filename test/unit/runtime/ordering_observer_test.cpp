// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The ordering's observer: every rule that brings one actor's past into another reports a join
// of its kind, from the right actor and step, through the right handle; and the happens-before
// graph built from those reports reaches exactly what the engine's clocks hold.
#include "engine_fixture.h"
#include "hpz_events.h"

#include "streamrace/report/happens_before_graph.h"

#include <algorithm>

namespace streamrace::testing {
namespace {

constexpr StreamHandle S1 = 0xa00, S2 = 0xb00;
constexpr EventHandle E = 0xe0;
constexpr CommHandle COMM = 0xc0;
constexpr Address X = 0x10000, Y = 0x20000;

struct Recorder : OrderingObserver {
  std::vector<std::pair<ActorId, Epoch>> steps;
  std::vector<OrderingJoin> joins;
  void step(ActorId actor, Epoch epoch) override { steps.emplace_back(actor, epoch); }
  void join(const OrderingJoin& join) override { joins.push_back(join); }
};

class ObserverTest : public EngineTest {
protected:
  ObserverTest() { engine_.ordering().set_observer(&recorder); }

  ActorId stream_actor(StreamHandle handle, RankId on_rank = 0) {
    for (ActorId a = 0; a < engine_.ordering().actor_count(); ++a) {
      const ActorInfo& info = engine_.ordering().actor(a);
      if (info.is_stream && info.rank == on_rank && info.handle == handle) return a;
    }
    ADD_FAILURE() << "no stream " << handle;
    return 0;
  }
  ActorId thread_actor(RankId on_rank = 0) {
    for (ActorId a = 0; a < engine_.ordering().actor_count(); ++a) {
      const ActorInfo& info = engine_.ordering().actor(a);
      if (!info.is_stream && info.rank == on_rank) return a;
    }
    ADD_FAILURE() << "no thread";
    return 0;
  }
  std::vector<OrderingJoin> joins(JoinKind kind) const {
    std::vector<OrderingJoin> found;
    for (const OrderingJoin& join : recorder.joins)
      if (join.kind == kind) found.push_back(join);
    return found;
  }

  Recorder recorder;
};

TEST_F(ObserverTest, StepsAreOpsInStreamOrder) {
  stream(S1);
  write(S1, X, 4);
  read(S1, X, 4);
  const ActorId s1 = stream_actor(S1);
  const std::vector<std::pair<ActorId, Epoch>> expected{{s1, 1}, {s1, 2}};
  EXPECT_EQ(recorder.steps, expected);
}

TEST_F(ObserverTest, EnqueueJoinsTheThreadIntoTheStream) {
  stream(S1);
  malloc(X, 64, MemoryKind::PinnedHost);
  host_write(X, 4); // the thread steps
  write(S1, X, 4);
  const auto found = joins(JoinKind::EnqueueAfterHost);
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found.back().from, thread_actor());
  EXPECT_EQ(found.back().from_epoch, 1u);
  EXPECT_FALSE(found.back().from_step);
  EXPECT_EQ(found.back().to, stream_actor(S1));
}

TEST_F(ObserverTest, OneThreadActingForAnotherRankCarriesItsPastAlong) {
  stream(S1);
  malloc(X, 64, MemoryKind::PinnedHost);
  host_write(X, 4); // the thread steps as rank 0
  rank = 1;
  stream(S2);
  const auto found = joins(JoinKind::ProgramOrder);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].from, thread_actor(0));
  EXPECT_EQ(found[0].from_epoch, 1u);
  EXPECT_FALSE(found[0].from_step);
  EXPECT_EQ(found[0].to, thread_actor(1));
  rank = 0;
  write(S1, X, 4);
  EXPECT_EQ(joins(JoinKind::ProgramOrder).size(), 2u); // and back
}

TEST_F(ObserverTest, EventWaitComesFromTheRecordingStep) {
  stream(S1);
  stream(S2);
  write(S1, X, 4);
  record(E, S1);
  write(S1, X, 4); // after the record: not part of the event
  wait(S2, E);
  const auto found = joins(JoinKind::EventWait);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].from, stream_actor(S1));
  EXPECT_EQ(found[0].from_epoch, 2u); // the record was S1's second op
  EXPECT_TRUE(found[0].from_step);
  EXPECT_EQ(found[0].to, stream_actor(S2));
  EXPECT_EQ(found[0].handle, E);
}

TEST_F(ObserverTest, HostSynchronizationsJoinStreamsIntoTheThread) {
  stream(S1);
  stream(S2, StreamKind::NonBlocking);
  write(S1, X, 4);
  sync(S1);
  ASSERT_EQ(joins(JoinKind::HostSyncStream).size(), 1u);
  EXPECT_EQ(joins(JoinKind::HostSyncStream)[0].from, stream_actor(S1));
  EXPECT_EQ(joins(JoinKind::HostSyncStream)[0].to, thread_actor());
  EXPECT_EQ(joins(JoinKind::HostSyncStream)[0].handle, S1);

  write(S2, Y, 4);
  record(E, S2);
  sync_event(E);
  ASSERT_EQ(joins(JoinKind::HostSyncEvent).size(), 1u);
  EXPECT_EQ(joins(JoinKind::HostSyncEvent)[0].from, stream_actor(S2));
  EXPECT_EQ(joins(JoinKind::HostSyncEvent)[0].from_epoch, 2u);
  EXPECT_EQ(joins(JoinKind::HostSyncEvent)[0].handle, E);

  sync_device();
  const auto device = joins(JoinKind::HostSyncDevice);
  EXPECT_EQ(device.size(), 2u); // both streams of device 0
  for (const OrderingJoin& join : device)
    EXPECT_EQ(join.to, thread_actor());
}

TEST_F(ObserverTest, LegacyStreamAndBlockingStreamsWaitForEachOther) {
  stream(S1);
  write(S1, X, 4);
  write(kNullStream, Y, 4);
  const auto legacy_waits = joins(JoinKind::LegacyWaitsForStream);
  ASSERT_EQ(legacy_waits.size(), 1u);
  EXPECT_EQ(legacy_waits[0].from, stream_actor(S1));
  EXPECT_EQ(legacy_waits[0].handle, S1);
  write(S1, X, 4);
  const auto stream_waits = joins(JoinKind::StreamWaitsForLegacy);
  ASSERT_EQ(stream_waits.size(), 1u);
  EXPECT_EQ(stream_waits[0].from, legacy_waits[0].to);
  EXPECT_EQ(stream_waits[0].to, stream_actor(S1));
}

TEST_F(ObserverTest, CollectivesAndSendsJoinAcrossRanks) {
  for (RankId r : {0u, 1u}) {
    rank = r;
    thread = 10 + r;
    address_space = r;
    stream(S1);
    emit(CommInit{COMM, 0x77, 2, static_cast<std::int32_t>(r), kCurrentDevice});
  }
  for (RankId r : {0u, 1u}) {
    rank = r;
    thread = 10 + r;
    address_space = r;
    emit(Collective{S1, COMM, CollectiveKind::AllReduce, X, Y, 16, 4, 0, 7, 0});
  }
  const auto met = joins(JoinKind::Collective);
  ASSERT_EQ(met.size(), 2u); // each rank's stream learns the other's
  EXPECT_EQ(met[0].handle, 0x77u);
  EXPECT_NE(met[0].from, met[0].to);
  EXPECT_EQ(met[0].from, met[1].to);
  EXPECT_EQ(met[1].from, met[0].to);

  rank = 0;
  thread = 10;
  address_space = 0;
  emit(PointToPoint{S1, COMM, true, X, 16, 4, 1, 7});
  rank = 1;
  thread = 11;
  address_space = 1;
  emit(PointToPoint{S1, COMM, false, Y, 16, 4, 0, 7});
  const auto sent = joins(JoinKind::SendReceive);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].from, stream_actor(S1, 0));
  EXPECT_EQ(sent[0].to, stream_actor(S1, 1));
  EXPECT_EQ(sent[0].from_epoch, 2u); // the send, rank 0's second op on S1
  EXPECT_TRUE(sent[0].from_step);
}

TEST_F(ObserverTest, GroupsOverSeveralStreamsMergeThem) {
  stream(S1);
  stream(S2);
  emit(CommInit{COMM, 0x77, 1, 0, kCurrentDevice});
  write(S1, X, 4);
  emit(GroupStart{});
  emit(Collective{S1, COMM, CollectiveKind::AllReduce, X, X, 1, 4, 0, 7, 0});
  emit(Collective{S2, COMM, CollectiveKind::AllReduce, Y, Y, 1, 4, 0, 7, 0});
  emit(GroupEnd{});
  const auto merged = joins(JoinKind::Merge);
  const bool s1_into_s2 = std::any_of(merged.begin(), merged.end(), [&](const OrderingJoin& j) {
    return j.from == stream_actor(S1) && j.to == stream_actor(S2) && j.from_step;
  });
  EXPECT_TRUE(s1_into_s2);
}

TEST_F(ObserverTest, ExplainsAnEventChainAndAMissingOne) {
  HappensBeforeGraph graph;
  engine_.ordering().set_observer(&graph);
  stream(S1);
  stream(S2);
  write(S1, X, 4); // S1 #1
  record(E, S1);   // S1 #2
  write(S1, Y, 4); // S1 #3: nothing orders it before S2's read
  wait(S2, E);
  read(S2, Y, 4); // S2 #1
  ASSERT_EQ(races(), 1u);
  const Finding& race = findings()[0];
  const auto op2 = graph.step_node(race.second.access.actor, race.second.access.epoch);
  const auto reach = graph.latest_reached(op2, race.first.access.actor);
  ASSERT_NE(reach.latest, HappensBeforeGraph::kNoNode);
  EXPECT_EQ(graph.nodes()[reach.latest].epoch, 2u); // the record, before the write (#3)
  EXPECT_EQ(reach.path.front(), reach.latest);
  EXPECT_EQ(reach.path.back(), op2);
  const auto into = graph.edges_into(reach.path[1]);
  ASSERT_EQ(into.size(), 1u);
  EXPECT_EQ(into[0]->kind, JoinKind::EventWait);
}

// Fidelity: for every op of the hpZ step on every rank, the latest step of every other actor the
// graph reaches backwards is the component the engine's clock holds for it.
struct ClockCheck : OrderingObserver {
  HappensBeforeGraph graph;
  const Ordering* ordering = nullptr;
  std::vector<std::pair<HappensBeforeGraph::NodeId, VectorClock>> clocks;
  void step(ActorId actor, Epoch epoch) override {
    graph.step(actor, epoch);
    if (const StreamState* stream = ordering->stream_of(actor))
      clocks.emplace_back(graph.step_node(actor, epoch), stream->clock);
  }
  void join(const OrderingJoin& join) override { graph.join(join); }
};

TEST(HappensBeforeGraph, ReachesWhatTheEnginesClocksHold) {
  for (auto mode :
       {examples::HpzMode::Buggy, examples::HpzMode::FixEvent, examples::HpzMode::FixHostSync}) {
    SymbolTable symbols;
    Engine engine;
    ClockCheck check;
    check.ordering = &engine.ordering();
    engine.ordering().set_observer(&check);
    const std::vector<Event> events = examples::hpz_events(mode, symbols);
    for (std::uint32_t i = 0; i < events.size(); ++i) {
      check.graph.set_event(i);
      engine.process(events[i]);
    }
    ASSERT_GT(check.clocks.size(), 100u);
    std::size_t compared = 0;
    for (std::size_t c = 0; c < check.clocks.size(); c += 3) {
      const auto& [node, clock] = check.clocks[c];
      for (ActorId other = 0; other < engine.ordering().actor_count(); ++other) {
        if (other == check.graph.nodes()[node].actor || !clock.pending().empty()) continue;
        const auto reach = check.graph.latest_reached(node, other);
        const Epoch reached = reach.latest == HappensBeforeGraph::kNoNode
                                  ? 0
                                  : check.graph.nodes()[reach.latest].epoch;
        EXPECT_EQ(reached, clock.get(other)) << "node " << node << " actor " << other;
        ++compared;
      }
    }
    EXPECT_GT(compared, 600u);
  }
}

} // namespace
} // namespace streamrace::testing
