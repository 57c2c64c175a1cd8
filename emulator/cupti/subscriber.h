// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The one CUPTI subscriber a process may have (as with the real CUPTI), with its per-domain,
// per-callback enable bits. Installs itself as the emulator's callback hooks while subscribed.
#pragma once

#include <cupti_callbacks.h>

#include <array>
#include <atomic>
#include <cstdint>

namespace streamrace::emu::cupti {

// Number of callback ids in a domain that CUPTI can enable; 0 for domains we do not have.
std::uint32_t callbackCountOf(CUpti_CallbackDomain domain);

class Subscriber {
public:
  static Subscriber& instance();

  CUptiResult subscribe(CUpti_SubscriberHandle* handle, CUpti_CallbackFunc callback,
                        void* userdata);
  CUptiResult unsubscribe(CUpti_SubscriberHandle handle);
  // cuptiFinalize: the subscriber, if any, stops receiving callbacks.
  void detach();
  bool owns(CUpti_SubscriberHandle handle) const;

  void enable(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, bool on);
  bool enabled(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) const;
  void deliver(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* cbdata) const;

private:
  static constexpr std::size_t kBitsPerDomain = 1024;
  using DomainBits = std::array<std::atomic<std::uint64_t>, kBitsPerDomain / 64>;

  std::atomic<bool> active_{false};
  std::atomic<CUpti_CallbackFunc> callback_{nullptr};
  std::atomic<void*> userdata_{nullptr};
  std::array<DomainBits, CUPTI_CB_DOMAIN_SIZE> enabledBits_{};
};

} // namespace streamrace::emu::cupti
