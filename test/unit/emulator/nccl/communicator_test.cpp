// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "communicator.h"
#include "unique_id.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <numeric>
#include <thread>
#include <vector>

namespace streamrace::emu::nccl {
namespace {

// Small staging and no simulated time: large calls go through many rounds, quickly.
CommunicatorSettings testSettings(std::int64_t timeoutMs = 5000) {
  CommunicatorSettings settings;
  settings.timeoutMs = timeoutMs;
  settings.sizes = {4096, 1024};
  settings.link.timeScale = 0;
  return settings;
}

// Runs body(communicator) on `ranks` threads, each joined to one fresh communicator.
void onRanks(int ranks, const std::function<void(Communicator&)>& body,
             const CommunicatorSettings& settings = testSettings()) {
  const std::string name = newSegmentName();
  std::vector<std::thread> threads;
  for (int rank = 0; rank < ranks; ++rank) {
    threads.emplace_back([&, rank] {
      auto communicator = Communicator::join(name, displayNameOf(name), ranks, rank,
                                             RankPlacement{rank, rank / 2}, settings);
      body(*communicator);
    });
  }
  for (auto& thread : threads) {
    thread.join();
  }
}

CollectiveCall call(Communicator& communicator, CollectiveKind kind, const void* send,
                    void* receive, std::size_t count, ncclDataType_t datatype = ncclInt32,
                    ncclRedOp_t op = ncclSum, int root = -1) {
  return CollectiveCall{kind,     send, receive, count,
                        datatype, op,   root,    communicator.takeCollectiveSequence()};
}

TEST(Communicator, AllGatherInRoundsAcrossFourRanks) {
  constexpr std::size_t kCount = 3000; // 12 KB per rank: several 4 KiB rounds
  onRanks(4, [](Communicator& comm) {
    std::vector<std::int32_t> send(kCount, comm.rank() + 1);
    std::vector<std::int32_t> receive(kCount * 4, 0);
    ASSERT_TRUE(comm.runCollective(
        call(comm, CollectiveKind::AllGather, send.data(), receive.data(), kCount)))
        << comm.lastError();
    for (std::size_t i = 0; i < receive.size(); ++i) {
      ASSERT_EQ(receive[i], static_cast<std::int32_t>(i / kCount) + 1);
    }
  });
}

TEST(Communicator, ReducingCollectives) {
  constexpr std::size_t kCount = 2500;
  onRanks(3, [](Communicator& comm) {
    const int n = comm.rankCount();
    std::vector<std::int32_t> send(kCount * n);
    std::iota(send.begin(), send.end(), comm.rank() * 10);
    std::vector<std::int32_t> allReduced(kCount * n);
    ASSERT_TRUE(comm.runCollective(
        call(comm, CollectiveKind::AllReduce, send.data(), allReduced.data(), kCount * n)));
    // sum over r of (i + 10 r) = n i + 10 (0 + 1 + 2)
    for (std::size_t i = 0; i < allReduced.size(); ++i) {
      ASSERT_EQ(allReduced[i], static_cast<std::int32_t>(n * i + 30));
    }
    std::vector<std::int32_t> scattered(kCount);
    ASSERT_TRUE(comm.runCollective(
        call(comm, CollectiveKind::ReduceScatter, send.data(), scattered.data(), kCount)));
    for (std::size_t i = 0; i < kCount; ++i) {
      ASSERT_EQ(scattered[i], static_cast<std::int32_t>(n * (comm.rank() * kCount + i) + 30));
    }
    std::vector<std::int32_t> reduced(kCount, -1);
    ASSERT_TRUE(comm.runCollective(call(comm, CollectiveKind::Reduce, send.data(), reduced.data(),
                                        kCount, ncclInt32, ncclMax, 1)));
    EXPECT_EQ(reduced[5], comm.rank() == 1 ? 25 : -1);
  });
}

TEST(Communicator, RootedAndAllToAll) {
  onRanks(2, [](Communicator& comm) {
    const int rank = comm.rank();
    std::vector<std::int32_t> value{rank == 1 ? 42 : 0, rank == 1 ? 43 : 0};
    ASSERT_TRUE(comm.runCollective(call(comm, CollectiveKind::Broadcast, value.data(), value.data(),
                                        2, ncclInt32, ncclSum, 1)));
    EXPECT_EQ(value, (std::vector<std::int32_t>{42, 43}));

    std::vector<std::int32_t> send{rank * 10, rank * 10 + 1};
    std::vector<std::int32_t> exchanged(2);
    ASSERT_TRUE(
        comm.runCollective(call(comm, CollectiveKind::AllToAll, send.data(), exchanged.data(), 1)));
    EXPECT_EQ(exchanged, (std::vector<std::int32_t>{rank, 10 + rank}));

    std::vector<std::int32_t> gathered(2, -1);
    ASSERT_TRUE(comm.runCollective(call(comm, CollectiveKind::Gather, send.data(), gathered.data(),
                                        1, ncclInt32, ncclSum, 0)));
    EXPECT_EQ(gathered,
              rank == 0 ? (std::vector<std::int32_t>{0, 10}) : (std::vector<std::int32_t>{-1, -1}));

    std::vector<std::int32_t> piece(1);
    ASSERT_TRUE(comm.runCollective(
        call(comm, CollectiveKind::Scatter, send.data(), piece.data(), 1, ncclInt32, ncclSum, 1)));
    EXPECT_EQ(piece[0], 10 + rank);
  });
}

TEST(Communicator, PointToPointRingInOneBatch) {
  constexpr std::size_t kCount = 1000; // 4 KB: four 1 KiB chunks each way
  onRanks(3, [](Communicator& comm) {
    const int n = comm.rankCount();
    const int next = (comm.rank() + 1) % n;
    const int previous = (comm.rank() + n - 1) % n;
    std::vector<std::int32_t> send(kCount, comm.rank());
    std::vector<std::int32_t> receive(kCount, -1);
    const PointToPointCall calls[] = {
        {TransferDirection::Send, send.data(), nullptr, kCount, ncclInt32, next,
         comm.takeMessageIndex(TransferDirection::Send, next)},
        {TransferDirection::Receive, nullptr, receive.data(), kCount, ncclInt32, previous,
         comm.takeMessageIndex(TransferDirection::Receive, previous)}};
    ASSERT_TRUE(comm.runPointToPoint(calls)) << comm.lastError();
    EXPECT_EQ(receive, std::vector<std::int32_t>(kCount, previous));
  });
}

TEST(Communicator, MismatchedCollectivesFailOnEveryRankNamingThem) {
  onRanks(2, [](Communicator& comm) {
    std::vector<float> buffer(8);
    const CollectiveKind kind =
        comm.rank() == 0 ? CollectiveKind::AllReduce : CollectiveKind::AllGather;
    EXPECT_FALSE(
        comm.runCollective(call(comm, kind, buffer.data(), buffer.data(), 4, ncclFloat32)));
    EXPECT_EQ(comm.asyncError(), ncclSystemError);
    EXPECT_NE(
        comm.lastError().find("collective mismatch on communicator " + comm.displayName() +
                              " (2 ranks) at collective #0: rank 0 called ncclAllReduce(count=4, "
                              "datatype=ncclFloat32, op=ncclSum); rank 1 called "
                              "ncclAllGather(count=4, datatype=ncclFloat32)"),
        std::string::npos)
        << comm.lastError();
    // The communicator stays failed: later calls fail at once instead of hanging.
    EXPECT_FALSE(
        comm.runCollective(call(comm, CollectiveKind::AllReduce, buffer.data(), buffer.data(), 4)));
  });
}

TEST(Communicator, MissingRankTimesOutNamingIt) {
  onRanks(
      2,
      [](Communicator& comm) {
        if (comm.rank() == 1) {
          return;
        }
        std::int32_t value = 0;
        EXPECT_FALSE(comm.runCollective(call(comm, CollectiveKind::AllReduce, &value, &value, 1)));
        EXPECT_NE(comm.lastError().find("timed out after 200 ms on communicator " +
                                        comm.displayName() +
                                        " (2 ranks) at collective #0: rank 0 called ncclAllReduce"),
                  std::string::npos)
            << comm.lastError();
        EXPECT_NE(comm.lastError().find("but rank 1 never reached it"), std::string::npos);
      },
      testSettings(200));
}

TEST(Communicator, PointToPointSizeMismatchIsReported) {
  onRanks(
      2,
      [](Communicator& comm) {
        std::vector<std::int32_t> buffer(4);
        const int peer = 1 - comm.rank();
        const PointToPointCall transfer =
            comm.rank() == 0
                ? PointToPointCall{TransferDirection::Send,
                                   buffer.data(),
                                   nullptr,
                                   4,
                                   ncclInt32,
                                   peer,
                                   comm.takeMessageIndex(TransferDirection::Send, peer)}
                : PointToPointCall{TransferDirection::Receive,
                                   nullptr,
                                   buffer.data(),
                                   2,
                                   ncclInt32,
                                   peer,
                                   comm.takeMessageIndex(TransferDirection::Receive, peer)};
        // The receiver sees the size it did not expect; the send, which holds on until its
        // receive takes the data, fails with the receiver's reason rather than waiting for ever.
        const bool succeeded = comm.runPointToPoint({&transfer, 1});
        EXPECT_FALSE(succeeded);
        EXPECT_NE(comm.lastError().find("rank 0 sent 16 bytes (send #0 to rank 1) but rank 1 "
                                        "receives 8 bytes"),
                  std::string::npos)
            << comm.lastError();
        if (comm.rank() == 0) {
          EXPECT_NE(comm.lastError().find("rank 1 of communicator"), std::string::npos)
              << comm.lastError();
        }
      },
      testSettings(300));
}

// Four ranks on two nodes, a link slow enough that one AllGather takes 100 ms: the collective
// lasts that long, and the time scale shrinks it.
double allGatherSeconds(double timeScale) {
  CommunicatorSettings settings = testSettings();
  settings.link.interNodeGbps = 3000 * 8 / 0.1 / 1e9; // 3000 bytes per link in 100 ms
  settings.link.interNodeLatencyMicroseconds = 0;
  settings.link.timeScale = timeScale;
  std::atomic<double> slowest{0};
  onRanks(
      4,
      [&](Communicator& comm) {
        std::vector<std::int32_t> send(250, 1); // 1000 bytes
        std::vector<std::int32_t> receive(1000);
        const auto start = std::chrono::steady_clock::now();
        ASSERT_TRUE(comm.runCollective(
            call(comm, CollectiveKind::AllGather, send.data(), receive.data(), 250)));
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        double seen = slowest.load();
        while (seconds > seen && !slowest.compare_exchange_weak(seen, seconds)) {
        }
      },
      settings);
  return slowest.load();
}

TEST(Communicator, CollectivesTakeTheLinkModelsTimeScaled) {
  const double full = allGatherSeconds(1.0);
  const double scaled = allGatherSeconds(0.05);
  EXPECT_GE(full, 0.1);
  // The scaled run sleeps 5 ms instead of 100; compared with the full run, so that a loaded
  // machine slowing both alike does not matter.
  EXPECT_LT(scaled, full - 0.05);
}

TEST(Communicator, TwoThreadRanksOnOneDeviceAreRefused) {
  const std::string name = newSegmentName();
  std::vector<std::string> errors(2);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < 2; ++rank) {
    threads.emplace_back([&, rank] {
      try {
        Communicator::join(name, "shared-device", 2, rank, RankPlacement{0, 0}, testSettings());
      } catch (const CommunicatorError& error) {
        EXPECT_EQ(error.result(), ncclInvalidUsage);
        errors[rank] = error.what();
      }
    });
  }
  for (auto& thread : threads) {
    thread.join();
  }
  for (const std::string& error : errors) {
    EXPECT_NE(error.find("duplicate GPU detected: rank 0 and rank 1 are threads of process"),
              std::string::npos)
        << error;
  }
}

TEST(Communicator, JoinTimesOutWhenARankNeverArrives) {
  const std::string name = newSegmentName();
  try {
    Communicator::join(name, "lonely", 2, 0, RankPlacement{}, testSettings(100));
    FAIL() << "join should time out";
  } catch (const CommunicatorError& error) {
    EXPECT_EQ(error.result(), ncclSystemError);
    EXPECT_NE(std::string(error.what()).find("rank 1 never joined"), std::string::npos)
        << error.what();
  }
}

} // namespace
} // namespace streamrace::emu::nccl
