// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// SARIF locations: files under --source-root are named relative to %SRCROOT%, other absolute
// files become percent-encoded file:// URIs, relative names stay relative to %SRCROOT%.
#include "engine_fixture.h"

#include "streamrace/report/finding_id.h"
#include "streamrace/report/finding_sarif.h"

#include <cstdio>

namespace streamrace::testing {
namespace {

constexpr StreamHandle S1 = 0xa00, S2 = 0xb00;
constexpr Address X = 0x10000;

class SarifTest : public EngineTest {
protected:
  CallSiteId at(const std::string& file, std::uint32_t line) {
    return symbols_.add_call_site(CallSite{"cudaLaunchKernel", {StackFrame{"f", file, line}}});
  }
  std::string race_between(const std::string& first, const std::string& second) {
    stream(S1);
    stream(S2);
    write(S1, X, 4, at(first, 10));
    read(S2, X, 4, at(second, 20));
    return findings_sarif(findings(), engine_, symbols_, SarifOptions{"/src/proj/"});
  }
};

TEST_F(SarifTest, FilesUnderTheSourceRootAreRelativeToIt) {
  const std::string sarif = race_between("/src/proj/lib/a.cu", "/src/proj/main.cu");
  EXPECT_NE(sarif.find(R"("originalUriBaseIds":{"%SRCROOT%":{"uri":"file:///src/proj/"}})"),
            std::string::npos);
  EXPECT_NE(sarif.find(R"({"uri":"main.cu","uriBaseId":"%SRCROOT%"},"region":{"startLine":20})"),
            std::string::npos);
  EXPECT_NE(sarif.find(R"({"uri":"lib/a.cu","uriBaseId":"%SRCROOT%"},"region":{"startLine":10})"),
            std::string::npos);
}

TEST_F(SarifTest, OtherFilesAreFileUrisOrRelativeNames) {
  const std::string sarif = race_between("/opt/other dir/a#1.cu", "kernels/b.cu");
  EXPECT_NE(sarif.find(R"({"uri":"file:///opt/other%20dir/a%231.cu"})"), std::string::npos);
  EXPECT_NE(sarif.find(R"({"uri":"kernels/b.cu","uriBaseId":"%SRCROOT%"})"), std::string::npos);
}

TEST_F(SarifTest, ASiblingSharingTheRootsPrefixIsNotUnderIt) {
  const std::string sarif = race_between("/src/projects/x.cu", "/src/proj/y.cu");
  EXPECT_NE(sarif.find(R"({"uri":"file:///src/projects/x.cu"})"), std::string::npos);
  EXPECT_NE(sarif.find(R"({"uri":"y.cu","uriBaseId":"%SRCROOT%"})"), std::string::npos);
}

// A result names its rule by index: the rules stand in FindingKind's order.
TEST_F(SarifTest, EveryKindIsTheRuleAtItsIndex) {
  const std::string sarif = race_between("/src/proj/a.cu", "/src/proj/b.cu");
  std::size_t previous = 0;
  for (const FindingKindInfo& kind : kFindingKinds) {
    const std::size_t at = sarif.find(R"({"id":"streamrace-)" + std::string(kind.id) +
                                      R"(","name":")" + kind.rule_name + R"(")");
    ASSERT_NE(at, std::string::npos) << kind.rule_name;
    EXPECT_GT(at, previous) << kind.rule_name;
    previous = at;
  }
  EXPECT_NE(sarif.find(R"("ruleId":"streamrace-race-write-read","ruleIndex":1,)"),
            std::string::npos);
}

TEST_F(SarifTest, TheFingerprintIsTheIdsSource) {
  race_between("/src/proj/a.cu", "/src/proj/b.cu");
  ASSERT_EQ(findings().size(), 1u);
  const std::uint64_t fingerprint = finding_fingerprint(findings()[0], engine_, symbols_);
  char expected[16];
  std::snprintf(expected, sizeof(expected), "SR-%08x", static_cast<unsigned>(fingerprint >> 32));
  EXPECT_EQ(finding_id(findings()[0], engine_, symbols_), expected);
}

} // namespace
} // namespace streamrace::testing
