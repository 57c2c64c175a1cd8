// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Raw call-site frames (object file + offset) and their late symbolization, which reports of
// crashed or interrupted processes depend on.
#include "streamrace/report/raw_frames.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

namespace streamrace {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;

[[gnu::noinline]] int symbolization_target(int value) {
  asm volatile("" : "+r"(value));
  return value + 1;
}

// A raw frame naming symbolization_target in this test's own executable.
StackFrame raw_frame_of_target() {
  char path[4096];
  const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
  EXPECT_GT(length, 0);
  Dl_info info{};
  link_map* map = nullptr;
  auto* address = reinterpret_cast<void*>(&symbolization_target);
  EXPECT_NE(dladdr1(address, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP), 0);
  const auto offset = reinterpret_cast<std::uint64_t>(address) - map->l_addr;
  return raw_frame(std::string(path, static_cast<std::size_t>(length)), offset);
}

TEST(RawFrames, NameTheirObjectFileAndOffsetAndParseBack) {
  const StackFrame frame = raw_frame("/usr/lib/libtrainer.so", 0x1a2b);
  EXPECT_EQ(frame.function, "/usr/lib/libtrainer.so+0x1a2b");
  EXPECT_EQ(frame.file, "");
  const std::optional<RawFrame> parsed = parse_raw_frame(frame);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->object_file, "/usr/lib/libtrainer.so");
  EXPECT_EQ(parsed->offset, 0x1a2bu);
}

TEST(RawFrames, SymbolizedFramesAndOtherTextAreNotRaw) {
  EXPECT_FALSE(parse_raw_frame(StackFrame{"main", "train.cpp", 12}));
  EXPECT_FALSE(parse_raw_frame(StackFrame{"/lib/libx.so+0x10", "x.cpp", 0}));
  EXPECT_FALSE(parse_raw_frame(StackFrame{"/lib/libx.so+0x", "", 0}));
  EXPECT_FALSE(parse_raw_frame(StackFrame{"/lib/libx.so+0x1g", "", 0}));
  EXPECT_FALSE(parse_raw_frame(StackFrame{"+0x10", "", 0}));
  EXPECT_FALSE(parse_raw_frame(StackFrame{"frame without offset", "", 0}));
}

TEST(RawFrames, SymbolizeToFunctionFileAndLineFromTheirObjectFile) {
  ASSERT_EQ(symbolization_target(1), 2);
  std::vector<CallSite> sites{CallSite{"cudaMemcpyAsync", {raw_frame_of_target()}}};
  symbolize_sites(sites);
  ASSERT_EQ(sites[0].frames.size(), 1u);
  EXPECT_THAT(sites[0].frames[0].function, HasSubstr("symbolization_target"));
  EXPECT_THAT(sites[0].frames[0].file, EndsWith("raw_frames_test.cpp"));
  EXPECT_GT(sites[0].frames[0].line, 0u);
}

TEST(RawFrames, StayRawWhenTheirObjectFileIsGoneOrNamedRelatively) {
  const StackFrame gone = raw_frame("/nonexistent/libgone.so", 0x40);
  // An older trace's form, the file's base name only: it may name another file by now.
  StackFrame relative = raw_frame_of_target();
  relative.function = relative.function.substr(relative.function.rfind('/') + 1);
  std::vector<CallSite> sites{CallSite{"cudaMemcpyAsync", {gone}},
                              CallSite{"cudaMemcpyAsync", {relative}}};
  symbolize_sites(sites);
  EXPECT_EQ(sites[0].frames[0].function, gone.function);
  EXPECT_EQ(sites[1].frames[0].function, relative.function);
}

TEST(RawFrames, OnlyTheSitesEventsNameAreSymbolizedInATable) {
  SymbolTable symbols;
  const CallSiteId orphan = symbols.add_call_site(CallSite{"cudaMalloc", {raw_frame_of_target()}});
  const CallSiteId used = symbols.add_call_site(CallSite{"cudaFree", {raw_frame_of_target()}});
  symbolize_raw_frames(symbols, {used, used});
  EXPECT_TRUE(parse_raw_frame(symbols.call_site(orphan)->frames[0]));
  EXPECT_THAT(symbols.call_site(used)->frames[0].function, HasSubstr("symbolization_target"));
}

TEST(SymbolTable, AReplacedSiteKeepsItsIdAndIsFoundByItsNewFrames) {
  SymbolTable symbols;
  const CallSite raw{"cudaMemcpyAsync", {raw_frame("/bin/train", 0x10)}};
  const CallSite symbolized{"cudaMemcpyAsync", {StackFrame{"step", "train.cpp", 7}}};
  const CallSiteId id = symbols.add_call_site(raw);
  symbols.replace_call_site(id, symbolized);
  EXPECT_EQ(symbols.call_site(id)->frames[0].function, "step");
  EXPECT_EQ(symbols.add_call_site(symbolized), id);
  EXPECT_NE(symbols.add_call_site(raw), id);
}

} // namespace
} // namespace streamrace
