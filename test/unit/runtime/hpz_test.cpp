// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The hpZ race (reference_hpz/README.md) as a synthetic event sequence: reported with the event
// that fixes it; both fixes and the zero3 baseline are silent.
#include "hpz_events.h"

#include "streamrace/engine/engine.h"
#include "streamrace/report/finding_text.h"

#include <gtest/gtest.h>

namespace streamrace {
namespace {

using examples::HpzMode;

struct HpzRun {
  SymbolTable symbols;
  Engine engine;
  explicit HpzRun(HpzMode mode) {
    for (const Event& event : examples::hpz_events(mode, symbols))
      engine.process(event);
    engine.finish();
  }
  std::string text() const {
    std::string out;
    for (const Finding& f : engine.findings().all())
      out += describe_finding(f, engine, symbols);
    return out;
  }
};

TEST(Hpz, BuggyModeReportsTheCopyGatherRace) {
  HpzRun run(HpzMode::Buggy);
  const auto& findings = run.engine.findings().all();
  ASSERT_EQ(findings.size(), 1u) << run.text();
  const Finding& race = findings[0];
  EXPECT_EQ(race.kind, FindingKind::RaceWriteRead);
  EXPECT_EQ(run.symbols.call_site(race.first.access.site)->api, "cudaMemcpyAsync");
  EXPECT_EQ(run.symbols.call_site(race.second.access.site)->api, "ncclAllGather");
  EXPECT_EQ(run.symbols.name(run.engine.ordering().actor(race.first.access.actor).name), "C");
  EXPECT_EQ(run.symbols.name(run.engine.ordering().actor(race.second.access.actor).name), "A");
  EXPECT_EQ(race.fix.kind, FixSuggestion::Kind::RecordAndWait);
  EXPECT_EQ(race.ranks, (std::vector<RankId>{0, 1, 2, 3}));
  const std::string text = run.text();
  EXPECT_NE(text.find("To fix: record an event on stream 'C' after the cudaMemcpyAsync "
                      "(hpz_step.cpp:64); make stream 'A' wait on it before the ncclAllGather "
                      "(hpz_step.cpp:81)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("secondary shard of layer"), std::string::npos) << text;
}

TEST(Hpz, HostSyncFixIsSilent) {
  EXPECT_TRUE(HpzRun(HpzMode::FixHostSync).engine.findings().empty());
}
TEST(Hpz, EventFixIsSilent) {
  EXPECT_TRUE(HpzRun(HpzMode::FixEvent).engine.findings().empty());
}
TEST(Hpz, Zero3IsSilent) {
  EXPECT_TRUE(HpzRun(HpzMode::Zero3).engine.findings().empty());
}

} // namespace
} // namespace streamrace
