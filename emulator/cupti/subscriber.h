// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The one CUPTI subscriber a process may have (as with the real CUPTI), with its per-domain,
// per-callback enable bits. Installs itself as the emulator's callback hooks while subscribed.
#pragma once

#include <cupti_callbacks.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace streamrace::emu::cupti {

// Number of callback ids in a domain that CUPTI can enable; 0 for domains we do not have.
std::uint32_t callbackCountOf(CUpti_CallbackDomain domain);

class Subscriber {
public:
  static Subscriber& instance();

  // `name`, when given (cuptiSubscribe_v2), is what a later subscriber is told holds CUPTI.
  CUptiResult subscribe(CUpti_SubscriberHandle* handle, CUpti_CallbackFunc callback, void* userdata,
                        const char* name = nullptr);
  // The holder's name as CUPTI gives it to a refused subscriber ("CUPTI for <name>", empty for
  // one that subscribed without a name), truncated to `size` bytes with its terminator.
  void copyHolderName(char* out, std::size_t size) const;
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
  // Written before active_ is set, read only by a subscriber active_ turned away.
  std::array<char, 64> holderName_{};
  std::array<DomainBits, CUPTI_CB_DOMAIN_SIZE> enabledBits_{};
};

} // namespace streamrace::emu::cupti
