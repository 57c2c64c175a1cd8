// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One test per rule of docs/semantics.md: each racy case must report, and its synchronized twin
// must stay silent.
#include "engine_fixture.h"

namespace streamrace::testing {
namespace {

constexpr StreamHandle S1 = 0x100, S2 = 0x200, S3 = 0x300;
constexpr EventHandle E1 = 0xe1, E2 = 0xe2;
constexpr Address X = 0x10000, Y = 0x20000, H = 0x90000;
constexpr std::uint64_t N = 256;

class Rules : public EngineTest {
protected:
  void SetUp() override {
    stream(S1);
    stream(S2);
    stream(S3);
    malloc(X, N);
    malloc(Y, N);
  }
};

// Rule 1: what the host did before enqueuing an op comes before the op.
TEST_F(Rules, EnqueueOrdersHostWorkBeforeOp) {
  malloc(H, N, MemoryKind::PinnedHost);
  host_write(H, N);
  read(S1, H, N);
  EXPECT_EQ(races(), 0u) << report();
}
TEST_F(Rules, HostWriteAfterEnqueueRacesWithTheOp) {
  malloc(H, N, MemoryKind::PinnedHost);
  read(S1, H, N);
  host_write(H, N);
  EXPECT_EQ(count(FindingKind::RaceReadWrite), 1u) << report();
  EXPECT_EQ(findings()[0].fix.kind, FixSuggestion::Kind::HostSynchronize);
}

// Rule 1 across ranks: a process that drives two devices makes each its own rank, and one OS
// thread acts for both in turn; what it did for one comes before what it does next.
class TwoDevicesOneProcess : public EngineTest {
protected:
  void SetUp() override {
    rank = 0;
    stream(S1, StreamKind::Blocking, 0);
    malloc(X, N);
    rank = 1;
    stream(S2, StreamKind::Blocking, 1);
  }
};
TEST_F(TwoDevicesOneProcess, HostSyncForOneRankOrdersTheThreadsLaterWorkForTheOther) {
  rank = 0;
  write(S1, X, N);
  sync(S1);
  rank = 1;
  read(S2, X, N);
  EXPECT_EQ(races(), 0u) << report();
}
TEST_F(TwoDevicesOneProcess, WithoutTheSyncTheRanksRace) {
  rank = 0;
  write(S1, X, N);
  rank = 1;
  read(S2, X, N);
  EXPECT_EQ(count(FindingKind::RaceWriteRead), 1u) << report();
}
TEST_F(TwoDevicesOneProcess, ASyncByAnotherThreadDoesNotOrder) {
  rank = 0;
  write(S1, X, N);
  thread = 2;
  sync(S1);
  rank = 1;
  thread = 1; // never waited for S1
  read(S2, X, N);
  EXPECT_EQ(count(FindingKind::RaceWriteRead), 1u) << report();
}

// Rule 2: stream order.
TEST_F(Rules, SameStreamIsOrdered) {
  write(S1, X, N);
  write(S1, X, N);
  read(S1, X, N);
  EXPECT_EQ(races(), 0u) << report();
}
TEST_F(Rules, DifferentStreamsRace) {
  write(S1, X, N);
  write(S2, X, N);
  ASSERT_EQ(count(FindingKind::RaceWriteWrite), 1u) << report();
  EXPECT_EQ(findings()[0].fix.kind, FixSuggestion::Kind::RecordAndWait);
}

// Rule 3: an event is a snapshot at record time.
TEST_F(Rules, RecordAfterWriteThenWaitOrders) {
  write(S1, X, N);
  record(E1, S1);
  wait(S2, E1);
  read(S2, X, N);
  EXPECT_EQ(races(), 0u) << report();
}
TEST_F(Rules, StaleRecordBeforeWriteDoesNotOrder) {
  record(E1, S1);
  write(S1, X, N);
  wait(S2, E1);
  read(S2, X, N);
  EXPECT_EQ(count(FindingKind::RaceWriteRead), 1u) << report();
}
TEST_F(Rules, WaitKeepsTheSnapshotItSawBeforeReRecord) {
  write(S1, X, N);
  record(E1, S1);
  wait(S2, E1);
  write(S1, Y, N);
  record(E1, S1); // the earlier wait does not see this
  read(S2, X, N);
  read(S2, Y, N);
  ASSERT_EQ(races(), 1u) << report();
  EXPECT_EQ(findings()[0].memory.overlap_begin, Y);
}
TEST_F(Rules, WaitAfterReRecordSeesTheNewSnapshot) {
  write(S1, X, N);
  record(E1, S1);
  write(S1, Y, N);
  record(E1, S1);
  wait(S2, E1);
  read(S2, Y, N);
  EXPECT_EQ(races(), 0u) << report();
}
TEST_F(Rules, FixSuggestsAnEventAlreadyRecordedAfterTheAccess) {
  write(S1, X, N);
  record(E1, S1);
  read(S2, X, N);
  ASSERT_EQ(races(), 1u) << report();
  EXPECT_EQ(findings()[0].fix.kind, FixSuggestion::Kind::WaitOnExisting);
  EXPECT_EQ(findings()[0].fix.event, E1);
}

// Rule 4: waiting on a never-recorded event orders nothing, and says so.
TEST_F(Rules, WaitOnUnrecordedEventIsItsOwnFinding) {
  emit(EventCreate{E1});
  wait(S2, E1);
  write(S1, X, N);
  record(E1, S1);
  read(S2, X, N);
  ASSERT_EQ(count(FindingKind::UnrecordedEventWait), 1u) << report();
  EXPECT_EQ(findings()[0].unrecorded_wait->event, E1);
}
TEST_F(Rules, WaitOnRecordedEventIsSilent) {
  emit(EventCreate{E1});
  write(S1, X, N);
  record(E1, S1);
  wait(S2, E1);
  read(S2, X, N);
  EXPECT_TRUE(findings().empty()) << report();
}

// Rule 5: host waits.
TEST_F(Rules, StreamSynchronizeOrdersLaterWork) {
  write(S1, X, N);
  sync(S1);
  read(S2, X, N);
  EXPECT_EQ(races(), 0u) << report();
}
TEST_F(Rules, SynchronizingAnotherStreamDoesNotOrder) {
  write(S1, X, N);
  sync(S3);
  read(S2, X, N);
  EXPECT_EQ(races(), 1u) << report();
}
TEST_F(Rules, EventSynchronizeOrdersLaterWork) {
  write(S1, X, N);
  record(E1, S1);
  sync_event(E1);
  read(S2, X, N);
  EXPECT_EQ(races(), 0u) << report();
}
TEST_F(Rules, DeviceSynchronizeOrdersLaterWork) {
  write(S1, X, N);
  sync_device();
  read(S2, X, N);
  EXPECT_EQ(races(), 0u) << report();
}
TEST_F(Rules, SuccessfulQueryOrders) {
  write(S1, X, N);
  sync(S1, /*completed=*/true);
  read(S2, X, N);
  EXPECT_EQ(races(), 0u) << report();
}
TEST_F(Rules, NotReadyQueryDoesNotOrder) {
  write(S1, X, N);
  sync(S1, /*completed=*/false);
  record(E1, S1);
  sync_event(E1, /*completed=*/false);
  read(S2, X, N);
  EXPECT_EQ(races(), 1u) << report();
}

// Rule 6: the legacy default stream and blocking streams.
TEST_F(Rules, LegacyStreamWaitsForBlockingStreams) {
  write(S1, X, N);
  read(kNullStream, X, N);
  write(S2, X, N);
  EXPECT_EQ(races(), 0u) << report();
}
TEST_F(Rules, NonBlockingStreamsTakeNoPartInLegacySync) {
  constexpr StreamHandle NB = 0x400;
  stream(NB, StreamKind::NonBlocking);
  write(NB, X, N);
  read(kLegacyStream, X, N);
  EXPECT_EQ(count(FindingKind::RaceWriteRead), 1u) << report();
}
TEST_F(Rules, LaterBlockingWorkWaitsForLegacyWork) {
  constexpr StreamHandle NB = 0x400;
  stream(NB, StreamKind::NonBlocking);
  write(kNullStream, X, N);
  read(S1, X, N);
  read(NB, X, N);
  EXPECT_EQ(count(FindingKind::RaceWriteRead), 1u) << report();
  EXPECT_EQ(findings()[0].second.stream, NB);
}
TEST_F(Rules, PerThreadDefaultStreamActsAsBlocking) {
  write(kPerThreadStream, X, N);
  read(kNullStream, X, N);
  EXPECT_EQ(races(), 0u) << report();
}
// Synchronizing the legacy stream: by default it waits for what an action on it would (every
// blocking stream of the device); strict_legacy_sync keeps the documented reading, the legacy
// stream's own work only. Non-blocking streams take no part either way.
TEST_F(Rules, LegacyStreamSyncWaitsForBlockingStreams) {
  constexpr StreamHandle NB = 0x400;
  stream(NB, StreamKind::NonBlocking);
  write(S1, X, N); // S1 is blocking
  sync(kNullStream);
  write(NB, X, N);
  EXPECT_EQ(races(), 0u) << report();
}
TEST_F(Rules, LegacyStreamSyncDoesNotWaitForNonBlockingStreams) {
  constexpr StreamHandle NB = 0x400;
  stream(NB, StreamKind::NonBlocking);
  write(NB, X, N);
  sync(kNullStream);
  write(S1, X, N);
  EXPECT_EQ(count(FindingKind::RaceWriteWrite), 1u) << report();
}
class StrictLegacySync : public EngineTest {
protected:
  static Options strict() {
    Options options;
    options.strict_legacy_sync = true;
    return options;
  }
  StrictLegacySync() : EngineTest(strict()) {}
};
TEST_F(StrictLegacySync, LegacyStreamSyncWaitsOnlyForItsOwnWork) {
  constexpr StreamHandle NB = 0x400;
  stream(S1);
  stream(NB, StreamKind::NonBlocking);
  malloc(X, N);
  write(S1, X, N);
  sync(kNullStream);
  write(NB, X, N);
  EXPECT_EQ(count(FindingKind::RaceWriteWrite), 1u) << report();
}
TEST_F(StrictLegacySync, LegacyStreamSyncCoversBlockingWorkALegacyActionWaitedFor) {
  constexpr StreamHandle NB = 0x400;
  stream(S1);
  stream(NB, StreamKind::NonBlocking);
  malloc(X, N);
  malloc(Y, N);
  write(S1, X, N);
  write(kNullStream, Y, N); // waits for S1's write
  sync(kNullStream);
  write(NB, X, N);
  EXPECT_EQ(races(), 0u) << report();
}

// Rule 7: synchronous-API host semantics.
TEST_F(Rules, SyncCopyDeviceToHostMakesTheHostWait) {
  constexpr StreamHandle NB = 0x400;
  stream(NB, StreamKind::NonBlocking);
  copy(kNullStream, H, X, N, CopyKind::DeviceToHost, /*synchronous_api=*/true);
  write(NB, X, N);
  EXPECT_EQ(races(), 0u) << report();
}
TEST_F(Rules, AsyncCopyDeviceToPinnedDoesNotMakeTheHostWait) {
  constexpr StreamHandle NB = 0x400;
  stream(NB, StreamKind::NonBlocking);
  malloc(H, N, MemoryKind::PinnedHost);
  copy(S1, H, X, N, CopyKind::DeviceToHost);
  write(NB, X, N);
  EXPECT_EQ(count(FindingKind::RaceReadWrite), 1u) << report();
}
TEST_F(Rules, AsyncCopyDeviceToPageableMakesTheHostWait) {
  copy(S1, H, X, N, CopyKind::DeviceToHost);
  write(S2, X, N);
  EXPECT_EQ(races(), 0u) << report();
}
TEST_F(Rules, SyncCopyFromPageableLeavesTheDeviceWritePending) {
  constexpr StreamHandle NB = 0x400;
  stream(NB, StreamKind::NonBlocking);
  copy(kNullStream, X, H, N, CopyKind::HostToDevice, true);
  read(NB, X, N);
  EXPECT_EQ(count(FindingKind::RaceWriteRead), 1u) << report();
}
TEST_F(Rules, SyncCopyFromPinnedMakesTheHostWait) {
  constexpr StreamHandle NB = 0x400;
  stream(NB, StreamKind::NonBlocking);
  malloc(H, N, MemoryKind::PinnedHost);
  copy(kNullStream, X, H, N, CopyKind::HostToDevice, true);
  read(NB, X, N);
  EXPECT_EQ(races(), 0u) << report();
}
TEST_F(Rules, SyncMemsetOnDeviceMemoryIsAsynchronous) {
  constexpr StreamHandle NB = 0x400;
  stream(NB, StreamKind::NonBlocking);
  emit(Set{kNullStream, X, N, 1, 0, true});
  read(NB, X, N);
  EXPECT_EQ(count(FindingKind::RaceWriteRead), 1u) << report();
}
TEST_F(Rules, SyncMemsetOnPinnedMemoryIsSynchronous) {
  constexpr StreamHandle NB = 0x400;
  stream(NB, StreamKind::NonBlocking);
  malloc(H, N, MemoryKind::PinnedHost);
  emit(Set{kNullStream, H, N, 1, 0, true});
  read(NB, H, N);
  EXPECT_EQ(races(), 0u) << report();
}
TEST_F(Rules, DefaultCopyKindIsInferredFromThePointers) {
  copy(kNullStream, H, X, N, CopyKind::Default, true); // device to pageable: host waits
  write(S2, X, N);
  EXPECT_EQ(races(), 0u) << report();
}

class StrictCopies : public EngineTest {
protected:
  static Options strict() {
    Options options;
    options.strict_pageable_copy = true;
    return options;
  }
  StrictCopies() : EngineTest(strict()) {}
};
TEST_F(StrictCopies, AsyncCopyToPageableGivesNoHostWait) {
  stream(S1);
  stream(S2);
  malloc(X, N);
  copy(S1, H, X, N, CopyKind::DeviceToHost);
  write(S2, X, N);
  EXPECT_EQ(races(), 1u) << report();
}

// Rule 8: implicit device synchronization.
TEST_F(Rules, CudaFreeSynchronizesTheDevice) {
  constexpr Address Z = 0x30000;
  malloc(Z, N);
  write(S1, X, N);
  emit(Free{Z, FreeApi::Free, 0});
  read(S2, X, N);
  EXPECT_TRUE(findings().empty()) << report();
}
TEST_F(Rules, CudaFreeOfPoolMemoryDoesNotSynchronize) {
  constexpr Address Z = 0x30000;
  emit(Alloc{Z, N, MemoryKind::StreamOrdered, kCurrentDevice, S3});
  sync(S3);
  write(S1, X, N);
  emit(Free{Z, FreeApi::Free, 0});
  read(S2, X, N);
  EXPECT_EQ(races(), 1u) << report();
}
TEST_F(Rules, MallocManagedSynchronizesTheDevice) {
  write(S1, X, N);
  malloc(0x40000, N, MemoryKind::Managed);
  read(S2, X, N);
  EXPECT_EQ(races(), 0u) << report();
}
class StrictFree : public EngineTest {
protected:
  static Options strict() {
    Options options;
    options.strict_free = true;
    return options;
  }
  StrictFree() : EngineTest(strict()) {}
};
TEST_F(StrictFree, CudaFreeGivesNoEdge) {
  stream(S1);
  stream(S2);
  malloc(X, N);
  malloc(Y, N);
  write(S1, X, N);
  emit(Free{Y, FreeApi::Free, 0});
  read(S2, X, N);
  EXPECT_EQ(races(), 1u) << report();
}
TEST_F(Rules, FreeWhileAKernelStillUsesTheBufferIsUseAfterFree) {
  write(S1, X, N);
  emit(Free{X, FreeApi::FreeAsync, S2});
  EXPECT_EQ(count(FindingKind::UseAfterFree), 1u) << report();
}

// Rule 9: host functions run in stream order.
TEST_F(Rules, HostFunctionIsOrderedOnItsStream) {
  malloc(H, N, MemoryKind::PinnedHost);
  copy(S1, H, X, N, CopyKind::DeviceToHost);
  emit(HostFunction{S1, 0, {{H, N, AccessMode::Read, Extent::Exact}}, 0});
  EXPECT_EQ(races(), 0u) << report();
}
TEST_F(Rules, HostFunctionOnAnotherStreamRaces) {
  malloc(H, N, MemoryKind::PinnedHost);
  copy(S1, H, X, N, CopyKind::DeviceToHost);
  emit(HostFunction{S2, 0, {{H, N, AccessMode::Read, Extent::Exact}}, 0});
  EXPECT_EQ(count(FindingKind::RaceWriteRead), 1u) << report();
}

// Rule 10: stream-ordered allocation.
TEST_F(Rules, UseOfPoolMemoryBeforeItsAllocationIsOrdered) {
  constexpr Address P = 0x50000;
  emit(Alloc{P, N, MemoryKind::StreamOrdered, kCurrentDevice, S1});
  write(S2, P, N);
  EXPECT_EQ(count(FindingKind::UseBeforeAlloc), 1u) << report();
}
TEST_F(Rules, UseOfPoolMemoryAfterWaitingForItsAllocation) {
  constexpr Address P = 0x50000;
  emit(Alloc{P, N, MemoryKind::StreamOrdered, kCurrentDevice, S1});
  record(E1, S1);
  wait(S2, E1);
  write(S2, P, N);
  emit(Free{P, FreeApi::FreeAsync, S2});
  EXPECT_TRUE(findings().empty()) << report();
}
TEST_F(Rules, UseAfterStreamOrderedFree) {
  constexpr Address P = 0x50000;
  emit(Alloc{P, N, MemoryKind::StreamOrdered, kCurrentDevice, S1});
  write(S1, P, N);
  emit(Free{P, FreeApi::FreeAsync, S1});
  read(S1, P, N);
  EXPECT_EQ(count(FindingKind::UseAfterFree), 1u) << report();
}
TEST_F(Rules, PoolReuseOfAFreedRangeIsNotARace) {
  constexpr Address P = 0x50000;
  emit(Alloc{P, N, MemoryKind::StreamOrdered, kCurrentDevice, S1});
  write(S1, P, N);
  emit(Free{P, FreeApi::FreeAsync, S1});
  emit(Alloc{P, N, MemoryKind::StreamOrdered, kCurrentDevice, S2});
  write(S2, P, N);
  EXPECT_TRUE(findings().empty()) << report();
}
TEST_F(Rules, CachingAllocatorReuseIsCheckedAsOrdinaryMemory) {
  // No free and no allocation in between: the allocator handed the same bytes to another
  // stream without an event, as a caching allocator without record_stream would.
  write(S1, X, N);
  write(S2, X, N);
  EXPECT_EQ(count(FindingKind::RaceWriteWrite), 1u) << report();
}

// Rule 11: capture records; launch executes.
TEST_F(Rules, CapturedOpsTouchNoMemoryUntilLaunch) {
  emit(CaptureBegin{S2});
  write(S2, X, N);
  emit(CaptureEnd{S2, 0x9001});
  emit(GraphInstantiate{0x9001, 0x9002});
  write(S1, X, N);
  EXPECT_TRUE(findings().empty()) << report();
  emit(GraphLaunch{0x9002, S1}); // ordered after S1's write
  EXPECT_TRUE(findings().empty()) << report();
  emit(GraphLaunch{0x9002, S3}); // launches of one executable are ordered behind each other
  EXPECT_TRUE(findings().empty()) << report();
  emit(GraphInstantiate{0x9001, 0x9003});
  emit(GraphLaunch{0x9003, S2}); // another executable on a stream nothing orders
  EXPECT_EQ(count(FindingKind::RaceWriteWrite), 1u) << report();
}
// An executable updated in place (cudaGraphExecUpdate, node setters) runs the new graph, still
// ordered behind its own earlier launches; instantiating again makes another executable.
class GraphUpdates : public Rules {
protected:
  static constexpr GraphHandle kOld = 0x9001, kNew = 0x9004, kExec = 0x9002;
  void capture_write(GraphHandle graph, Address buffer) {
    emit(CaptureBegin{S2});
    write(S2, buffer, N);
    emit(CaptureEnd{S2, graph});
  }
};
TEST_F(GraphUpdates, AnUpdatedExecutableWritesTheNewBufferOnly) {
  capture_write(kOld, X);
  emit(GraphInstantiate{kOld, kExec});
  capture_write(kNew, Y);
  emit(GraphInstantiate{kNew, kExec, true});
  emit(GraphLaunch{kExec, S1});
  read(S3, X, N);
  EXPECT_TRUE(findings().empty()) << report();
  read(S3, Y, N);
  EXPECT_EQ(count(FindingKind::RaceWriteRead), 1u) << report();
}
TEST_F(GraphUpdates, AnUpdatedExecutableStaysOrderedBehindItsEarlierLaunches) {
  capture_write(kOld, X);
  emit(GraphInstantiate{kOld, kExec});
  emit(GraphLaunch{kExec, S1});
  capture_write(kNew, X);
  emit(GraphInstantiate{kNew, kExec, true});
  emit(GraphLaunch{kExec, S3});
  EXPECT_TRUE(findings().empty()) << report();
  // Instantiated anew under the handle, it is another executable, which nothing orders.
  emit(GraphInstantiate{kNew, kExec});
  emit(GraphLaunch{kExec, S1});
  EXPECT_EQ(count(FindingKind::RaceWriteWrite), 1u) << report();
}
TEST_F(GraphUpdates, AGraphCapturedAgainLeavesEarlierExecutablesAsTheyWere) {
  capture_write(kOld, X);
  emit(GraphInstantiate{kOld, kExec});
  capture_write(kOld, Y); // the handle freed and given to a new capture
  emit(GraphLaunch{kExec, S1});
  read(S3, Y, N);
  EXPECT_TRUE(findings().empty()) << report();
  read(S3, X, N);
  EXPECT_EQ(count(FindingKind::RaceWriteRead), 1u) << report();
}
TEST_F(GraphUpdates, ADestroyedExecutableIsForgotten) {
  capture_write(kOld, X);
  emit(GraphInstantiate{kOld, kExec});
  emit(GraphExecDestroy{kExec});
  // A launch under the dead handle (the runtime refuses it) runs nothing the engine kept.
  emit(GraphLaunch{kExec, S1});
  read(S3, X, N);
  EXPECT_TRUE(findings().empty()) << report();
}
TEST_F(Rules, GraphBranchesRaceWithoutAJoin) {
  emit(CaptureBegin{S2});
  record(E1, S2);
  wait(S3, E1); // S3 joins the capture
  write(S3, X, N);
  write(S2, X, N);
  record(E2, S3);
  wait(S2, E2);
  emit(CaptureEnd{S2, 0x9001});
  emit(GraphInstantiate{0x9001, 0x9002});
  emit(GraphLaunch{0x9002, S1});
  EXPECT_EQ(count(FindingKind::RaceWriteWrite), 1u) << report();
}
TEST_F(Rules, GraphBranchesJoinedBeforeTheSecondWrite) {
  emit(CaptureBegin{S2});
  record(E1, S2);
  wait(S3, E1);
  write(S3, X, N);
  record(E2, S3);
  wait(S2, E2);
  write(S2, X, N);
  emit(CaptureEnd{S2, 0x9001});
  emit(GraphInstantiate{0x9001, 0x9002});
  emit(GraphLaunch{0x9002, S1});
  read(S1, X, N); // after the whole graph
  EXPECT_TRUE(findings().empty()) << report();
}

// Rule 11: a host node's run in a launch is checked right after the node, on its lane.
class HostNodes : public Rules {
protected:
  static constexpr std::uint64_t kNode = 0x4e0de;
  static constexpr GraphHandle kGraph = 0x9001, kExec = 0x9002;
  // A graph that forks S3 off S2: S2 copies into the pinned slot, S3 runs the host node, and
  // the node follows the copy only when `forked_after_copy`.
  void capture_copy_and_host_node(bool forked_after_copy) {
    malloc(H, N, MemoryKind::PinnedHost);
    emit(CaptureBegin{S2});
    if (!forked_after_copy) record(E1, S2);
    copy(S2, H, X, N, CopyKind::DeviceToHost);
    if (forked_after_copy) record(E1, S2);
    wait(S3, E1);
    emit(HostFunction{S3, 0, {}, kNode});
    record(E2, S3);
    wait(S2, E2);
    emit(CaptureEnd{S2, kGraph});
    emit(GraphInstantiate{kGraph, kExec});
  }
  void host_node_read(GraphHandle exec, std::uint64_t node) {
    thread = 7; // the runtime's thread that ran the node
    emit(HostNodeAccess{exec, node, {{H, 1, AccessMode::Read, Extent::Exact}}});
    thread = 1;
  }
};
TEST_F(HostNodes, ARunNotOrderedAfterTheCopyNodeRaces) {
  capture_copy_and_host_node(false);
  host_node_read(kExec, kNode);
  emit(GraphLaunch{kExec, S1});
  EXPECT_EQ(count(FindingKind::RaceWriteRead), 1u) << report();
}
TEST_F(HostNodes, ARunAfterTheCopyNodeIsOrdered) {
  capture_copy_and_host_node(true);
  host_node_read(kExec, kNode);
  emit(GraphLaunch{kExec, S1});
  EXPECT_TRUE(findings().empty()) << report();
  // The run's read was checked and kept: a write nothing orders after the launch races with it.
  write(S3, H, 1);
  EXPECT_EQ(count(FindingKind::RaceReadWrite), 1u) << report();
}
TEST_F(HostNodes, ARunBelongsToItsExecutablesNextLaunchOnly) {
  capture_copy_and_host_node(false);
  emit(GraphInstantiate{kGraph, 0x9003});
  host_node_read(0x9003, kNode);  // another executable's run
  host_node_read(kExec, 0x4e0df); // a node this graph does not have
  emit(GraphLaunch{kExec, S1});
  EXPECT_TRUE(findings().empty()) << report();
  emit(GraphLaunch{kExec, S1}); // the other executable's run is not this launch's either
  EXPECT_TRUE(findings().empty()) << report();
}

// Rule 16: host threads hand work to each other through mutexes, condition variables,
// semaphores, thread creation and joining.
TEST_F(Rules, HandOffOrdersTheAcquiringThreadsLaterWork) {
  constexpr std::uint64_t kMutex = 0x5000;
  write(S1, X, N);
  sync(S1);
  emit(HostRelease{kMutex});
  thread = 2;
  emit(HostAcquire{kMutex});
  write(S2, X, N);
  EXPECT_EQ(races(), 0u) << report();
}
TEST_F(Rules, WithoutTheHandOffTheThreadsRace) {
  write(S1, X, N);
  sync(S1);
  thread = 2;
  write(S2, X, N);
  EXPECT_EQ(count(FindingKind::RaceWriteWrite), 1u) << report();
}
TEST_F(Rules, AHandOffCarriesOnlyWhatWasDoneBeforeTheRelease) {
  constexpr std::uint64_t kMutex = 0x5000;
  write(S1, X, N);
  emit(HostRelease{kMutex});
  sync(S1); // after the release: the other thread learns nothing of it
  thread = 2;
  emit(HostAcquire{kMutex});
  write(S2, X, N);
  EXPECT_EQ(count(FindingKind::RaceWriteWrite), 1u) << report();
}
TEST_F(Rules, AnAcquireOfAnotherObjectOrdersNothing) {
  write(S1, X, N);
  sync(S1);
  emit(HostRelease{0x5000});
  thread = 2;
  emit(HostAcquire{0x6000});
  write(S2, X, N);
  EXPECT_EQ(count(FindingKind::RaceWriteWrite), 1u) << report();
}
// A host function's hand-off is its stream's: the stream that posts (after a write) and the
// stream that waits (before a write) are ordered; a function that waits for another object is not.
TEST_F(Rules, AHostFunctionsHandOffOrdersTheStreams) {
  constexpr std::uint64_t kSemaphore = 0x5000;
  write(S1, X, N);
  thread = 3; // the runtime's thread that runs host functions
  emit(HostRelease{kSemaphore, true, S1});
  emit(HostAcquire{kSemaphore, true, S2});
  thread = 1;
  write(S2, X, N);
  EXPECT_EQ(races(), 0u) << report();
}
TEST_F(Rules, WithoutTheHostFunctionsHandOffTheStreamsRace) {
  write(S1, X, N);
  thread = 3;
  emit(HostRelease{0x5000, true, S1});
  emit(HostAcquire{0x6000, true, S2});
  thread = 1;
  write(S2, X, N);
  EXPECT_EQ(count(FindingKind::RaceWriteWrite), 1u) << report();
}

// A host function's hand-off reaches the engine at the function's place: an acquire may come
// before the release it followed (named by its sequence number), and waits for it.
TEST_F(Rules, AnAcquireWaitsForItsReleaseToArrive) {
  constexpr std::uint64_t kSemaphore = 0x5000;
  write(S1, X, N);
  thread = 3;
  emit(HostAcquire{kSemaphore, true, S2, 1});
  thread = 1;
  write(S2, X, N); // after the acquire: waits for the release
  thread = 3;
  emit(HostRelease{kSemaphore, true, S1, 1});
  finish();
  EXPECT_EQ(races(), 0u) << report();
}
TEST_F(Rules, WorkBeforeALateReleaseIsOrderedBeforeTheAcquirersLaterWork) {
  constexpr std::uint64_t kSemaphore = 0x5000;
  thread = 3;
  emit(HostAcquire{kSemaphore, true, S2, 1});
  thread = 1;
  write(S2, X, N);
  write(S1, X, N); // processed after the S2 write, yet before the release that orders it first
  thread = 3;
  emit(HostRelease{kSemaphore, true, S1, 1});
  finish();
  EXPECT_EQ(races(), 0u) << report();
}
TEST_F(Rules, WorkAfterALateReleaseStillRaces) {
  constexpr std::uint64_t kSemaphore = 0x5000;
  thread = 3;
  emit(HostAcquire{kSemaphore, true, S2, 1});
  thread = 1;
  write(S2, X, N);
  thread = 3;
  emit(HostRelease{kSemaphore, true, S1, 1});
  thread = 1;
  write(S1, X, N);
  finish();
  EXPECT_EQ(count(FindingKind::RaceWriteWrite), 1u) << report();
}
TEST_F(Rules, AnAcquireWhoseReleaseNeverArrivesOrdersNothing) {
  constexpr std::uint64_t kSemaphore = 0x5000;
  write(S1, X, N);
  thread = 3;
  emit(HostAcquire{kSemaphore, true, S2, 1});
  emit(HostRelease{kSemaphore, true, S1, 2}); // another release: not the one awaited
  thread = 1;
  write(S2, X, N);
  finish();
  EXPECT_EQ(count(FindingKind::RaceWriteWrite), 1u) << report();
}

// A host function that had not run when its launch was taken: its hand-offs come later, placed
// where it was launched, and its stream's later work waits for them.
TEST_F(Rules, ALateRunsAcquireOrdersTheStreamsLaterWork) {
  constexpr std::uint64_t kGate = 0x5000;
  write(S1, X, N);
  emit(HostFunction{S2, 0, {}, 0, 7});
  read(S2, X, N); // enqueued before the host thread opens the gate
  sync(S1);
  emit(HostRelease{kGate, false, 0, 1});
  thread = 3;
  emit(HostAcquire{kGate, true, S2, 1, 7});
  emit(HostFunctionEnd{S2, 7});
  finish();
  EXPECT_EQ(races(), 0u) << report();
}
TEST_F(Rules, ALateRunThatAcquiresNothingOrdersNothing) {
  write(S1, X, N);
  emit(HostFunction{S2, 0, {}, 0, 7});
  read(S2, X, N);
  sync(S1);
  emit(HostRelease{0x5000, false, 0, 1});
  thread = 3;
  emit(HostFunctionEnd{S2, 7});
  finish();
  EXPECT_EQ(count(FindingKind::RaceWriteRead), 1u) << report();
}
TEST_F(Rules, ALateRunReleasesItsStreamAsItWasAtItsPlace) {
  constexpr std::uint64_t kSemaphore = 0x5000;
  write(S1, X, N);
  emit(HostFunction{S1, 0, {}, 0, 8});
  write(S1, Y, N); // after the function: not released by it
  thread = 3;
  emit(HostRelease{kSemaphore, true, S1, 1, 8});
  emit(HostFunctionEnd{S1, 8});
  thread = 2;
  emit(HostAcquire{kSemaphore, false, 0, 1});
  write(S2, X, N);
  write(S2, Y, N);
  finish();
  EXPECT_EQ(count(FindingKind::RaceWriteWrite), 1u) << report();
}

// A stream's late runs end in its order: work between two of them waits for the first, work
// after both for both, and work processed earlier elsewhere is checked against either.
TEST_F(Rules, LateRunsOfOneStreamOrderTheWorkAfterEach) {
  constexpr std::uint64_t kFirst = 0x5000, kSecond = 0x6000;
  write(S1, X, N);
  emit(HostFunction{S2, 0, {}, 0, 7});
  read(S2, X, N); // after the first run
  emit(HostFunction{S2, 0, {}, 0, 8});
  read(S2, Y, N);  // after both
  write(S1, Y, N); // processed late, released by the second run's gate below
  sync(S1);
  emit(HostRelease{kFirst, false, 0, 1});
  emit(HostRelease{kSecond, false, 0, 2});
  thread = 3;
  emit(HostAcquire{kFirst, true, S2, 1, 7});
  emit(HostFunctionEnd{S2, 7});
  emit(HostAcquire{kSecond, true, S2, 2, 8});
  emit(HostFunctionEnd{S2, 8});
  finish();
  EXPECT_EQ(races(), 0u) << report();
}
TEST_F(Rules, WorkBeforeTheSecondLateRunDoesNotLearnItsAcquire) {
  constexpr std::uint64_t kSecond = 0x6000;
  emit(HostFunction{S2, 0, {}, 0, 7});
  read(S2, Y, N); // between the runs: the second run's gate is not before it
  emit(HostFunction{S2, 0, {}, 0, 8});
  write(S1, Y, N);
  sync(S1);
  emit(HostRelease{kSecond, false, 0, 1});
  thread = 3;
  emit(HostFunctionEnd{S2, 7});
  emit(HostAcquire{kSecond, true, S2, 1, 8});
  emit(HostFunctionEnd{S2, 8});
  finish();
  EXPECT_EQ(count(FindingKind::RaceReadWrite), 1u) << report();
}

// Rule 15: devices.
// A process that drives two devices is two ranks in one address space: an event recorded on one
// device's stream orders the other's wait (nccl-tests, streamOrderedAllocationP2P).
TEST_F(Rules, EventsOrderStreamsOfDifferentRanksOfOneProcess) {
  write(S1, X, N);
  record(E1, S1);
  rank = 1;
  thread = 2;
  stream(S2, StreamKind::NonBlocking, 1);
  wait(S2, E1);
  read(S2, X, N);
  EXPECT_EQ(races(), 0u) << report();
  EXPECT_TRUE(findings().empty()) << report();
}
TEST_F(Rules, WithoutTheWaitTheRanksOfOneProcessRace) {
  write(S1, X, N);
  record(E1, S1);
  rank = 1;
  thread = 2;
  stream(S2, StreamKind::NonBlocking, 1);
  read(S2, X, N);
  EXPECT_EQ(count(FindingKind::RaceWriteRead), 1u) << report();
}
TEST_F(Rules, EventsOrderStreamsOfDifferentDevices) {
  constexpr StreamHandle D1 = 0x1100;
  stream(D1, StreamKind::Blocking, 1);
  write(S1, X, N);
  record(E1, S1);
  wait(D1, E1);
  read(D1, X, N);
  EXPECT_EQ(races(), 0u) << report();
}
TEST_F(Rules, DeviceSynchronizeCoversOnlyTheCurrentDevice) {
  constexpr StreamHandle D1 = 0x1100;
  stream(D1, StreamKind::Blocking, 1);
  write(D1, X, N);
  sync_device(0);
  read(S2, X, N);
  EXPECT_EQ(races(), 1u) << report();
  emit(SetDevice{1});
  sync_device();
  write(S2, X, N);
  EXPECT_EQ(races(), 1u) << report();
}
TEST_F(Rules, PeerCopyReadsOneDeviceAndWritesAnother) {
  constexpr StreamHandle D1 = 0x1100;
  stream(D1, StreamKind::Blocking, 1);
  write(S1, X, N);
  copy(D1, Y, X, N, CopyKind::DeviceToDevice);
  ASSERT_EQ(count(FindingKind::RaceWriteRead), 1u) << report();
  EXPECT_EQ(findings()[0].memory.overlap_begin, X);
}

} // namespace
} // namespace streamrace::testing
