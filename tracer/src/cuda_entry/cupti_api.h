// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The CUPTI entry points the tracer calls, behind one interface. The process resolves them once
// from libcupti (loaded at run time: a preloaded tracer must not stop a program from starting
// where libcupti is not on the library path); a unit test substitutes a fake that delivers the
// callbacks itself, so the way from a CUDA call to a finding runs in process without CUPTI.
#pragma once

#include <cupti.h>

#include <memory>
#include <string>

namespace streamrace::tracer {

class CuptiApi {
public:
  virtual ~CuptiApi() = default;
  // cuptiSubscribe, cuptiEnableDomain, cuptiEnableCallback, with CUPTI's meaning. Subscribes as
  // "streamrace"; when another subscriber holds CUPTI, `holder` gets the name CUPTI gives it
  // ("CUPTI for Nsight Systems"), empty when it does not say.
  virtual CUptiResult subscribe(CUpti_SubscriberHandle& subscriber, CUpti_CallbackFunc callback,
                                void* userdata, std::string& holder) = 0;
  virtual CUptiResult enable_domain(CUpti_SubscriberHandle subscriber,
                                    CUpti_CallbackDomain domain) = 0;
  virtual CUptiResult enable_callback(CUpti_SubscriberHandle subscriber,
                                      CUpti_CallbackDomain domain, CUpti_CallbackId id) = 0;
  // What `result` means, in CUPTI's words when it has any.
  virtual std::string describe(CUptiResult result) = 0;
};

// libcupti's entry points, resolved once; null, with `problem` saying why, when libcupti cannot
// be loaded or lacks one of them.
std::unique_ptr<CuptiApi> load_cupti(std::string& problem);

} // namespace streamrace::tracer
