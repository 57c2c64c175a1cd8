// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "hpz_events.h"

#include "streamrace/engine/engine.h"
#include "streamrace/report/finding_text.h"
#include "streamrace/trace/trace_format.h"
#include "streamrace/trace/trace_reader.h"
#include "streamrace/trace/trace_writer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>

namespace streamrace {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("streamrace-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

std::string encoded(const Event& event) {
  std::string bytes;
  trace::Encoder out(bytes);
  trace::encode_event(event, out);
  return bytes;
}

std::string report_of(const std::vector<Event>& events, const SymbolTable& symbols) {
  Engine engine;
  for (const Event& e : events)
    engine.process(e);
  engine.finish();
  std::string text;
  for (const Finding& f : engine.findings().all())
    text += describe_finding(f, engine, symbols);
  return text;
}

TEST(TraceFormat, EveryPayloadSurvivesEncoding) {
  const std::vector<Event> events = {
      {{3, 77, 5, 0, 123},
       Copy{0x10, 0xa000, 0xb000, 64, 4, 128, 256, CopyKind::DeviceToHost, true}},
      {{3, 77, 5, 0, 124},
       KernelLaunch{0x10, 9, {{0x1, 2, AccessMode::ReadWrite, Extent::Approximate}}}},
      {{0, 1, 0, 0, 0}, Collective{0x20, 0xc0, CollectiveKind::Scatter, 1, 2, 3, 4, -1, 7, 2}},
      {{0, 1, 0, 0, 0}, StreamCreate{0x30, -1, StreamKind::PerThreadDefault, -5}},
      {{0, 1, 0, 0, 0}, GroupEnd{}},
      {{0, 1, 0, 0, 9}, AccessChecks{true}},
      {{0, 1, 0, 0, 10}, AccessChecks{false, 2'500'000}},
      {{0, 1, 0, 0, 11}, HostFunction{0x40, 3, {}, 0xfeed}},
      {{0, 1, 0, 0, 12}, HostNodeAccess{0x50, 0xfeed, {{0xa0, 1, AccessMode::Write}}}},
      {{3, 1, 0, 0, 13}, RankDevice{2, 1}},
      {{0, 1, 0, 0, 14}, GraphExecDestroy{0x9002}},
  };
  for (const Event& event : events) {
    const std::string bytes = encoded(event);
    trace::Decoder in(bytes);
    Event back;
    ASSERT_TRUE(trace::decode_event(in, back, 0));
    EXPECT_EQ(encoded(back), bytes);
    EXPECT_EQ(back.payload.index(), event.payload.index());
  }
}

// Version 4 added AccessChecks' caller_wait_ns: a version 3 file's AccessChecks has only
// `paused`, and reads with no wait.
TEST(TraceFormat, AVersion3AccessChecksReadsWithoutCallerWait) {
  const Event resume{{0, 1, 0, 0, 10}, AccessChecks{false, 2'500'000}};
  std::string bytes;
  trace::Encoder out(bytes);
  out.u64(0);
  out.u64(1);
  out.u64(0);
  out.u64(10);
  out.u64(resume.payload.index());
  out.byte(0);
  trace::Decoder in(bytes);
  Event back;
  ASSERT_TRUE(trace::decode_event(in, back, 0, 3));
  const auto& checks = std::get<AccessChecks>(back.payload);
  EXPECT_FALSE(checks.paused);
  EXPECT_EQ(checks.caller_wait_ns, 0u);
  // The same bytes are a field short in the current version.
  trace::Decoder current(bytes);
  EXPECT_FALSE(trace::decode_event(current, back, 0));
}

// Version 5 added a host function's graph node after its other fields: a record of an older
// version ends before it and reads with no node; a current record must have it.
TEST(TraceFormat, FieldsAddedLaterAreAbsentFromOlderRecords) {
  std::string bytes = encoded({{0, 1, 0, 0, 10}, HostFunction{0x40, 3, {}, 0}});
  bytes.pop_back(); // the node, a one-byte varint
  Event back;
  trace::Decoder older(bytes);
  ASSERT_TRUE(trace::decode_event(older, back, 0, 3));
  EXPECT_EQ(std::get<HostFunction>(back.payload).stream, 0x40u);
  EXPECT_EQ(std::get<HostFunction>(back.payload).node, 0u);
  trace::Decoder current(bytes);
  EXPECT_FALSE(trace::decode_event(current, back, 0));
}

// Version 11 added the host waits' waited_ns: a version 10 synchronize reads as one the tracer
// did not time, and its time survives in the current version.
TEST(TraceFormat, AVersion10SynchronizeReadsWithoutItsTime) {
  std::string bytes = encoded({{0, 1, 0, 0, 10}, StreamSynchronize{0x40, true, 0}});
  bytes.pop_back(); // waited_ns, a one-byte varint
  Event back;
  trace::Decoder older(bytes);
  ASSERT_TRUE(trace::decode_event(older, back, 0, 10));
  EXPECT_EQ(std::get<StreamSynchronize>(back.payload).stream, 0x40u);
  EXPECT_EQ(std::get<StreamSynchronize>(back.payload).waited_ns, 0u);
  trace::Decoder current(bytes);
  EXPECT_FALSE(trace::decode_event(current, back, 0));

  const std::string timed = encoded({{0, 1, 0, 0, 10}, DeviceSynchronize{0, 1'234'567}});
  trace::Decoder in(timed);
  ASSERT_TRUE(trace::decode_event(in, back, 0));
  EXPECT_EQ(std::get<DeviceSynchronize>(back.payload).waited_ns, 1'234'567u);
}

TEST(TraceFiles, ReplayGivesTheSameFindingsAsTheOnlineEngine) {
  SymbolTable symbols;
  const std::vector<Event> events = examples::hpz_events(examples::HpzMode::Buggy, symbols);
  const std::string online = report_of(events, symbols);
  ASSERT_FALSE(online.empty());

  // Each rank of the scenario is its own process: one file, one address space each.
  std::map<RankId, std::unique_ptr<trace::TraceWriter>> writers;
  std::uint64_t time = 0;
  for (Event e : events) {
    auto& writer = writers[e.header.rank];
    if (!writer) {
      writer = std::make_unique<trace::TraceWriter>(
          temp_path("rank" + std::to_string(e.header.rank) + ".srtrace"), e.header.rank, 0);
      writer->define_symbols(symbols);
    }
    e.header.time_ns = ++time;
    writer->write(e);
  }
  writers.clear();
  SymbolTable replay_symbols;
  std::vector<trace::TraceReader> readers;
  for (RankId rank = 0; rank < 4; ++rank) {
    readers.emplace_back(temp_path("rank" + std::to_string(rank) + ".srtrace"), rank,
                         replay_symbols);
  }
  std::vector<Event> replayed;
  trace::TimeOrderedMerge merged(readers);
  while (const Event* event = merged.next())
    replayed.push_back(*event);
  for (const trace::TraceReader& reader : readers)
    EXPECT_TRUE(reader.problem().empty()) << reader.problem();
  for (RankId rank = 0; rank < 4; ++rank)
    std::filesystem::remove(temp_path("rank" + std::to_string(rank) + ".srtrace"));
  ASSERT_EQ(replayed.size(), events.size());
  // Stamped in order across the files, so the merge gives back the original sequence.
  for (std::size_t i = 0; i < events.size(); ++i)
    ASSERT_EQ(replayed[i].header.rank, events[i].header.rank) << "event " << i;
  EXPECT_EQ(report_of(replayed, replay_symbols), online);
}

TEST(TraceFiles, EqualTimesMergeInFileOrderThenRecordOrder) {
  const std::string first = temp_path("first.srtrace"), second = temp_path("second.srtrace");
  {
    trace::TraceWriter a(first, 1, 0), b(second, 2, 0);
    for (std::uint64_t i = 0; i < 3; ++i) {
      b.write(Event{{1, 1, 0, 0, 5}, StreamSynchronize{0x20 + i, true}});
      a.write(Event{{0, 1, 0, 0, 5}, StreamSynchronize{0x10 + i, true}});
    }
    a.write(Event{{0, 1, 0, 0, 9}, StreamSynchronize{0x13, true}});
    b.write(Event{{1, 1, 0, 0, 7}, StreamSynchronize{0x23, true}});
  }
  SymbolTable symbols;
  std::vector<trace::TraceReader> readers;
  readers.emplace_back(first, 0, symbols);
  readers.emplace_back(second, 1, symbols);
  std::vector<StreamHandle> order;
  trace::TimeOrderedMerge merged(readers);
  while (const Event* event = merged.next())
    order.push_back(std::get<StreamSynchronize>(event->payload).stream);
  std::filesystem::remove(first);
  std::filesystem::remove(second);
  EXPECT_EQ(order, (std::vector<StreamHandle>{0x10, 0x11, 0x12, 0x20, 0x21, 0x22, 0x23, 0x13}));
}

TEST(TraceFiles, AFolderStandsForItsFilesWithTheTraceEnding) {
  namespace fs = std::filesystem;
  const fs::path folder = temp_path("folder");
  fs::create_directories(folder);
  const std::string trace_file =
      (folder / (std::string("b") + trace::kTraceFileExtension)).string();
  std::ofstream(trace_file).put('\0');
  std::ofstream(folder / "report.json").put('\0');
  EXPECT_EQ(trace::find_trace_files({folder.string()}), std::vector<std::string>{trace_file});
  fs::remove(trace_file);
  try {
    trace::find_trace_files({folder.string()});
    ADD_FAILURE() << "a folder without traces was accepted";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()),
              "directory '" + folder.string() + "' holds no *.srtrace trace files");
  }
  fs::remove_all(folder);
}

TEST(TraceFiles, StreamingReadCrossesBufferRefillsAndRecordsLargerThanTheBuffer) {
  const std::string path = temp_path("long.srtrace");
  std::vector<Access> many;
  for (std::uint64_t i = 0; i < 40000; ++i) // one record of several hundred KB
    many.push_back({0x100000000ull + i * 4096, 64, AccessMode::Read, Extent::Exact});
  {
    trace::TraceWriter writer(path, 1, 0);
    for (std::uint64_t i = 0; i < 60000; ++i) {
      writer.write(Event{{0, 1, 0, 0, i}, StreamSynchronize{i, true}});
      if (i == 30000) writer.write(Event{{0, 1, 0, 0, i}, KernelLaunch{0x10, 0, many}});
    }
  }
  SymbolTable symbols;
  const trace::TraceFile file = trace::read_trace(path, 0, symbols);
  std::filesystem::remove(path);
  EXPECT_TRUE(file.problem.empty()) << file.problem;
  ASSERT_EQ(file.events.size(), 60001u);
  for (std::uint64_t i = 0; i <= 30000; ++i)
    ASSERT_EQ(std::get<StreamSynchronize>(file.events[i].payload).stream, i) << "event " << i;
  EXPECT_EQ(std::get<KernelLaunch>(file.events[30001].payload).accesses.size(), many.size());
  EXPECT_EQ(std::get<StreamSynchronize>(file.events[60000].payload).stream, 59999u);
}

class DamagedTrace : public ::testing::Test {
protected:
  void SetUp() override {
    path_ = temp_path("damaged.srtrace");
    trace::TraceWriter writer(path_, 1, 0);
    // Every record the same size: addresses whose varints all take three bytes.
    for (std::uint64_t i = 0; i < 100; ++i)
      writer.write(
          Event{{0, 1, 0, 0, i},
                KernelLaunch{0x10, 0, {{0x4000 + i, 64, AccessMode::Write, Extent::Exact}}}});
  }
  void TearDown() override { std::filesystem::remove(path_); }
  std::string bytes() {
    std::ifstream in(path_, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  void store(const std::string& content) {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out << content;
  }
  std::string path_;
};

TEST_F(DamagedTrace, TruncationKeepsEveryCompleteRecord) {
  const std::string whole = bytes();
  const std::size_t record = (whole.size() - trace::kFileHeaderSize) / 100;
  for (std::size_t cut : {whole.size() - 1, whole.size() - record, trace::kFileHeaderSize + 3}) {
    store(whole.substr(0, cut));
    SymbolTable symbols;
    const trace::TraceFile file = trace::read_trace(path_, 0, symbols);
    EXPECT_EQ(file.events.size(), (cut - trace::kFileHeaderSize) / record);
    if ((cut - trace::kFileHeaderSize) % record != 0) {
      EXPECT_NE(file.problem.find("stopped at byte"), std::string::npos) << file.problem;
      EXPECT_NE(file.problem.find("complete record"), std::string::npos) << file.problem;
    }
  }
}

TEST_F(DamagedTrace, CorruptionStopsAtTheDamagedRecord) {
  std::string content = bytes();
  content[trace::kFileHeaderSize + 50 * ((content.size() - trace::kFileHeaderSize) / 100) + 10] ^=
      0x5a;
  store(content);
  SymbolTable symbols;
  const trace::TraceFile file = trace::read_trace(path_, 0, symbols);
  EXPECT_EQ(file.events.size(), 50u);
  EXPECT_NE(file.problem.find("checksum mismatch"), std::string::npos) << file.problem;
}

TEST_F(DamagedTrace, AnIntactRecordThatIsNoEventOfThisVersionStopsReadingThere) {
  std::string content = bytes();
  const std::size_t record = (content.size() - trace::kFileHeaderSize) / 100;
  std::string body(1, static_cast<char>(trace::RecordType::Event));
  trace::Encoder fields(body);
  for (std::uint64_t value : {0, 1, 0, 7, 250})
    fields.u64(value); // payload 250 does not exist
  std::string frame;
  for (std::uint64_t value : {std::uint64_t{body.size()}, std::uint64_t{trace::crc32(body)}})
    for (int i = 0; i < 4; ++i)
      frame.push_back(static_cast<char>(value >> (8 * i)));
  content.insert(trace::kFileHeaderSize + 10 * record, frame + body);
  store(content);
  SymbolTable symbols;
  const trace::TraceFile file = trace::read_trace(path_, 0, symbols);
  EXPECT_EQ(file.events.size(), 10u);
  EXPECT_EQ(file.records, 10u);
  EXPECT_NE(
      file.problem.find("stopped at byte " + std::to_string(trace::kFileHeaderSize + 10 * record)),
      std::string::npos)
      << file.problem;
  EXPECT_NE(file.problem.find("malformed fields; 10 complete records recovered"), std::string::npos)
      << file.problem;
}

// Versions 3, 4 and 5 only added payloads and fields: version 2 to 4 files read as before;
// versions this reader does not know are refused by name.
TEST_F(DamagedTrace, OlderVersionsReadAndUnknownOnesAreRefused) {
  const std::string whole = bytes();
  auto with_version = [&](std::uint32_t version) {
    std::string content = whole;
    for (int i = 0; i < 4; ++i)
      content[8 + i] = static_cast<char>(version >> (8 * i));
    store(content);
  };
  SymbolTable symbols;
  for (std::uint32_t version : {2u, 3u, 4u, 5u}) {
    with_version(version);
    EXPECT_EQ(trace::read_trace(path_, 0, symbols).events.size(), 100u);
  }
  for (std::uint32_t version : {1u, trace::kVersion + 1}) {
    with_version(version);
    try {
      trace::read_trace(path_, 0, symbols);
      FAIL() << "version " << version << " was read";
    } catch (const std::runtime_error& error) {
      EXPECT_NE(std::string(error.what())
                    .find("is trace format version " + std::to_string(version) +
                          "; this streamrace reads versions 2 to " +
                          std::to_string(trace::kVersion)),
                std::string::npos)
          << error.what();
    }
  }
}

TEST_F(DamagedTrace, ForeignFilesAreRefusedByName) {
  store("not a trace at all, just text that is long enough to have a header");
  SymbolTable symbols;
  try {
    trace::read_trace(path_, 0, symbols);
    FAIL() << "a text file was read as a trace";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("is not a streamrace trace file"), std::string::npos);
  }
}

} // namespace
} // namespace streamrace
