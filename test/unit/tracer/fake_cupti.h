// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// CUPTI for in-process tests of the tracer: it keeps the subscriber's callback and what it
// enabled, and calls it around a CUDA call as CUPTI does (enter, then exit with the call's
// result), with the parameter struct the runtime would pass. No libcupti, no CUDA runtime.
#pragma once

#include "cuda_entry/cupti_api.h"

#include <cupti.h>

#include <functional>
#include <set>
#include <string>
#include <utility>

namespace streamrace::tracer::test {

class FakeCupti final : public CuptiApi {
public:
  // Makes every later subscribe fail with `result`, as CUPTI does when another tool holds it
  // (named `holder`, as cuptiSubscribe_v2 names it; empty when CUPTI does not say).
  void refuse_subscriptions(CUptiResult result, std::string holder = {}) {
    refusal_ = result;
    holder_ = std::move(holder);
  }

  CUptiResult subscribe(CUpti_SubscriberHandle& subscriber, CUpti_CallbackFunc callback,
                        void* userdata, std::string& holder) override {
    if (refusal_ != CUPTI_SUCCESS) {
      holder = holder_;
      return refusal_;
    }
    callback_ = callback;
    userdata_ = userdata;
    subscriber = reinterpret_cast<CUpti_SubscriberHandle>(this);
    return CUPTI_SUCCESS;
  }
  CUptiResult enable_domain(CUpti_SubscriberHandle, CUpti_CallbackDomain domain) override {
    enabled_domains_.insert(domain);
    return CUPTI_SUCCESS;
  }
  CUptiResult enable_callback(CUpti_SubscriberHandle, CUpti_CallbackDomain domain,
                              CUpti_CallbackId id) override {
    enabled_callbacks_.insert({domain, id});
    return CUPTI_SUCCESS;
  }
  std::string describe(CUptiResult result) override {
    return "CUPTI result " + std::to_string(static_cast<int>(result));
  }

  bool enabled(CUpti_CallbackDomain domain, CUpti_CallbackId id) const {
    return enabled_domains_.contains(domain) || enabled_callbacks_.contains({domain, id});
  }

  // One runtime API call named `name` (CUPTI's functionName) with the runtime's parameter struct
  // `params`, returning `result`; nothing when its callback is not enabled. `body`, when given,
  // is what happens between the call's enter and exit callbacks (the runtime's work, or another
  // thread's calls landing meanwhile).
  template <typename Params>
  void call_runtime(CUpti_CallbackId id, const char* name, Params& params, int result = 0,
                    const std::function<void()>& body = {}) {
    deliver(CUPTI_CB_DOMAIN_RUNTIME_API, id, name, &params, result, body);
  }

private:
  void deliver(CUpti_CallbackDomain domain, CUpti_CallbackId id, const char* name, void* params,
               int result, const std::function<void()>& body) {
    if (callback_ == nullptr || !enabled(domain, id)) return;
    CUpti_CallbackData data{};
    data.functionName = name;
    data.functionParams = params;
    data.callbackSite = CUPTI_API_ENTER;
    callback_(userdata_, domain, id, &data);
    if (body) body();
    data.functionReturnValue = &result;
    data.callbackSite = CUPTI_API_EXIT;
    callback_(userdata_, domain, id, &data);
  }

  CUptiResult refusal_ = CUPTI_SUCCESS;
  std::string holder_;
  CUpti_CallbackFunc callback_ = nullptr;
  void* userdata_ = nullptr;
  std::set<CUpti_CallbackDomain> enabled_domains_;
  std::set<std::pair<CUpti_CallbackDomain, CUpti_CallbackId>> enabled_callbacks_;
};

} // namespace streamrace::tracer::test
