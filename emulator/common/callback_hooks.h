// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The hand-off between the emulated libcudart (which makes API calls happen) and the emulated
// libcupti (which knows who subscribed). libcupti installs its hooks on cuptiSubscribe; libcudart
// asks them, at every API enter and exit, whether anyone wants that callback and delivers it.
#pragma once

#include <cupti_callbacks.h>

namespace streamrace::emu {

struct CallbackHooks {
  // Cheap test done before building any callback record.
  bool (*wanted)(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);
  void (*deliver)(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* cbdata);
};

// nullptr uninstalls. The pointee must outlive its installation.
void installCallbackHooks(const CallbackHooks* hooks);
const CallbackHooks* installedCallbackHooks();

// Delivers when installed hooks want it; returns whether it did.
inline bool deliverIfWanted(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                            const void* cbdata) {
  const CallbackHooks* hooks = installedCallbackHooks();
  if (hooks == nullptr || !hooks->wanted(domain, cbid)) {
    return false;
  }
  hooks->deliver(domain, cbid, cbdata);
  return true;
}

} // namespace streamrace::emu
