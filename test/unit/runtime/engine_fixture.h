// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Drives the engine with made-up ids, one helper per API a program would call, so each test
// reads like the CUDA program it stands for.
#pragma once

#include "streamrace/engine/engine.h"
#include "streamrace/engine/symbols.h"
#include "streamrace/report/finding_text.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace streamrace::testing {

class EngineTest : public ::testing::Test {
protected:
  explicit EngineTest(Options options = {}) : engine_(options) {}

  RankId rank = 0;
  ThreadId thread = 1;
  std::uint32_t address_space = 0;

  void emit(Payload payload, CallSiteId site = 0) {
    engine_.process(Event{EventHeader{rank, thread, site, address_space, 0}, std::move(payload)});
  }
  CallSiteId site(const std::string& api, const std::string& function, std::uint32_t line) {
    return symbols_.add_call_site(CallSite{api, {StackFrame{function, "test.cu", line}}});
  }

  void stream(StreamHandle s, StreamKind kind = StreamKind::Blocking, DeviceId device = 0) {
    emit(StreamCreate{s, device, kind, 0});
  }
  void name(StreamHandle s, const std::string& text) { emit(NameStream{s, symbols_.intern(text)}); }
  void malloc(Address base, std::uint64_t size, MemoryKind kind = MemoryKind::Device) {
    emit(Alloc{base, size, kind, kCurrentDevice, 0});
  }
  void write(StreamHandle s, Address base, std::uint64_t size, CallSiteId at = 0) {
    emit(KernelLaunch{s, 0, {{base, size, AccessMode::Write, Extent::Exact}}}, at);
  }
  void read(StreamHandle s, Address base, std::uint64_t size, CallSiteId at = 0) {
    emit(KernelLaunch{s, 0, {{base, size, AccessMode::Read, Extent::Exact}}}, at);
  }
  void host_write(Address base, std::uint64_t size) {
    emit(HostAccess{{{base, size, AccessMode::Write, Extent::Exact}}});
  }
  void record(EventHandle e, StreamHandle s) { emit(EventRecord{e, s}); }
  void wait(StreamHandle s, EventHandle e) { emit(StreamWaitEvent{s, e}); }
  void sync(StreamHandle s, bool completed = true) { emit(StreamSynchronize{s, completed}); }
  void sync_event(EventHandle e, bool completed = true) { emit(EventSynchronize{e, completed}); }
  void sync_device(DeviceId d = kCurrentDevice) { emit(DeviceSynchronize{d}); }
  void copy(StreamHandle s, Address dst, Address src, std::uint64_t bytes, CopyKind dir,
            bool synchronous_api = false) {
    emit(Copy{s, dst, src, bytes, 1, 0, 0, dir, synchronous_api});
  }

  const std::vector<Finding>& findings() { return engine_.findings().all(); }
  std::size_t count(FindingKind kind) {
    std::size_t n = 0;
    for (const Finding& f : engine_.findings().all())
      n += f.kind == kind;
    return n;
  }
  std::size_t races() {
    return count(FindingKind::RaceWriteWrite) + count(FindingKind::RaceWriteRead) +
           count(FindingKind::RaceReadWrite);
  }
  std::string report() {
    std::string text;
    for (const Finding& f : engine_.findings().all())
      text += describe_finding(f, engine_, symbols_);
    return text;
  }
  void finish() { engine_.finish(); }

  Engine engine_;
  SymbolTable symbols_;
};

} // namespace streamrace::testing
