// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Formats (as the CUDA toolkit writes them; none is documented beyond the wrapper's struct in
// fatbinary_section.h): the wrapper points at a fat binary header (magic 0xBA55ED50, header size,
// size of the entries), followed by entries, each a header (kind 2 = cubin, header size, payload
// size) and its payload. A cubin is an ELF64 file; in its `.nv.info.<kernel>` section attributes
// follow each other as (format, attribute) byte pairs, then a 16-bit value, or for the sized
// format a 16-bit size and that many bytes. A KPARAM_INFO value is a 32-bit index, a 16-bit
// ordinal, a 16-bit offset, and 32 bits whose top 14 are the parameter's size. An entry header
// of 64 bytes or more also gives, at byte 16, the payload's compressed size, at 28 the target
// architecture, at 40 flags (the codec, fatbinary_compression.h) and at 56 the original size.
#include "fatbinary_layouts.h"

#include "fatbinary_compression.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>

namespace streamrace::emu {

namespace {

constexpr std::uint32_t kWrapperMagic = 0x466243b1;
constexpr std::uint32_t kFatBinaryMagic = 0xba55ed50;
constexpr std::uint16_t kCubinEntry = 2;
constexpr std::uint8_t kSizedFormat = 4;
constexpr std::uint8_t kParameterInfo = 0x17;
constexpr std::string_view kInfoPrefix = ".nv.info.";

// Fat binaries are at most a few hundred MB; anything claiming more is not one.
constexpr std::uint64_t kLargestFatBinary = std::uint64_t{1} << 32;

template <typename T> std::optional<T> read(std::span<const std::byte> bytes, std::uint64_t at) {
  if (at > bytes.size() || bytes.size() - at < sizeof(T)) {
    return std::nullopt;
  }
  T value;
  std::memcpy(&value, bytes.data() + at, sizeof value);
  return value;
}

std::span<const std::byte> slice(std::span<const std::byte> bytes, std::uint64_t at,
                                 std::uint64_t size) {
  if (at > bytes.size() || bytes.size() - at < size) {
    return {};
  }
  return bytes.subspan(at, size);
}

struct Section {
  std::string_view name;
  std::span<const std::byte> contents;
};

std::vector<Section> sectionsOf(std::span<const std::byte> elf) {
  static constexpr unsigned char kElfMagic[] = {0x7f, 'E', 'L', 'F', 2 /* 64-bit */};
  if (elf.size() < 64 || std::memcmp(elf.data(), kElfMagic, sizeof kElfMagic) != 0) {
    return {};
  }
  const auto tableOffset = read<std::uint64_t>(elf, 0x28);
  const auto entrySize = read<std::uint16_t>(elf, 0x3a);
  const auto count = read<std::uint16_t>(elf, 0x3c);
  const auto namesIndex = read<std::uint16_t>(elf, 0x3e);
  if (!tableOffset || !entrySize || !count || !namesIndex || *entrySize < 64 ||
      *namesIndex >= *count) {
    return {};
  }
  auto header = [&](std::uint16_t index) {
    return *tableOffset + std::uint64_t{index} * *entrySize;
  };
  auto contents = [&](std::uint16_t index) -> std::optional<std::span<const std::byte>> {
    const auto offset = read<std::uint64_t>(elf, header(index) + 0x18);
    const auto size = read<std::uint64_t>(elf, header(index) + 0x20);
    if (!offset || !size) {
      return std::nullopt;
    }
    return slice(elf, *offset, *size);
  };
  const auto names = contents(*namesIndex);
  if (!names) {
    return {};
  }
  std::vector<Section> sections;
  for (std::uint16_t index = 0; index < *count; ++index) {
    const auto nameOffset = read<std::uint32_t>(elf, header(index));
    const auto body = contents(index);
    if (!nameOffset || !body || *nameOffset >= names->size()) {
      continue;
    }
    const auto* name = reinterpret_cast<const char*>(names->data() + *nameOffset);
    sections.push_back(
        Section{std::string_view(name, strnlen(name, names->size() - *nameOffset)), *body});
  }
  return sections;
}

// The layout one `.nv.info.<kernel>` section states, or nothing when its parameters' ordinals
// leave a gap (or an attribute cannot be read).
std::optional<std::vector<ParameterSlot>> layoutOf(std::span<const std::byte> info) {
  std::vector<std::optional<ParameterSlot>> byOrdinal;
  std::uint64_t at = 0;
  while (at + 4 <= info.size()) {
    const auto format = static_cast<std::uint8_t>(info[at]);
    const auto attribute = static_cast<std::uint8_t>(info[at + 1]);
    if (format != kSizedFormat) {
      at += 4;
      continue;
    }
    // In bounds: the loop and the size checks keep every read inside its span.
    const std::uint16_t size = read<std::uint16_t>(info, at + 2).value();
    const std::span<const std::byte> value = slice(info, at + 4, size);
    if (value.size() != size) {
      return std::nullopt;
    }
    if (attribute == kParameterInfo && size >= 12) {
      const std::uint16_t ordinal = read<std::uint16_t>(value, 4).value();
      const std::uint16_t offset = read<std::uint16_t>(value, 6).value();
      const std::uint32_t flags = read<std::uint32_t>(value, 8).value();
      if (ordinal >= byOrdinal.size()) {
        byOrdinal.resize(ordinal + 1);
      }
      byOrdinal[ordinal] = ParameterSlot{offset, flags >> 18};
    }
    at += 4 + size;
  }
  std::vector<ParameterSlot> layout;
  for (const auto& slot : byOrdinal) {
    if (!slot) {
      return std::nullopt;
    }
    layout.push_back(*slot);
  }
  return layout;
}

void addLayoutsOfCubin(std::span<const std::byte> elf,
                       std::map<std::string, std::vector<ParameterSlot>>& layouts) {
  for (const Section& section : sectionsOf(elf)) {
    if (!section.name.starts_with(kInfoPrefix) || section.name.size() == kInfoPrefix.size()) {
      continue;
    }
    if (auto layout = layoutOf(section.contents)) {
      layouts.emplace(std::string(section.name.substr(kInfoPrefix.size())), std::move(*layout));
    }
  }
}

} // namespace

std::map<std::string, std::vector<ParameterSlot>> parameterLayoutsIn(const void* fatCubin) {
  std::map<std::string, std::vector<ParameterSlot>> layouts;
  if (fatCubin == nullptr) {
    return layouts;
  }
  // The wrapper: magic, version, then the fat binary's address.
  std::uint32_t wrapperMagic = 0;
  std::memcpy(&wrapperMagic, fatCubin, sizeof wrapperMagic);
  if (wrapperMagic != kWrapperMagic) {
    return layouts;
  }
  const void* data = nullptr;
  std::memcpy(&data, static_cast<const std::byte*>(fatCubin) + 8, sizeof data);
  if (data == nullptr) {
    return layouts;
  }
  struct Header {
    std::uint32_t magic;
    std::uint16_t version;
    std::uint16_t headerSize;
    std::uint64_t entriesSize;
  } header;
  std::memcpy(&header, data, sizeof header);
  if (header.magic != kFatBinaryMagic || header.headerSize < sizeof header ||
      header.entriesSize > kLargestFatBinary) {
    return layouts;
  }
  const std::span<const std::byte> entries(static_cast<const std::byte*>(data) + header.headerSize,
                                           header.entriesSize);
  // Cubins for several architectures state the same kernels' layouts: those of the first
  // architecture are read, which spares decompressing the others.
  std::optional<std::uint32_t> readArchitecture;
  std::uint64_t at = 0;
  while (at < entries.size()) {
    const auto kind = read<std::uint16_t>(entries, at);
    const auto entryHeaderSize = read<std::uint32_t>(entries, at + 4);
    const auto payloadSize = read<std::uint64_t>(entries, at + 8);
    if (!kind || !entryHeaderSize || !payloadSize || *entryHeaderSize < 16) {
      break;
    }
    const std::span<const std::byte> payload = slice(entries, at + *entryHeaderSize, *payloadSize);
    if (payload.size() != *payloadSize) {
      break;
    }
    const std::span<const std::byte> entryHeader = slice(entries, at, *entryHeaderSize);
    const auto architecture = read<std::uint32_t>(entryHeader, 28);
    if (*kind == kCubinEntry && (!readArchitecture || readArchitecture == architecture)) {
      readArchitecture = architecture;
      const auto flags = read<std::uint64_t>(entryHeader, 40);
      const EntryCompression compression = flags ? compressionOf(*flags) : EntryCompression::None;
      if (compression == EntryCompression::None) {
        addLayoutsOfCubin(payload, layouts);
      } else {
        const auto compressedSize = read<std::uint32_t>(entryHeader, 16);
        const auto originalSize = read<std::uint64_t>(entryHeader, 56);
        const std::span<const std::byte> compressed =
            compressedSize && *compressedSize != 0 && *compressedSize <= payload.size()
                ? payload.first(*compressedSize)
                : payload;
        if (originalSize) {
          if (auto cubin = decompressEntry(compression, compressed, *originalSize)) {
            addLayoutsOfCubin(*cubin, layouts);
          }
        }
      }
    }
    at += *entryHeaderSize + *payloadSize;
  }
  return layouts;
}

} // namespace streamrace::emu
