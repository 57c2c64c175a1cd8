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
constexpr Named runtimeNames[] = {
#include "runtime_callback_names.inc"
};
constexpr Named driverNames[] = {
#include "driver_callback_names.inc"
};
constexpr Named resultNames[] = {
#include "result_names.inc"
};

template <std::size_t N> const char* lookup(const Named (&table)[N], std::uint32_t value) {
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
    return lookup(runtimeNames, cbid);
  case CUPTI_CB_DOMAIN_DRIVER_API:
    return lookup(driverNames, cbid);
  default:
    return nullptr;
  }
}

const char* resultName(CUptiResult result) {
  return lookup(resultNames, static_cast<std::uint32_t>(result));
}

} // namespace streamrace::emu::cupti
