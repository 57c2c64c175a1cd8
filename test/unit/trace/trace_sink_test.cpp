// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The writer's side of the sink contract: a sink may take a record's bytes a few at a time, or
// refuse them for a while, and the trace it ends up with is the same, byte for byte, and reads
// back through the reader from memory.
#include "streamrace/trace/trace_format.h"
#include "streamrace/trace/trace_reader.h"
#include "streamrace/trace/trace_sink.h"
#include "streamrace/trace/trace_writer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace streamrace {
namespace {

// Takes at most `chunk` bytes a call into `bytes`, and refuses once, with none taken, the first
// call after it holds `refuse_at` bytes.
class ChunkedSink final : public trace::TraceSink {
public:
  ChunkedSink(std::string& bytes, std::size_t chunk, std::size_t refuse_at)
      : bytes_(bytes), chunk_(chunk), refuse_at_(refuse_at) {}
  std::size_t write_some(std::string_view bytes) override {
    if (!refused_ && bytes_.size() >= refuse_at_) {
      refused_ = true;
      throw std::runtime_error("sink refuses");
    }
    const std::string_view taken = bytes.substr(0, chunk_);
    bytes_ += taken;
    return taken.size();
  }

private:
  std::string& bytes_;
  std::size_t chunk_;
  std::size_t refuse_at_;
  bool refused_ = false;
};

Event copy_event(std::uint64_t time_ns) {
  return Event{EventHeader{0, 7, 0, 0, time_ns}, Copy{0x5a00, 0x7100'0000, 0x7000'0000, 4096, 1,
                                                      4096, 4096, CopyKind::DeviceToDevice}};
}

// Writes one trace through `sink` (its header, then two events, flushing after each) and says
// how many flushes the sink refused; a refused flush is tried again.
int write_trace(std::unique_ptr<trace::TraceSink> sink) {
  int refusals = 0;
  trace::TraceWriter writer(std::move(sink), 42, 1'000);
  for (std::uint64_t time_ns : {2'000u, 3'000u}) {
    writer.write(copy_event(time_ns));
    try {
      writer.flush();
    } catch (const std::runtime_error&) {
      ++refusals;
      writer.flush();
    }
  }
  return refusals;
}

TEST(TraceSink, ASinkTakingAFewBytesAtATimeAndRefusingMidRecordGetsTheSameTrace) {
  std::string whole, chunked;
  EXPECT_EQ(write_trace(std::make_unique<ChunkedSink>(whole, SIZE_MAX, SIZE_MAX)), 0);
  // Refused in the middle of the first event's record, with part of it taken.
  EXPECT_EQ(write_trace(std::make_unique<ChunkedSink>(chunked, 3, trace::kFileHeaderSize + 4)), 1);
  EXPECT_EQ(chunked, whole);

  SymbolTable symbols;
  trace::TraceReader reader("chunked", std::make_unique<std::istringstream>(chunked), 0, symbols);
  EXPECT_EQ(reader.pid(), 42u);
  EXPECT_EQ(reader.start_time_ns(), 1'000u);
  std::vector<std::uint64_t> times;
  for (Event event; reader.next(event);)
    times.push_back(event.header.time_ns);
  EXPECT_EQ(times, (std::vector<std::uint64_t>{2'000, 3'000}));
  EXPECT_EQ(reader.problem(), "");
}

} // namespace
} // namespace streamrace
