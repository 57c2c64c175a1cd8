// Where ops come from: the call site, the NVTX range path and the host thread that enqueued
// each. History remembers an origin for every access it keeps, and a program has few distinct
// ones (its call sites, by thread and NVTX range), so history names each by a 4-byte id from
// this table instead of carrying its 16 bytes in every record.
#pragma once

#include "streamrace/runtime/event.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace streamrace {

struct OpOrigin {
  CallSiteId site = 0;
  std::uint32_t nvtx = 0; // NVTX range path of the enqueuing thread
  ThreadId thread = 0;
  bool operator==(const OpOrigin&) const = default;
};

using OriginId = std::uint32_t; // 0: the origin with nothing known, {0, 0, 0}

class OpOrigins {
public:
  OriginId intern(const OpOrigin& origin) {
    // Ops come in runs from one place (a loop's body, one thread's burst): the last answer
    // is usually the answer.
    if (origin == origins_[last_]) return last_;
    return last_ = intern_new(origin);
  }
  const OpOrigin& operator[](OriginId id) const { return origins_[id]; }
  std::size_t size() const { return origins_.size(); }

private:
  struct Hash {
    std::size_t operator()(const OpOrigin& origin) const {
      const std::uint64_t place = (std::uint64_t{origin.site} << 32) | origin.nvtx;
      return static_cast<std::size_t>((place ^ origin.thread * 0x9E3779B97F4A7C15ull) *
                                      0x100000001B3ull);
    }
  };
  OriginId intern_new(const OpOrigin& origin);

  std::vector<OpOrigin> origins_{OpOrigin{}};
  std::unordered_map<OpOrigin, OriginId, Hash> ids_{{OpOrigin{}, 0}};
  OriginId last_ = 0;
};

} // namespace streamrace
