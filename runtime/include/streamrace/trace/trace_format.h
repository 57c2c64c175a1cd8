// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The on-disk trace format, version 11 (version 2 added the slices of 3D copies and sets; version
// 3 the AccessChecks payload, a window in which the tracer fell behind and checked no accesses,
// after every older payload: a version 2 file reads as it did; version 4 AccessChecks'
// caller_wait_ns; version 5 the HostNodeAccess payload, after the others, and a HostFunction's
// graph node, after its other fields; version 6 GraphInstantiate's update flag; version 7 the
// RankDevice payload, after the others; version 8 the GraphExecDestroy payload, after the others;
// version 9 HostRelease's and HostAcquire's host function stream, after their object; version
// 10 HostRelease's and HostAcquire's sequence; version 11 the host waits' waited_ns, after their
// other fields; a record of an older version leaves the newer fields out).
// One file per process (its ranks share an address space):
//
//   file header (32 bytes): magic "SRTRACE1", u32 version, u32 reserved, u64 pid,
//                           u64 start time in ns (little endian)
//   records, each framed:   u32 body length, u32 CRC-32 of the body, body
//   body:                   u8 record type, then its fields as LEB128 varints (signed ones
//                           zigzag-encoded), strings as a varint length and bytes
//
// Each file is one address space: a reader gives every file its own. Record types: 1 event
// (rank, thread, call site, time, payload index, payload fields),
// 2 name (file-local NameId, text), 3 call site (file-local CallSiteId, api, frames). Ids in
// events are file-local: readers map them into one SymbolTable. Appending whole framed
// records means a process killed at any moment leaves every complete record readable.
#pragma once

#include "streamrace/engine/event.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace streamrace::trace {

inline constexpr char kMagic[8] = {'S', 'R', 'T', 'R', 'A', 'C', 'E', '1'};
// How a trace file's name ends: a folder given to the commands stands for its files with this
// ending, `streamrace run` empties its folder of them, and no report is written under it.
inline constexpr char kTraceFileExtension[] = ".srtrace";
inline constexpr std::uint32_t kVersion = 11;
// Every version from this one on reads: later versions only add payloads, after the older ones,
// and fields, after a payload's older ones (a record of an older version ends before them).
inline constexpr std::uint32_t kOldestReadableVersion = 2;
inline constexpr std::size_t kFileHeaderSize = 32;
inline constexpr std::size_t kFrameSize = 8;
inline constexpr std::uint32_t kMaxRecordSize = 1u << 24;

enum class RecordType : std::uint8_t { Event = 1, Name = 2, CallSite = 3 };

std::uint32_t crc32(std::string_view bytes);

// Appends LEB128-encoded values to a byte string.
class Encoder {
public:
  explicit Encoder(std::string& out) : out_(out) {}
  void u64(std::uint64_t value);
  void i64(std::int64_t value) {
    u64((static_cast<std::uint64_t>(value) << 1) ^ static_cast<std::uint64_t>(value >> 63));
  }
  void byte(std::uint8_t value) { out_.push_back(static_cast<char>(value)); }
  void text(std::string_view value);

private:
  std::string& out_;
};

// Reads what Encoder wrote; every read reports whether the bytes were there and well formed.
class Decoder {
public:
  explicit Decoder(std::string_view in) : in_(in) {}
  bool u64(std::uint64_t& value);
  bool i64(std::int64_t& value);
  bool byte(std::uint8_t& value);
  bool text(std::string& value);
  bool done() const { return pos_ == in_.size(); }

private:
  std::string_view in_;
  std::size_t pos_ = 0;
};

void encode_event(const Event& event, Encoder& out);
// False when the bytes do not form an event of format `version`.
bool decode_event(Decoder& in, Event& event, std::uint32_t address_space,
                  std::uint32_t version = kVersion);

} // namespace streamrace::trace
