// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "subscriber.h"

#include <cstdio>

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>

#include "callback_hooks.h"

namespace streamrace::emu::cupti {

namespace {

bool hooksWanted(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  return Subscriber::instance().enabled(domain, cbid);
}

void hooksDeliver(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* cbdata) {
  Subscriber::instance().deliver(domain, cbid, cbdata);
}

constexpr CallbackHooks kSubscriberHooks{&hooksWanted, &hooksDeliver};

} // namespace

std::uint32_t callbackCountOf(CUpti_CallbackDomain domain) {
  switch (domain) {
  case CUPTI_CB_DOMAIN_RUNTIME_API:
    return CUPTI_RUNTIME_TRACE_CBID_SIZE;
  case CUPTI_CB_DOMAIN_DRIVER_API:
    return CUPTI_DRIVER_TRACE_CBID_SIZE;
  case CUPTI_CB_DOMAIN_RESOURCE:
    return CUPTI_CBID_RESOURCE_SIZE;
  case CUPTI_CB_DOMAIN_SYNCHRONIZE:
    return CUPTI_CBID_SYNCHRONIZE_SIZE;
  default:
    return 0;
  }
}

Subscriber& Subscriber::instance() {
  static Subscriber subscriber;
  return subscriber;
}

CUptiResult Subscriber::subscribe(CUpti_SubscriberHandle* handle, CUpti_CallbackFunc callback,
                                  void* userdata, const char* name) {
  if (handle == nullptr) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  bool wasActive = false;
  if (!active_.compare_exchange_strong(wasActive, true)) {
    return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  }
  holderName_.fill('\0');
  if (name != nullptr && *name != '\0') {
    std::snprintf(holderName_.data(), holderName_.size(), "CUPTI for %s", name);
  }
  for (DomainBits& bits : enabledBits_) {
    for (std::atomic<std::uint64_t>& word : bits) {
      word.store(0);
    }
  }
  callback_.store(callback);
  userdata_.store(userdata);
  installCallbackHooks(&kSubscriberHooks);
  *handle = reinterpret_cast<CUpti_SubscriberHandle>(this);
  return CUPTI_SUCCESS;
}

CUptiResult Subscriber::unsubscribe(CUpti_SubscriberHandle handle) {
  if (!owns(handle)) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  installCallbackHooks(nullptr);
  callback_.store(nullptr);
  active_.store(false);
  return CUPTI_SUCCESS;
}

void Subscriber::copyHolderName(char* out, std::size_t size) const {
  if (out != nullptr && size > 0) {
    std::snprintf(out, size, "%s", holderName_.data());
  }
}

void Subscriber::detach() {
  if (active_.load()) {
    unsubscribe(reinterpret_cast<CUpti_SubscriberHandle>(this));
  }
}

bool Subscriber::owns(CUpti_SubscriberHandle handle) const {
  return active_.load() &&
         handle == reinterpret_cast<CUpti_SubscriberHandle>(const_cast<Subscriber*>(this));
}

void Subscriber::enable(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, bool on) {
  std::atomic<std::uint64_t>& word = enabledBits_[domain][cbid / 64];
  std::uint64_t bit = std::uint64_t{1} << (cbid % 64);
  if (on) {
    word.fetch_or(bit);
  } else {
    word.fetch_and(~bit);
  }
}

bool Subscriber::enabled(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) const {
  if (!active_.load(std::memory_order_acquire) || domain <= CUPTI_CB_DOMAIN_INVALID ||
      domain >= CUPTI_CB_DOMAIN_SIZE || cbid >= kBitsPerDomain) {
    return false;
  }
  return (enabledBits_[domain][cbid / 64].load(std::memory_order_relaxed) >> (cbid % 64) & 1) != 0;
}

void Subscriber::deliver(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                         const void* cbdata) const {
  CUpti_CallbackFunc callback = callback_.load();
  if (callback != nullptr) {
    callback(userdata_.load(), domain, cbid, cbdata);
  }
}

} // namespace streamrace::emu::cupti
