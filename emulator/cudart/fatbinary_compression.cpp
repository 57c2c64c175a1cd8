// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "fatbinary_compression.h"

#include <dlfcn.h>

#include <cstdio>
#include <mutex>

namespace streamrace::emu {

namespace {

constexpr std::uint64_t kLz4Flag = 0x2000;
constexpr std::uint64_t kZstdFlag = 0x8000;
// A cubin of a few hundred MB would be extraordinary; a size beyond this is a misread header.
constexpr std::uint64_t kLargestEntry = std::uint64_t{1} << 30;

// The two functions needed, by their stable C signatures (liblz4 1.x, libzstd 1.x).
using Lz4Decompress = int (*)(const char* source, char* destination, int compressedSize,
                              int destinationCapacity);
using ZstdDecompress = std::size_t (*)(void* destination, std::size_t destinationCapacity,
                                       const void* source, std::size_t compressedSize);
using ZstdIsError = unsigned (*)(std::size_t code);

struct Codecs {
  Lz4Decompress lz4 = nullptr;
  ZstdDecompress zstd = nullptr;
  ZstdIsError zstdIsError = nullptr;
};

// Opened once and kept for the process's life (as the dynamic loader keeps them anyway).
const Codecs& codecs() {
  static const Codecs loaded = [] {
    Codecs found;
    if (void* lz4 = dlopen("liblz4.so.1", RTLD_NOW | RTLD_LOCAL)) {
      found.lz4 = reinterpret_cast<Lz4Decompress>(dlsym(lz4, "LZ4_decompress_safe"));
    }
    if (void* zstd = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL)) {
      found.zstd = reinterpret_cast<ZstdDecompress>(dlsym(zstd, "ZSTD_decompress"));
      found.zstdIsError = reinterpret_cast<ZstdIsError>(dlsym(zstd, "ZSTD_isError"));
    }
    return found;
  }();
  return loaded;
}

void sayMissingOnce(const char* library) {
  static std::once_flag said;
  std::call_once(said, [library] {
    std::fprintf(stderr,
                 "streamrace emulator: compressed kernels found but %s is missing; kernels taking "
                 "structs by value in them get no parameter layout\n",
                 library);
  });
}

} // namespace

EntryCompression compressionOf(std::uint64_t flags) {
  if ((flags & kZstdFlag) != 0) {
    return EntryCompression::Zstd;
  }
  if ((flags & kLz4Flag) != 0) {
    return EntryCompression::Lz4;
  }
  return EntryCompression::None;
}

std::optional<std::vector<std::byte>> decompressEntry(EntryCompression compression,
                                                      std::span<const std::byte> payload,
                                                      std::uint64_t originalSize) {
  if (compression == EntryCompression::None || originalSize == 0 || originalSize > kLargestEntry) {
    return std::nullopt;
  }
  const Codecs& available = codecs();
  std::vector<std::byte> original(originalSize);
  if (compression == EntryCompression::Lz4) {
    if (available.lz4 == nullptr) {
      sayMissingOnce("liblz4.so.1");
      return std::nullopt;
    }
    if (payload.size() > kLargestEntry) {
      return std::nullopt;
    }
    const int written = available.lz4(
        reinterpret_cast<const char*>(payload.data()), reinterpret_cast<char*>(original.data()),
        static_cast<int>(payload.size()), static_cast<int>(originalSize));
    if (written < 0 || static_cast<std::uint64_t>(written) != originalSize) {
      return std::nullopt;
    }
    return original;
  }
  if (available.zstd == nullptr || available.zstdIsError == nullptr) {
    sayMissingOnce("libzstd.so.1");
    return std::nullopt;
  }
  const std::size_t written =
      available.zstd(original.data(), original.size(), payload.data(), payload.size());
  if (available.zstdIsError(written) != 0 || written != originalSize) {
    return std::nullopt;
  }
  return original;
}

} // namespace streamrace::emu
