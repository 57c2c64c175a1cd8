// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Another CUPTI tool (a profiler, as Nsight Systems or Kineto is): preloaded, it subscribes to
// CUPTI under its own name as the process starts, before the tracer can.
#include <cstdio>
#include <cupti.h>
#include <dlfcn.h>

namespace {

void CUPTIAPI ignore(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

__attribute__((constructor)) void subscribe_first() {
  void* cupti = dlopen("libcupti.so.13", RTLD_NOW | RTLD_GLOBAL);
  if (cupti == nullptr) return;
  using SubscribeNamed =
      CUptiResult (*)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*, CUpti_SubscriberParams*);
  auto subscribe = reinterpret_cast<SubscribeNamed>(dlsym(cupti, "cuptiSubscribe_v2"));
  CUpti_SubscriberParams params{};
  params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  params.subscriberName = "OtherProfiler";
  CUpti_SubscriberHandle subscriber = nullptr;
  if (subscribe == nullptr || subscribe(&subscriber, ignore, nullptr, &params) != CUPTI_SUCCESS)
    std::fprintf(stderr, "other profiler: cannot subscribe\n");
}

} // namespace
