// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "callback_names.h"

#include <cstdint>

namespace streamrace::emu::cupti {

namespace {

struct Named {
  std::uint32_t value;
  const char* name;
};

// Generated at build time from cupti_runtime_cbid.h, cupti_driver_cbid.h and cupti_result.h.
constexpr Named kRuntimeNames[] = {
#include "runtime_callback_names.inc"
};
constexpr Named kDriverNames[] = {
#include "driver_callback_names.inc"
};
constexpr Named kResultNames[] = {
#include "result_names.inc"
};

template <std::size_t n> const char* lookup(const Named (&table)[n], std::uint32_t value) {
  for (const Named& entry : table) {
    if (entry.value == value) {
      return entry.name;
    }
  }
  return nullptr;
}

} // namespace

const char* callbackName(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  switch (domain) {
  case CUPTI_CB_DOMAIN_RUNTIME_API:
    return lookup(kRuntimeNames, cbid);
  case CUPTI_CB_DOMAIN_DRIVER_API:
    return lookup(kDriverNames, cbid);
  default:
    return nullptr;
  }
}

const char* resultName(CUptiResult result) {
  return lookup(kResultNames, static_cast<std::uint32_t>(result));
}

} // namespace streamrace::emu::cupti
