#include "streamrace/runtime/symbols.h"

namespace streamrace {

SymbolTable::SymbolTable() : names_{""}, sites_(1) { name_ids_.emplace("", 0); }

NameId SymbolTable::intern(std::string_view text) {
  auto [it, inserted] = name_ids_.try_emplace(std::string(text), static_cast<NameId>(names_.size()));
  if (inserted) names_.emplace_back(text);
  return it->second;
}

std::string_view SymbolTable::name(NameId id) const {
  return id < names_.size() ? std::string_view(names_[id]) : std::string_view();
}

CallSiteId SymbolTable::add_call_site(CallSite site) {
  sites_.push_back(std::move(site));
  return static_cast<CallSiteId>(sites_.size() - 1);
}

const CallSite* SymbolTable::call_site(CallSiteId id) const {
  return id != 0 && id < sites_.size() ? &sites_[id] : nullptr;
}

} // namespace streamrace
