// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The public CUPTI callback API: subscribe, enable, names and result strings.
#include <cupti.h>

#include <cstring>

#include "callback_names.h"
#include "subscriber.h"

using streamrace::emu::cupti::callbackCountOf;
using streamrace::emu::cupti::Subscriber;

namespace {

bool validCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  return cbid > 0 && cbid < callbackCountOf(domain);
}

CUptiResult enableDomain(bool on, CUpti_CallbackDomain domain) {
  std::uint32_t count = callbackCountOf(domain);
  if (count == 0) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  for (CUpti_CallbackId cbid = 1; cbid < count; ++cbid) {
    Subscriber::instance().enable(domain, cbid, on);
  }
  return CUPTI_SUCCESS;
}

// The domains whose callbacks the emulated runtime delivers.
CUpti_CallbackDomain supportedDomains[] = {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_CB_DOMAIN_RUNTIME_API,
                                           CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CB_DOMAIN_SYNCHRONIZE};

} // namespace

extern "C" {

CUptiResult cuptiGetVersion(uint32_t* version) {
  if (version == nullptr) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  *version = CUPTI_API_VERSION;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiSupportedDomains(size_t* domainCount, CUpti_DomainTable* domainTable) {
  if (domainCount == nullptr || domainTable == nullptr) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  *domainCount = sizeof supportedDomains / sizeof supportedDomains[0];
  *domainTable = supportedDomains;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiSubscribe(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc callback,
                           void* userdata) {
  return Subscriber::instance().subscribe(subscriber, callback, userdata);
}

CUptiResult cuptiSubscribe_v2(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc callback,
                              void* userdata, CUpti_SubscriberParams* params) {
  CUptiResult result = Subscriber::instance().subscribe(
      subscriber, callback, userdata, params != nullptr ? params->subscriberName : nullptr);
  if (result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED && params != nullptr) {
    Subscriber::instance().copyHolderName(params->oldSubscriberName, params->oldSubscriberSize);
  }
  return result;
}

CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle subscriber) {
  return Subscriber::instance().unsubscribe(subscriber);
}

CUptiResult cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber,
                                CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  if (!Subscriber::instance().owns(subscriber) || !validCallback(domain, cbid)) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  Subscriber::instance().enable(domain, cbid, enable != 0);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiGetCallbackState(uint32_t* enable, CUpti_SubscriberHandle subscriber,
                                  CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  if (enable == nullptr || !Subscriber::instance().owns(subscriber) ||
      !validCallback(domain, cbid)) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  *enable = Subscriber::instance().enabled(domain, cbid) ? 1 : 0;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle subscriber,
                              CUpti_CallbackDomain domain) {
  if (!Subscriber::instance().owns(subscriber)) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  return enableDomain(enable != 0, domain);
}

CUptiResult cuptiEnableAllDomains(uint32_t enable, CUpti_SubscriberHandle subscriber) {
  if (!Subscriber::instance().owns(subscriber)) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  for (CUpti_CallbackDomain domain : supportedDomains) {
    enableDomain(enable != 0, domain);
  }
  return CUPTI_SUCCESS;
}

CUptiResult cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid, const char** name) {
  if (name == nullptr) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  const char* found = streamrace::emu::cupti::callbackName(domain, cbid);
  if (found == nullptr) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  *name = found;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiGetResultString(CUptiResult result, const char** str) {
  if (str == nullptr) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  const char* found = streamrace::emu::cupti::resultName(result);
  if (found == nullptr) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  *str = found;
  return CUPTI_SUCCESS;
}

} // extern "C"
