// Strings and call sites, kept by whoever produces events (a front end, a trace reader, a
// test) and consulted only when findings are rendered: the engine works on ids alone.
#pragma once

#include "streamrace/runtime/event.h"

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
  CallSiteId add_call_site(CallSite site);
  // Nothing for id 0 or an id this table never gave out.
  const CallSite* call_site(CallSiteId id) const;

private:
  std::vector<std::string> names_;
  std::unordered_map<std::string, NameId> name_ids_;
  std::vector<CallSite> sites_;
};

} // namespace streamrace
