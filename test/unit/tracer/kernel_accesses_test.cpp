// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "kernels/kernel_accesses.h"
#include "kernels/kernel_rules.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <span>

namespace streamrace::tracer {
namespace {

TEST(KernelAnnotation, ParsesModesAndExtents) {
  const ParsedAnnotation parsed = parse_annotation("w[p2*4], r[4096],-,rw");
  ASSERT_TRUE(parsed.rules) << parsed.error;
  const auto& p = parsed.rules->parameters;
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0].mode, AccessMode::Write);
  EXPECT_EQ(p[0].extent, ExtentRule::ParameterTimes);
  EXPECT_EQ(p[0].parameter, 2u);
  EXPECT_EQ(p[0].bytes, 4u);
  EXPECT_EQ(p[1].mode, AccessMode::Read);
  EXPECT_EQ(p[1].extent, ExtentRule::Bytes);
  EXPECT_EQ(p[1].bytes, 4096u);
  EXPECT_FALSE(p[2].accessed);
  EXPECT_EQ(p[3].mode, AccessMode::ReadWrite);
  EXPECT_EQ(p[3].extent, ExtentRule::ToAllocationEnd);
}

TEST(KernelAnnotation, RejectsMalformedEntriesWithTheReason) {
  EXPECT_NE(parse_annotation("x").error.find("parameter 0"), std::string::npos);
  EXPECT_NE(parse_annotation("w[p*4]").error.find("pK*N"), std::string::npos);
  EXPECT_NE(parse_annotation("w[p5*4],-").error.find("parameter 5"), std::string::npos);
  EXPECT_FALSE(parse_annotation("-[8]").rules);
}

TEST(KernelAnnotation, NvtxMessagesNameTheKernelBeforeTheLastColon) {
  const AnnotationMessage mangled = split_annotation_message("_Z4fillPfi: w[p1*4],-");
  EXPECT_EQ(mangled.kernel_name, "_Z4fillPfi");
  EXPECT_EQ(mangled.specification, "w[p1*4],-");
  const AnnotationMessage qualified = split_annotation_message(" ns::fill<int> :r, -");
  EXPECT_EQ(qualified.kernel_name, "ns::fill<int>");
  EXPECT_EQ(qualified.specification, "r, -");
  const AnnotationMessage unnamed = split_annotation_message(" rw[64],- ");
  EXPECT_EQ(unnamed.kernel_name, "");
  EXPECT_EQ(unnamed.specification, "rw[64],-");
}

TEST(KernelSummaries, ReadsTheAnalyzersFormat) {
  KernelSummaries summaries;
  ASSERT_EQ(summaries.parse(R"({"version": 1, "kernels": [{"name": "axpy",
      "mangled_name": "_Z4axpyfPKfPf", "params": [
      {"index": 0, "name": "a", "access": "none"}, {"index": 1, "name": "x", "access": "read"},
      {"index": 2, "name": "y", "access": "read_write"}]}]})"),
            "");
  const KernelRules* rules = summaries.find("_Z4axpyfPKfPf");
  ASSERT_NE(rules, nullptr);
  ASSERT_EQ(rules->parameters.size(), 3u);
  EXPECT_FALSE(rules->parameters[0].accessed);
  EXPECT_EQ(rules->parameters[1].mode, AccessMode::Read);
  EXPECT_EQ(rules->parameters[2].mode, AccessMode::ReadWrite);
  EXPECT_EQ(summaries.find("_Z5otherv"), nullptr);
}

TEST(KernelSummaries, SaysWhatIsWrong) {
  KernelSummaries summaries;
  EXPECT_NE(summaries.parse("{").find("not JSON"), std::string::npos);
  EXPECT_NE(summaries.parse(R"({"kernels": 3})").find("kernel-summaries"), std::string::npos);
  EXPECT_NE(summaries
                .parse(R"({"kernels": [{"mangled_name": "k", "params": [
      {"index": 0, "access": "sometimes"}]}]})")
                .find("sometimes"),
            std::string::npos);
}

TEST(KernelPointers, WithoutRulesEveryPointerSizedArgumentIsApproximate) {
  const std::array<std::uint32_t, 3> sizes{8, 4, 8};
  const std::array<std::uint64_t, 3> values{0x1000, 7, 0};
  std::vector<KernelPointer> pointers;
  kernel_pointers({sizes, values}, nullptr, pointers);
  ASSERT_EQ(pointers.size(), 1u); // the 4-byte scalar and the null pointer are no pointers
  EXPECT_EQ(pointers[0].address, 0x1000u);
  EXPECT_EQ(pointers[0].bytes, 0u);
  EXPECT_EQ(pointers[0].mode, AccessMode::ReadWrite);
  EXPECT_EQ(pointers[0].extent, Extent::Approximate);
}

TEST(KernelPointers, RulesGiveExactModesAndExtents) {
  const ParsedAnnotation parsed = parse_annotation("w[p2*4],-,-");
  const std::array<std::uint32_t, 3> sizes{8, 8, 4};
  const std::array<std::uint64_t, 3> values{0x1000, 0x2000, 16};
  std::vector<KernelPointer> pointers;
  kernel_pointers({sizes, values}, &*parsed.rules, pointers);
  ASSERT_EQ(pointers.size(), 1u);
  EXPECT_EQ(pointers[0].bytes, 64u);
  EXPECT_EQ(pointers[0].mode, AccessMode::Write);
  EXPECT_EQ(pointers[0].extent, Extent::Exact);
}

struct PackedArguments {
  float* output;
  const float* input;
  std::int64_t count;
  double scale;
};

// The launch of a kernel taking `packed` by value and then an int.
struct ByValueLaunch {
  PackedArguments packed;
  std::int32_t offset = 0;
  std::array<std::uint32_t, 2> sizes{sizeof(PackedArguments), 4};
  std::array<std::uint64_t, 2> values{0, 0};
  std::array<void*, 2> bytes{&packed, &offset};
  LaunchArguments arguments() const { return {sizes, values, bytes.data()}; }
};

TEST(KernelPointers, WordsOfAByValueStructThatCouldBeAddressesAreApproximateCandidates) {
  const ByValueLaunch launch{{reinterpret_cast<float*>(0x7f0000001000),
                              reinterpret_cast<float*>(0x7f0000002000), 1024, 1.5}};
  std::vector<KernelPointer> pointers;
  by_value_pointers(0, launch.arguments(), nullptr, pointers);
  ASSERT_EQ(pointers.size(), 2u); // the count and the double cannot be addresses
  EXPECT_EQ(pointers[0].address, 0x7f0000001000u);
  EXPECT_EQ(pointers[1].address, 0x7f0000002000u);
  EXPECT_EQ(pointers[1].extent, Extent::Approximate);
  EXPECT_EQ(pointers[1].mode, AccessMode::ReadWrite);

  const ParsedAnnotation unused = parse_annotation("-,rw");
  pointers.clear();
  by_value_pointers(0, launch.arguments(), &*unused.rules, pointers);
  EXPECT_TRUE(pointers.empty());
}

TEST(KernelSummaries, ReadsTheMembersOfAStructPassedByValue) {
  KernelSummaries summaries;
  ASSERT_EQ(summaries.parse(R"({"version": 1, "kernels": [{"name": "scale",
      "mangled_name": "_Z5scale15PackedArgumentsi", "params": [
      {"index": 0, "name": "packed", "access": "read_write", "fields": [
        {"offset": 0, "name": "output", "access": "write", "count_param": 0,
         "count_offset": 16, "count_bytes": 8, "element_bytes": 4},
        {"offset": 8, "name": "input", "access": "read"}]},
      {"index": 1, "name": "offset", "access": "none"}]}]})"),
            "");
  const KernelRules* rules = summaries.find("_Z5scale15PackedArgumentsi");
  ASSERT_NE(rules, nullptr);
  const std::vector<MemberRule>& members = rules->parameters[0].members;
  ASSERT_EQ(members.size(), 2u);
  EXPECT_EQ(members[0].offset, 0u);
  EXPECT_EQ(members[0].rule.mode, AccessMode::Write);
  EXPECT_EQ(members[0].rule.extent, ExtentRule::MemberTimes);
  EXPECT_EQ(members[0].rule.count_offset, 16u);
  EXPECT_EQ(members[0].rule.count_bytes, 8u);
  EXPECT_EQ(members[1].offset, 8u);
  EXPECT_EQ(members[1].rule.mode, AccessMode::Read);
  EXPECT_EQ(members[1].rule.extent, ExtentRule::ToAllocationEnd);

  EXPECT_NE(summaries
                .parse(R"({"kernels": [{"mangled_name": "k", "params": [
      {"index": 0, "access": "read", "fields": [{"name": "p", "access": "read"}]}]}]})")
                .find("offset"),
            std::string::npos);
  EXPECT_NE(summaries
                .parse(R"({"kernels": [{"mangled_name": "k", "params": [
      {"index": 0, "access": "read", "count_param": 0, "element_bytes": 4,
       "count_offset": 8, "count_bytes": 3}]}]})")
                .find("count_bytes"),
            std::string::npos);
}

TEST(KernelPointers, StatedMembersAreTheOnlyPointersOfAStructAndTheirCountIsItsMember) {
  KernelSummaries summaries;
  ASSERT_EQ(summaries.parse(R"({"kernels": [{"mangled_name": "k", "params": [
      {"index": 0, "access": "write", "fields": [
        {"offset": 0, "access": "write", "count_param": 0, "element_bytes": 4,
         "count_offset": 16, "count_bytes": 8},
        {"offset": 8, "access": "none"}]},
      {"index": 1, "access": "none"}]}]})"),
            "");
  const ByValueLaunch launch{{reinterpret_cast<float*>(0x7f0000001000),
                              reinterpret_cast<float*>(0x7f0000002000), 1024, 1.5}};
  std::vector<KernelPointer> pointers;
  by_value_pointers(0, launch.arguments(), summaries.find("k"), pointers);
  ASSERT_EQ(pointers.size(), 1u); // `input` is not used, the count and the double are no pointers
  EXPECT_EQ(pointers[0].address, 0x7f0000001000u);
  EXPECT_EQ(pointers[0].bytes, 4096u);
  EXPECT_EQ(pointers[0].mode, AccessMode::Write);
  EXPECT_EQ(pointers[0].extent, Extent::Exact);
}

TEST(KernelPointers, AStructOfOnePointerPassedInEightBytesTakesItsMembersRule) {
  KernelSummaries summaries;
  ASSERT_EQ(summaries.parse(R"({"kernels": [{"mangled_name": "k", "params": [
      {"index": 0, "access": "read", "fields": [{"offset": 0, "access": "read"}]},
      {"index": 1, "access": "none", "fields": [{"offset": 0, "access": "none"}]}]}]})"),
            "");
  const std::array<std::uint32_t, 2> sizes{8, 8};
  const std::array<std::uint64_t, 2> values{0x1000, 0x2000};
  std::vector<KernelPointer> pointers;
  kernel_pointers({sizes, values}, summaries.find("k"), pointers);
  ASSERT_EQ(pointers.size(), 1u);
  EXPECT_EQ(pointers[0].address, 0x1000u);
  EXPECT_EQ(pointers[0].mode, AccessMode::Read);
  EXPECT_EQ(pointers[0].extent, Extent::Approximate);
}

TEST(KernelPointers, SummaryExtentsOfConstantBytesAndOfOneElementPerThread) {
  KernelSummaries summaries;
  ASSERT_EQ(summaries.parse(R"({"kernels": [{"mangled_name": "k", "params": [
      {"index": 0, "access": "write", "bytes": 8},
      {"index": 1, "access": "read", "threads_x": true, "element_bytes": 4}]}]})"),
            "");
  const std::array<std::uint32_t, 2> sizes{8, 8};
  const std::array<std::uint64_t, 2> values{0x1000, 0x2000};
  std::vector<KernelPointer> pointers;
  kernel_pointers({sizes, values, nullptr, 256 * 4}, summaries.find("k"), pointers);
  ASSERT_EQ(pointers.size(), 2u);
  EXPECT_EQ(pointers[0].bytes, 8u);
  EXPECT_EQ(pointers[0].extent, Extent::Exact);
  EXPECT_EQ(pointers[1].bytes, 4096u);
  EXPECT_EQ(pointers[1].mode, AccessMode::Read);
  EXPECT_EQ(pointers[1].extent, Extent::Exact);

  // A launch whose configuration was not read keeps the mode; its bytes are a guess.
  pointers.clear();
  kernel_pointers({sizes, values}, summaries.find("k"), pointers);
  ASSERT_EQ(pointers.size(), 2u);
  EXPECT_EQ(pointers[1].bytes, 0u);
  EXPECT_EQ(pointers[1].mode, AccessMode::Read);
  EXPECT_EQ(pointers[1].extent, Extent::Approximate);

  EXPECT_NE(summaries
                .parse(R"({"kernels": [{"mangled_name": "k", "params": [
      {"index": 0, "access": "read", "threads_x": true}]}]})")
                .find("element_bytes"),
            std::string::npos);
}

TEST(KernelAccessResolver, PointersInsideLiveAllocationsRunToTheirEnd) {
  KernelAccessResolver resolver;
  resolver.observe(Alloc{0x1000, 0x100, MemoryKind::Device, kCurrentDevice, 0});
  resolver.observe(Alloc{0x5000, 0x100, MemoryKind::Device, kCurrentDevice, 0});
  resolver.observe(Free{0x5000, FreeApi::Free, 0});
  const std::array<KernelPointer, 4> pointers{{
      {0x1040, 0, AccessMode::ReadWrite, Extent::Approximate},
      {0x1000, 0x20, AccessMode::Write, Extent::Exact},
      {0x10f0, 0x100, AccessMode::Read, Extent::Exact},   // clipped at the allocation's end
      {0x5000, 0, AccessMode::Read, Extent::Approximate}, // freed
  }};
  std::vector<Access> accesses;
  resolver.resolve(pointers, accesses);
  ASSERT_EQ(accesses.size(), 3u);
  EXPECT_EQ(accesses[0].begin, 0x1040u);
  EXPECT_EQ(accesses[0].size, 0xc0u);
  EXPECT_EQ(accesses[0].extent, Extent::Approximate);
  EXPECT_EQ(accesses[1].size, 0x20u);
  EXPECT_EQ(accesses[1].mode, AccessMode::Write);
  EXPECT_EQ(accesses[2].size, 0x10u);
}

TEST(KernelAccessResolver, InsideACachingAllocatorSegmentAPointerStaysInItsBlock) {
  KernelAccessResolver resolver;
  resolver.observe(Alloc{0x10000, 0x10000, MemoryKind::Device, kCurrentDevice, 0});
  resolver.observe(BlockAlloc{0x10000, 0x200, kCurrentDevice, 0});
  resolver.observe(BlockAlloc{0x10400, 0x200, kCurrentDevice, 0});
  resolver.observe(BlockAlloc{0x10800, 0x100, kCurrentDevice, 0});
  resolver.observe(BlockFree{0x10800});
  const std::array<KernelPointer, 5> pointers{{
      {0x10080, 0, AccessMode::ReadWrite, Extent::Approximate}, // inside the first block
      {0x10300, 0, AccessMode::Read, Extent::Approximate},      // between blocks
      {0x10500, 0, AccessMode::ReadWrite, Extent::Approximate}, // inside the second block
      {0x10800, 0, AccessMode::Read, Extent::Approximate},      // a freed block: the segment's rest
      {0x10000, 0x400, AccessMode::Write, Extent::Exact},       // a stated extent is kept
  }};
  std::vector<Access> accesses;
  resolver.resolve(pointers, accesses);
  ASSERT_EQ(accesses.size(), 5u);
  EXPECT_EQ(accesses[0].size, 0x180u);
  EXPECT_EQ(accesses[1].size, 0x100u);
  EXPECT_EQ(accesses[2].size, 0x100u);
  EXPECT_EQ(accesses[3].size, 0xf800u);
  EXPECT_EQ(accesses[4].size, 0x400u);
}

TEST(KernelAccessResolver, AFreedSegmentTakesItsBlocksAlong) {
  KernelAccessResolver resolver;
  resolver.observe(Alloc{0x10000, 0x1000, MemoryKind::Device, kCurrentDevice, 0});
  resolver.observe(BlockAlloc{0x10000, 0x100, kCurrentDevice, 0});
  resolver.observe(Free{0x10000, FreeApi::Free, 0});
  resolver.observe(Alloc{0x10000, 0x1000, MemoryKind::Device, kCurrentDevice, 0});
  const std::array<KernelPointer, 1> pointers{
      {{0x10000, 0, AccessMode::Read, Extent::Approximate}}};
  std::vector<Access> accesses;
  resolver.resolve(pointers, accesses);
  ASSERT_EQ(accesses.size(), 1u);
  EXPECT_EQ(accesses[0].size, 0x1000u);
}

} // namespace
} // namespace streamrace::tracer
