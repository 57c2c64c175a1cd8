// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/trace/trace_format.h"

#include <array>
#include <type_traits>

namespace streamrace::trace {

namespace {

constexpr std::array<std::uint32_t, 256> make_crc_table() {
  std::array<std::uint32_t, 256> table{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int k = 0; k < 8; ++k)
      c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  return table;
}
constexpr auto kCrcTable = make_crc_table();

// Writes one field of any payload: integers, enums, bools and access lists.
struct FieldEncoder {
  Encoder& out;
  template <typename T> void one(const T& value) {
    if constexpr (std::is_same_v<T, bool>) {
      out.byte(value ? 1 : 0);
    } else if constexpr (std::is_enum_v<T>) {
      out.u64(static_cast<std::uint64_t>(value));
    } else if constexpr (std::is_same_v<T, std::vector<Access>>) {
      out.u64(value.size());
      for (const Access& access : value)
        access.fields(*this);
    } else if constexpr (std::is_signed_v<T>) {
      out.i64(value);
    } else {
      out.u64(value);
    }
  }
  template <typename... T> void operator()(const T&... values) { (one(values), ...); }
};

struct FieldDecoder {
  Decoder& in;
  // A record of an older version ends before the fields added since: they keep their defaults.
  bool may_end_early = false;
  bool ok = true;
  template <typename T> void one(T& value) {
    if (!ok || (may_end_early && in.done())) return;
    if constexpr (std::is_same_v<T, bool>) {
      std::uint8_t b = 0;
      ok = in.byte(b) && b <= 1;
      value = b != 0;
    } else if constexpr (std::is_enum_v<T>) {
      std::uint64_t raw = 0;
      ok = in.u64(raw) && raw <= 0xff;
      value = static_cast<T>(raw);
    } else if constexpr (std::is_same_v<T, std::vector<Access>>) {
      std::uint64_t n = 0;
      ok = in.u64(n) && n <= kMaxRecordSize;
      for (std::uint64_t i = 0; ok && i < n; ++i)
        value.emplace_back().fields(*this);
    } else if constexpr (std::is_signed_v<T>) {
      std::int64_t raw = 0;
      ok = in.i64(raw);
      value = static_cast<T>(raw);
      ok = ok && static_cast<std::int64_t>(value) == raw;
    } else {
      std::uint64_t raw = 0;
      ok = in.u64(raw);
      value = static_cast<T>(raw);
      ok = ok && static_cast<std::uint64_t>(value) == raw;
    }
  }
  template <typename... T> void operator()(T&... values) { (one(values), ...); }
};

template <std::size_t i = 0> bool emplace_payload(std::size_t index, Payload& payload) {
  if constexpr (i < std::variant_size_v<Payload>) {
    if (index == i) {
      payload.emplace<i>();
      return true;
    }
    return emplace_payload<i + 1>(index, payload);
  } else {
    return false;
  }
}

} // namespace

std::uint32_t crc32(std::string_view bytes) {
  std::uint32_t c = 0xFFFFFFFFu;
  for (char ch : bytes)
    c = kCrcTable[(c ^ static_cast<std::uint8_t>(ch)) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

void Encoder::u64(std::uint64_t value) {
  while (value >= 0x80) {
    out_.push_back(static_cast<char>(value | 0x80));
    value >>= 7;
  }
  out_.push_back(static_cast<char>(value));
}

void Encoder::text(std::string_view value) {
  u64(value.size());
  out_.append(value);
}

bool Decoder::u64(std::uint64_t& value) {
  value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos_ >= in_.size()) return false;
    const auto b = static_cast<std::uint8_t>(in_[pos_++]);
    value |= static_cast<std::uint64_t>(b & 0x7F) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

bool Decoder::i64(std::int64_t& value) {
  std::uint64_t raw = 0;
  if (!u64(raw)) return false;
  value = static_cast<std::int64_t>(raw >> 1) ^ -static_cast<std::int64_t>(raw & 1);
  return true;
}

bool Decoder::byte(std::uint8_t& value) {
  if (pos_ >= in_.size()) return false;
  value = static_cast<std::uint8_t>(in_[pos_++]);
  return true;
}

bool Decoder::text(std::string& value) {
  std::uint64_t n = 0;
  if (!u64(n) || n > in_.size() - pos_) return false;
  value.assign(in_.substr(pos_, n));
  pos_ += n;
  return true;
}

void encode_event(const Event& event, Encoder& out) {
  out.u64(event.header.rank);
  out.u64(event.header.thread);
  out.u64(event.header.site);
  out.u64(event.header.time_ns);
  out.u64(event.payload.index());
  FieldEncoder fields{out};
  std::visit([&](const auto& payload) { payload.fields(fields); }, event.payload);
}

bool decode_event(Decoder& in, Event& event, std::uint32_t address_space, std::uint32_t version) {
  std::uint64_t rank = 0, thread = 0, site = 0, time = 0, index = 0;
  if (!in.u64(rank) || !in.u64(thread) || !in.u64(site) || !in.u64(time) || !in.u64(index))
    return false;
  if (rank > 0xFFFFFFFFu || site > 0xFFFFFFFFu) return false;
  event.header = EventHeader{static_cast<RankId>(rank), thread, static_cast<CallSiteId>(site),
                             address_space, time};
  if (!emplace_payload(index, event.payload)) return false;
  FieldDecoder fields{in, version < kVersion};
  std::visit([&](auto& payload) { payload.fields(fields); }, event.payload);
  return fields.ok && in.done();
}

} // namespace streamrace::trace
