// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "nccl/nccl_exports.h"

#include <cstdint>
#include <cstdio>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace streamrace::tracer {

namespace {

constexpr std::string_view kUninterposed[] = {
#define STREAMRACE_NCCL_UNINTERPOSED(name, kind, why) #name,
#include "streamrace/api_model/nccl_uninterposed.def"
#undef STREAMRACE_NCCL_UNINTERPOSED
};

struct LoadedObject {
  std::string path;
  std::set<std::string> nccl_functions;
};

// A dynamic-section address: the loader relocates most of them in place, but not everywhere.
ElfW(Addr) absolute(ElfW(Addr) address, ElfW(Addr) base) {
  return address < base ? address + base : address;
}

// How many entries the dynamic symbol table has, from its hash table (the table has no size).
std::uint32_t symbol_count(const ElfW(Word) * sysv_hash, const std::uint32_t* gnu_hash) {
  if (sysv_hash != nullptr) return sysv_hash[1];
  if (gnu_hash == nullptr) return 0;
  const std::uint32_t buckets = gnu_hash[0];
  const std::uint32_t first_hashed = gnu_hash[1];
  const std::uint32_t bloom_words = gnu_hash[2];
  const auto* bucket = reinterpret_cast<const std::uint32_t*>(
      reinterpret_cast<const ElfW(Addr)*>(gnu_hash + 4) + bloom_words);
  const std::uint32_t* chain = bucket + buckets;
  std::uint32_t last = 0;
  for (std::uint32_t i = 0; i < buckets; ++i)
    if (bucket[i] > last) last = bucket[i];
  if (last < first_hashed) return first_hashed;
  while ((chain[last - first_hashed] & 1) == 0)
    ++last;
  return last + 1;
}

LoadedObject functions_of(const dl_phdr_info& info) {
  LoadedObject object{info.dlpi_name != nullptr ? info.dlpi_name : "", {}};
  const ElfW(Dyn)* dynamic = nullptr;
  for (ElfW(Half) i = 0; i < info.dlpi_phnum; ++i)
    if (info.dlpi_phdr[i].p_type == PT_DYNAMIC)
      dynamic = reinterpret_cast<const ElfW(Dyn)*>(info.dlpi_addr + info.dlpi_phdr[i].p_vaddr);
  if (dynamic == nullptr) return object;
  const ElfW(Sym)* symbols = nullptr;
  const char* names = nullptr;
  const ElfW(Word)* sysv_hash = nullptr;
  const std::uint32_t* gnu_hash = nullptr;
  for (const ElfW(Dyn)* entry = dynamic; entry->d_tag != DT_NULL; ++entry) {
    const ElfW(Addr) address = absolute(entry->d_un.d_ptr, info.dlpi_addr);
    if (entry->d_tag == DT_SYMTAB) symbols = reinterpret_cast<const ElfW(Sym)*>(address);
    if (entry->d_tag == DT_STRTAB) names = reinterpret_cast<const char*>(address);
    if (entry->d_tag == DT_HASH) sysv_hash = reinterpret_cast<const ElfW(Word)*>(address);
    if (entry->d_tag == DT_GNU_HASH) gnu_hash = reinterpret_cast<const std::uint32_t*>(address);
  }
  if (symbols == nullptr || names == nullptr) return object;
  const std::uint32_t count = symbol_count(sysv_hash, gnu_hash);
  for (std::uint32_t i = 0; i < count; ++i) {
    const ElfW(Sym) & symbol = symbols[i];
    const unsigned binding = ELF64_ST_BIND(symbol.st_info);
    if (symbol.st_shndx == SHN_UNDEF || ELF64_ST_TYPE(symbol.st_info) != STT_FUNC ||
        (binding != STB_GLOBAL && binding != STB_WEAK))
      continue;
    const std::string_view name = names + symbol.st_name;
    if (name.starts_with("nccl")) object.nccl_functions.emplace(name);
  }
  return object;
}

int collect(dl_phdr_info* info, std::size_t, void* objects) {
  static_cast<std::vector<LoadedObject>*>(objects)->push_back(functions_of(*info));
  return 0;
}

} // namespace

void warn_of_unknown_nccl_calls() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::vector<LoadedObject> objects;
    dl_iterate_phdr(collect, &objects);
    // The tracer's own exports are the interposed calls.
    Dl_info self{};
    if (dladdr(reinterpret_cast<const void*>(&warn_of_unknown_nccl_calls), &self) == 0) return;
    std::set<std::string> known(std::begin(kUninterposed), std::end(kUninterposed));
    for (const LoadedObject& object : objects)
      if (object.path == self.dli_fname)
        known.insert(object.nccl_functions.begin(), object.nccl_functions.end());
    for (const LoadedObject& object : objects) {
      if (object.path == self.dli_fname || !object.nccl_functions.contains("ncclGetVersion"))
        continue;
      std::string unknown;
      std::size_t count = 0;
      for (const std::string& name : object.nccl_functions)
        if (!known.contains(name)) {
          unknown += (count++ == 0 ? "" : ", ") + name;
        }
      if (count != 0)
        std::fprintf(stderr,
                     "streamrace: warning: %s exports %zu NCCL call(s) streamrace does not know: "
                     "%s; what they do is not checked\n",
                     object.path.empty() ? "the program" : object.path.c_str(), count,
                     unknown.c_str());
    }
  });
}

} // namespace streamrace::tracer
