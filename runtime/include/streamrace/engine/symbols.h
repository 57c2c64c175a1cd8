// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Strings and call sites, kept by whoever produces events (a front end, a trace reader, a
// test) and consulted only when findings are rendered: the engine works on ids alone.
#pragma once

#include "streamrace/engine/event.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace streamrace {

struct StackFrame {
  std::string function;
  std::string file;
  std::uint32_t line = 0;
};

struct CallSite {
  std::string api; // the CUDA/NCCL entry point, e.g. "cudaMemcpyAsync"
  std::vector<StackFrame> frames;
};

class SymbolTable {
public:
  SymbolTable();
  NameId intern(std::string_view text);
  std::string_view name(NameId id) const;
  // Identical call sites (same API, same frames) share one id, so the same line of code on
  // every rank deduplicates into one finding.
  CallSiteId add_call_site(CallSite site);
  // Gives site `id` new frames (symbolized late); a site it now equals keeps its own id.
  void replace_call_site(CallSiteId id, CallSite site);
  // Nothing for id 0 or an id this table never gave out.
  const CallSite* call_site(CallSiteId id) const;
  // Ids run from 0 (the empty name, the unknown site) to count - 1.
  NameId name_count() const { return static_cast<NameId>(names_.size()); }
  CallSiteId call_site_count() const { return static_cast<CallSiteId>(sites_.size()); }
  // What makes two sites one, as text: the same in every table (settle.cpp compares sites of
  // replays that interned them separately).
  static std::string key_of(const CallSite& site);

private:
  std::vector<std::string> names_;
  std::unordered_map<std::string, NameId> name_ids_;
  std::vector<CallSite> sites_;
  std::unordered_map<std::string, CallSiteId> site_ids_;
};

} // namespace streamrace
