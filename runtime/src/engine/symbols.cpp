// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/engine/symbols.h"

namespace streamrace {

SymbolTable::SymbolTable() : names_{""}, sites_(1) {
  name_ids_.emplace("", 0);
}

NameId SymbolTable::intern(std::string_view text) {
  auto [it, inserted] =
      name_ids_.try_emplace(std::string(text), static_cast<NameId>(names_.size()));
  if (inserted) names_.emplace_back(text);
  return it->second;
}

std::string_view SymbolTable::name(NameId id) const {
  return id < names_.size() ? std::string_view(names_[id]) : std::string_view();
}

std::string SymbolTable::key_of(const CallSite& site) {
  std::string key = site.api;
  for (const StackFrame& frame : site.frames)
    key += '\0' + frame.function + '\0' + frame.file + '\0' + std::to_string(frame.line);
  return key;
}

CallSiteId SymbolTable::add_call_site(CallSite site) {
  auto [it, inserted] = site_ids_.try_emplace(key_of(site), static_cast<CallSiteId>(sites_.size()));
  if (inserted) sites_.push_back(std::move(site));
  return it->second;
}

void SymbolTable::replace_call_site(CallSiteId id, CallSite site) {
  if (id == 0 || id >= sites_.size()) return;
  if (auto old = site_ids_.find(key_of(sites_[id])); old != site_ids_.end() && old->second == id)
    site_ids_.erase(old);
  site_ids_.try_emplace(key_of(site), id);
  sites_[id] = std::move(site);
}

const CallSite* SymbolTable::call_site(CallSiteId id) const {
  return id != 0 && id < sites_.size() ? &sites_[id] : nullptr;
}

} // namespace streamrace
