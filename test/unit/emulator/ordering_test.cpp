// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Every ordering the runtime guarantees holds on the emulator (docs/semantics.md rules 2-6, 9), and
// work nothing orders really runs at the same time.
#include "emulator_test_support.h"

#include <mutex>
#include <vector>

// What code compiled with --default-stream per-thread calls; the headers declare them only then.
extern "C" cudaError_t cudaStreamGetId_ptsz(cudaStream_t hStream, unsigned long long* streamId);
extern "C" cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn,
                                               void* userData);

namespace streamrace::emu::test {
namespace {

class StreamPair : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_CUDA_OK(cudaStreamCreate(&first));
    ASSERT_CUDA_OK(cudaStreamCreate(&second));
  }
  void TearDown() override {
    EXPECT_EQ(cudaStreamDestroy(first), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(second), cudaSuccess);
  }
  cudaStream_t first = nullptr;
  cudaStream_t second = nullptr;
};

TEST_F(StreamPair, WorkWaitingOnAnEventNeverStartsBeforeTheRecordedWork) {
  Flag slowWork;
  Observation after{&slowWork};
  cudaEvent_t recorded;
  ASSERT_CUDA_OK(cudaEventCreate(&recorded));
  ASSERT_CUDA_OK(cudaLaunchHostFunc(first, sleepThenSet, &slowWork));
  ASSERT_CUDA_OK(cudaEventRecord(recorded, first));
  ASSERT_CUDA_OK(cudaStreamWaitEvent(second, recorded, 0));
  ASSERT_CUDA_OK(cudaLaunchHostFunc(second, observe, &after));
  ASSERT_CUDA_OK(cudaStreamSynchronize(second));
  EXPECT_TRUE(after.ran);
  EXPECT_TRUE(after.sawSet);
  ASSERT_CUDA_OK(cudaEventDestroy(recorded));
}

TEST_F(StreamPair, AWaitKeepsTheSnapshotItSawWhenTheEventIsRecordedAgain) {
  Flag early;
  Flag late;
  Observation afterWait{&late};
  cudaEvent_t recorded;
  ASSERT_CUDA_OK(cudaEventCreate(&recorded));
  ASSERT_CUDA_OK(cudaLaunchHostFunc(first, setFlag, &early));
  ASSERT_CUDA_OK(cudaEventRecord(recorded, first));
  ASSERT_CUDA_OK(cudaStreamWaitEvent(second, recorded, 0));
  ASSERT_CUDA_OK(cudaLaunchHostFunc(first, sleepThenSet, &late));
  ASSERT_CUDA_OK(cudaEventRecord(recorded, first));
  ASSERT_CUDA_OK(cudaLaunchHostFunc(second, observe, &afterWait));
  ASSERT_CUDA_OK(cudaStreamSynchronize(second));
  EXPECT_TRUE(afterWait.ran);
  EXPECT_FALSE(afterWait.sawSet);
  ASSERT_CUDA_OK(cudaDeviceSynchronize());
  ASSERT_CUDA_OK(cudaEventDestroy(recorded));
}

TEST_F(StreamPair, WaitingOnANeverRecordedEventOrdersNothing) {
  Meeting meeting;
  cudaEvent_t neverRecorded;
  ASSERT_CUDA_OK(cudaEventCreate(&neverRecorded));
  ASSERT_CUDA_OK(cudaLaunchHostFunc(first, meetFirst, &meeting));
  ASSERT_CUDA_OK(cudaStreamWaitEvent(second, neverRecorded, 0));
  ASSERT_CUDA_OK(cudaLaunchHostFunc(second, meetSecond, &meeting));
  ASSERT_CUDA_OK(cudaDeviceSynchronize());
  EXPECT_EQ(meeting.met, 2);
  ASSERT_CUDA_OK(cudaEventDestroy(neverRecorded));
}

TEST_F(StreamPair, UnorderedStreamsRunAtTheSameTime) {
  Meeting meeting;
  ASSERT_CUDA_OK(cudaLaunchHostFunc(first, meetFirst, &meeting));
  ASSERT_CUDA_OK(cudaLaunchHostFunc(second, meetSecond, &meeting));
  ASSERT_CUDA_OK(cudaDeviceSynchronize());
  EXPECT_EQ(meeting.met, 2);
}

// Reads the first byte of device memory (host memory on the emulator) into a slot.
struct ByteRead {
  const unsigned char* device = nullptr;
  int seen = -1;
};

void CUDART_CB readByte(void* read) {
  auto* slot = static_cast<ByteRead*>(read);
  slot->seen = *slot->device;
}

// The device dispatches ready work in submission order and lets a short undelayed set finish
// before later work starts (emulator/README.md, "Scheduling"): with nothing ordering them, a
// read submitted after a set on another stream sees the set's value every time.
TEST_F(StreamPair, ReadyShortWorkFinishesBeforeLaterWorkOnOtherStreamsStarts) {
  constexpr int rounds = 50;
  unsigned char* device = nullptr;
  ASSERT_CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&device), rounds));
  ASSERT_CUDA_OK(cudaMemset(device, 0, rounds));
  ASSERT_CUDA_OK(cudaDeviceSynchronize());
  std::vector<ByteRead> reads(rounds);
  for (int round = 0; round < rounds; ++round) {
    ASSERT_CUDA_OK(cudaMemsetAsync(device + round, round + 1, 1, first));
    reads[static_cast<std::size_t>(round)].device = device + round;
    ASSERT_CUDA_OK(cudaLaunchHostFunc(second, readByte, &reads[static_cast<std::size_t>(round)]));
  }
  ASSERT_CUDA_OK(cudaDeviceSynchronize());
  for (int round = 0; round < rounds; ++round) {
    EXPECT_EQ(reads[static_cast<std::size_t>(round)].seen, round + 1) << "round " << round;
  }
  ASSERT_CUDA_OK(cudaFree(device));
}

// Work that is not ready yet (here a set queued behind a slow host function) holds nothing back:
// later work on another stream runs before it, so unordered work still races.
TEST_F(StreamPair, WorkNotYetReadyHoldsNothingBack) {
  unsigned char* device = nullptr;
  ASSERT_CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&device), 1));
  ASSERT_CUDA_OK(cudaMemset(device, 0, 1));
  ASSERT_CUDA_OK(cudaDeviceSynchronize());
  Flag slowWork;
  ASSERT_CUDA_OK(cudaLaunchHostFunc(first, sleepThenSet, &slowWork));
  ASSERT_CUDA_OK(cudaMemsetAsync(device, 7, 1, first));
  ByteRead read{device};
  ASSERT_CUDA_OK(cudaLaunchHostFunc(second, readByte, &read));
  ASSERT_CUDA_OK(cudaStreamSynchronize(second));
  EXPECT_EQ(read.seen, 0);
  EXPECT_FALSE(slowWork.set);
  ASSERT_CUDA_OK(cudaDeviceSynchronize());
  ASSERT_CUDA_OK(cudaFree(device));
}

TEST_F(StreamPair, HostFunctionsRunInStreamOrderOnARuntimeThread) {
  struct Log {
    std::mutex mutex;
    std::vector<int> order;
    std::thread::id thread;
  } log;
  struct Entry {
    Log* log;
    int index;
  };
  std::vector<Entry> entries;
  for (int index = 0; index < 8; ++index) {
    entries.push_back(Entry{&log, index});
  }
  for (Entry& entry : entries) {
    ASSERT_CUDA_OK(cudaLaunchHostFunc(
        first,
        [](void* data) {
          auto* entry = static_cast<Entry*>(data);
          if (entry->index % 2 == 0) {
            std::this_thread::sleep_for(5ms);
          }
          std::lock_guard lock(entry->log->mutex);
          entry->log->order.push_back(entry->index);
          entry->log->thread = std::this_thread::get_id();
        },
        &entry));
  }
  ASSERT_CUDA_OK(cudaStreamSynchronize(first));
  EXPECT_EQ(log.order, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_NE(log.thread, std::this_thread::get_id());
}

TEST_F(StreamPair, TheLegacyStreamWaitsForBlockingStreamsAndTheyWaitForIt) {
  Flag blockingWork;
  Observation legacySaw{&blockingWork};
  ASSERT_CUDA_OK(cudaLaunchHostFunc(first, sleepThenSet, &blockingWork));
  ASSERT_CUDA_OK(cudaLaunchHostFunc(0, observe, &legacySaw));
  Flag legacyWork;
  Observation blockingSaw{&legacyWork};
  ASSERT_CUDA_OK(cudaLaunchHostFunc(cudaStreamLegacy, sleepThenSet, &legacyWork));
  ASSERT_CUDA_OK(cudaLaunchHostFunc(second, observe, &blockingSaw));
  ASSERT_CUDA_OK(cudaDeviceSynchronize());
  EXPECT_TRUE(legacySaw.sawSet);
  EXPECT_TRUE(blockingSaw.sawSet);
}

TEST(LegacyStream, NonBlockingStreamsTakeNoPartInItsImplicitSynchronization) {
  cudaStream_t nonBlocking;
  ASSERT_CUDA_OK(cudaStreamCreateWithFlags(&nonBlocking, cudaStreamNonBlocking));
  Meeting meeting;
  ASSERT_CUDA_OK(cudaLaunchHostFunc(nonBlocking, meetFirst, &meeting));
  ASSERT_CUDA_OK(cudaLaunchHostFunc(0, meetSecond, &meeting));
  ASSERT_CUDA_OK(cudaDeviceSynchronize());
  EXPECT_EQ(meeting.met, 2);
  ASSERT_CUDA_OK(cudaStreamDestroy(nonBlocking));
}

TEST(PerThreadStream, BehavesAsABlockingStreamOfItsOwnThread) {
  Flag perThreadWork;
  Observation legacySaw{&perThreadWork};
  ASSERT_CUDA_OK(cudaLaunchHostFunc(cudaStreamPerThread, sleepThenSet, &perThreadWork));
  ASSERT_CUDA_OK(cudaLaunchHostFunc(cudaStreamLegacy, observe, &legacySaw));
  ASSERT_CUDA_OK(cudaDeviceSynchronize());
  EXPECT_TRUE(legacySaw.sawSet);

  unsigned long long mainId = 0;
  unsigned long long otherId = 0;
  ASSERT_CUDA_OK(cudaStreamGetId(cudaStreamPerThread, &mainId));
  std::thread([&otherId] {
    EXPECT_EQ(cudaStreamGetId(cudaStreamPerThread, &otherId), cudaSuccess);
  }).join();
  EXPECT_NE(mainId, otherId);
  unsigned long long viaPtsz = 0;
  ASSERT_CUDA_OK(cudaStreamGetId_ptsz(nullptr, &viaPtsz));
  EXPECT_EQ(viaPtsz, mainId);
}

TEST(PerThreadStream, ZeroMeansTheCallingThreadsOwnStreamInThePtszEntryPoints) {
  // Another thread's per-thread stream is a blocking stream: the legacy stream waits for it,
  // this thread's per-thread stream does not.
  Flag otherThreadsWork;
  std::thread([&otherThreadsWork] {
    EXPECT_EQ(cudaLaunchHostFunc(cudaStreamPerThread, sleepThenSet, &otherThreadsWork),
              cudaSuccess);
  }).join();
  Observation perThreadSaw{&otherThreadsWork};
  Observation legacySaw{&otherThreadsWork};
  ASSERT_CUDA_OK(cudaLaunchHostFunc_ptsz(nullptr, observe, &perThreadSaw));
  ASSERT_CUDA_OK(cudaLaunchHostFunc(nullptr, observe, &legacySaw));
  ASSERT_CUDA_OK(cudaDeviceSynchronize());
  EXPECT_FALSE(perThreadSaw.sawSet);
  EXPECT_TRUE(legacySaw.sawSet);
}

TEST_F(StreamPair, HostWaitsReturnOnlyAfterTheAwaitedWork) {
  Flag streamWork;
  ASSERT_CUDA_OK(cudaLaunchHostFunc(first, sleepThenSet, &streamWork));
  EXPECT_EQ(cudaStreamQuery(first), cudaErrorNotReady);
  ASSERT_CUDA_OK(cudaStreamSynchronize(first));
  EXPECT_TRUE(streamWork.set);
  EXPECT_EQ(cudaStreamQuery(first), cudaSuccess);

  Flag eventWork;
  cudaEvent_t recorded;
  ASSERT_CUDA_OK(cudaEventCreate(&recorded));
  EXPECT_EQ(cudaEventQuery(recorded), cudaSuccess);
  ASSERT_CUDA_OK(cudaLaunchHostFunc(first, sleepThenSet, &eventWork));
  ASSERT_CUDA_OK(cudaEventRecord(recorded, first));
  EXPECT_EQ(cudaEventQuery(recorded), cudaErrorNotReady);
  ASSERT_CUDA_OK(cudaEventSynchronize(recorded));
  EXPECT_TRUE(eventWork.set);
  ASSERT_CUDA_OK(cudaEventDestroy(recorded));

  Flag one;
  Flag other;
  ASSERT_CUDA_OK(cudaLaunchHostFunc(first, sleepThenSet, &one));
  ASSERT_CUDA_OK(cudaLaunchHostFunc(second, sleepThenSet, &other));
  ASSERT_CUDA_OK(cudaDeviceSynchronize());
  EXPECT_TRUE(one.set);
  EXPECT_TRUE(other.set);
}

TEST_F(StreamPair, ElapsedTimeMeasuresTheWorkBetweenTwoEvents) {
  cudaEvent_t start, stop;
  ASSERT_CUDA_OK(cudaEventCreate(&start));
  ASSERT_CUDA_OK(cudaEventCreate(&stop));
  Flag work;
  ASSERT_CUDA_OK(cudaEventRecord(start, first));
  ASSERT_CUDA_OK(cudaLaunchHostFunc(first, sleepThenSet, &work));
  ASSERT_CUDA_OK(cudaEventRecord(stop, first));
  float pending = 0;
  EXPECT_EQ(cudaEventElapsedTime(&pending, start, stop), cudaErrorNotReady);
  ASSERT_CUDA_OK(cudaEventSynchronize(stop));
  float milliseconds = 0;
  ASSERT_CUDA_OK(cudaEventElapsedTime(&milliseconds, start, stop));
  const float slowMilliseconds = std::chrono::duration<float, std::milli>(slowOperation).count();
  EXPECT_GE(milliseconds, slowMilliseconds * 0.9f);
  ASSERT_CUDA_OK(cudaEventDestroy(start));
  ASSERT_CUDA_OK(cudaEventDestroy(stop));
}

TEST_F(StreamPair, StreamCallbacksSeeTheStreamTheyWereAddedTo) {
  struct Seen {
    cudaStream_t stream = nullptr;
    cudaError_t status = cudaErrorUnknown;
  } seen;
  ASSERT_CUDA_OK(cudaStreamAddCallback(
      first,
      [](cudaStream_t stream, cudaError_t status, void* data) {
        static_cast<Seen*>(data)->stream = stream;
        static_cast<Seen*>(data)->status = status;
      },
      &seen, 0));
  ASSERT_CUDA_OK(cudaStreamSynchronize(first));
  EXPECT_EQ(seen.stream, first);
  EXPECT_EQ(seen.status, cudaSuccess);
}

TEST(StreamLifetime, DestroyingAStreamLetsItsEnqueuedWorkFinish) {
  std::vector<Flag> flags(64);
  for (Flag& flag : flags) {
    cudaStream_t stream;
    ASSERT_CUDA_OK(cudaStreamCreate(&stream));
    ASSERT_CUDA_OK(cudaLaunchHostFunc(stream, setFlag, &flag));
    ASSERT_CUDA_OK(cudaStreamDestroy(stream));
  }
  Flag slow;
  cudaStream_t last;
  ASSERT_CUDA_OK(cudaStreamCreate(&last));
  ASSERT_CUDA_OK(cudaLaunchHostFunc(last, sleepThenSet, &slow));
  ASSERT_CUDA_OK(cudaStreamDestroy(last));
  EXPECT_FALSE(slow.set);
  ASSERT_CUDA_OK(cudaDeviceSynchronize());
  EXPECT_TRUE(slow.set);
  for (const Flag& flag : flags) {
    EXPECT_TRUE(flag.set);
  }
}

TEST(Devices, StreamsBelongToTheDeviceCurrentAtCreation) {
  int count = 0;
  ASSERT_CUDA_OK(cudaGetDeviceCount(&count));
  ASSERT_GE(count, 2);
  ASSERT_CUDA_OK(cudaSetDevice(1));
  cudaStream_t onOne;
  ASSERT_CUDA_OK(cudaStreamCreate(&onOne));
  ASSERT_CUDA_OK(cudaSetDevice(0));
  int device = -1;
  ASSERT_CUDA_OK(cudaStreamGetDevice(onOne, &device));
  EXPECT_EQ(device, 1);
  ASSERT_CUDA_OK(cudaStreamDestroy(onOne));
}

} // namespace
} // namespace streamrace::emu::test
