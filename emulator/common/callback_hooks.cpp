// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "callback_hooks.h"

#include <atomic>

namespace streamrace::emu {

namespace {
std::atomic<const CallbackHooks*> installedHooks{nullptr};
} // namespace

void installCallbackHooks(const CallbackHooks* hooks) {
  installedHooks.store(hooks, std::memory_order_release);
}

const CallbackHooks* installedCallbackHooks() {
  return installedHooks.load(std::memory_order_acquire);
}

} // namespace streamrace::emu
