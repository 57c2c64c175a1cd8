// History names where each op came from by an id into the origins table; a finding must still
// say, in full, which call site, host thread and NVTX range enqueued the earlier access.
#include "engine_fixture.h"
#include "streamrace/runtime/op_origins.h"

namespace streamrace::testing {
namespace {

TEST(OpOrigins, EqualOriginsShareAnIdAndTheUnknownOneIsZero) {
  OpOrigins origins;
  EXPECT_EQ(origins.intern({}), 0u);
  const OriginId a = origins.intern({3, 1, 7});
  const OriginId b = origins.intern({3, 1, 8}); // another thread at the same place
  const OriginId c = origins.intern({4, 1, 7});
  EXPECT_NE(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(b, c);
  EXPECT_EQ(origins.intern({3, 1, 7}), a);
  EXPECT_EQ(origins.intern({4, 1, 7}), c);
  EXPECT_EQ(origins.intern({3, 1, 8}), b);
  EXPECT_EQ(origins[b], (OpOrigin{3, 1, 8}));
  EXPECT_EQ(origins.size(), 4u);
}

constexpr StreamHandle S1 = 0x100, S2 = 0x200;
constexpr Address X = 0x10000;

class Origins : public EngineTest {};

TEST_F(Origins, AFindingNamesTheEarlierAccessSiteThreadAndNvtxRange) {
  stream(S1, StreamKind::NonBlocking);
  stream(S2, StreamKind::NonBlocking);
  malloc(X, 256);
  const CallSiteId producer = site("cudaLaunchKernel", "produce", 10);
  const CallSiteId consumer = site("cudaLaunchKernel", "consume", 20);
  thread = 7;
  emit(NvtxRangePush{symbols_.intern("forward")});
  write(S1, X, 256, producer);
  emit(NvtxRangePop{});
  thread = 9;
  for (int i = 0; i < 3; ++i)
    read(S2, X, 256, consumer); // each races the write
  ASSERT_EQ(findings().size(), 1u) << report();
  const Finding& race = findings()[0];
  EXPECT_EQ(race.first.access.site, producer);
  EXPECT_EQ(race.first.access.thread, 7u);
  EXPECT_NE(race.first.access.nvtx, 0u);
  EXPECT_EQ(race.second.access.site, consumer);
  EXPECT_EQ(race.second.access.thread, 9u);
  EXPECT_EQ(race.second.access.nvtx, 0u);
  EXPECT_EQ(race.count, 3u);
}

} // namespace
} // namespace streamrace::testing
