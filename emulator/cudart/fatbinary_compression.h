// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Fat binary entries nvcc compressed (`-Xfatbin -compress-all`, as PyTorch's wheels are built;
// `--compress-mode` picks the codec): the entry header's flags say LZ4 (a raw LZ4 block) or
// Zstandard (a zstd frame), and give the compressed and the original size. The codecs are the
// system's own libraries, opened on first use: a machine without them reads no compressed entry,
// which leaves those kernels without a stated layout, as before.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace streamrace::emu {

enum class EntryCompression { None, Lz4, Zstd };

// The codec an entry header's flags name.
EntryCompression compressionOf(std::uint64_t flags);

// The entry's payload as it was before compression (`originalSize` bytes), or nothing when the
// codec's library is missing or the payload does not decompress to exactly that size.
std::optional<std::vector<std::byte>> decompressEntry(EntryCompression compression,
                                                      std::span<const std::byte> payload,
                                                      std::uint64_t originalSize);

} // namespace streamrace::emu
