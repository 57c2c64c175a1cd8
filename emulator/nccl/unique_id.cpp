// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "unique_id.h"

#include "settings.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <random>

namespace streamrace::emu::nccl {
namespace {

constexpr char kIdMagic[] = "streamrace-emu-nccl:";

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t hash = 1469598103934665603ull;
  for (const unsigned char c : text) {
    hash = (hash ^ c) * 1099511628211ull;
  }
  return hash;
}

std::string hex(std::uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(value));
  return text;
}

} // namespace

ncclUniqueId uniqueIdFor(const std::string& segmentName) {
  ncclUniqueId id{};
  std::snprintf(id.internal, sizeof(id.internal), "%s%s", kIdMagic, segmentName.c_str());
  return id;
}

std::string randomSegmentName() {
  static std::atomic<std::uint64_t> calls{0};
  std::random_device entropy;
  const std::uint64_t random =
      (static_cast<std::uint64_t>(entropy()) << 32) ^ entropy() ^
      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  return "/srnccl-" + hex(fnv1a(std::to_string(getpid()) + "#" + std::to_string(calls++) + "#" +
                                std::to_string(random)));
}

std::string newSegmentName() {
  if (const std::optional<std::string> shared = settingText(Setting::NcclId)) {
    static std::atomic<std::uint64_t> sharedCalls{0};
    return "/srnccl-" + hex(fnv1a(*shared + "#" + std::to_string(sharedCalls++)));
  }
  return randomSegmentName();
}

std::string derivedSegmentName(const std::string& parentSegmentName, std::uint64_t splitIndex,
                               int color) {
  return "/srnccl-" + hex(fnv1a(parentSegmentName + "/split" + std::to_string(splitIndex) +
                                "/color" + std::to_string(color)));
}

std::optional<std::string> segmentNameOf(const ncclUniqueId& id) {
  const std::size_t magicLength = std::strlen(kIdMagic);
  if (std::strncmp(id.internal, kIdMagic, magicLength) != 0) {
    return std::nullopt;
  }
  const std::size_t length = strnlen(id.internal, sizeof(id.internal));
  if (length == sizeof(id.internal) || length == magicLength) {
    return std::nullopt;
  }
  return std::string(id.internal + magicLength, length - magicLength);
}

std::string displayNameOf(const std::string& segmentName) {
  const std::size_t dash = segmentName.rfind('-');
  return dash == std::string::npos ? segmentName : segmentName.substr(dash + 1, 8);
}

} // namespace streamrace::emu::nccl
