// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cuda_entry/cupti_api.h"

#include <array>
#include <cstring>
#include <dlfcn.h>
#include <linux/limits.h>

namespace streamrace::tracer {

namespace {

class LoadedCupti final : public CuptiApi {
public:
  using Subscribe = CUptiResult (*)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*);
  using SubscribeNamed = CUptiResult (*)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*,
                                         CUpti_SubscriberParams*);
  using EnableDomain = CUptiResult (*)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain);
  using EnableCallback = CUptiResult (*)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
                                         CUpti_CallbackId);
  using ResultString = CUptiResult (*)(CUptiResult, const char**);

  LoadedCupti(Subscribe subscribe, SubscribeNamed subscribe_named, EnableDomain enable_domain,
              EnableCallback enable_callback, ResultString result_string)
      : subscribe_(subscribe), subscribe_named_(subscribe_named), enable_domain_(enable_domain),
        enable_callback_(enable_callback), result_string_(result_string) {}

  CUptiResult subscribe(CUpti_SubscriberHandle& subscriber, CUpti_CallbackFunc callback,
                        void* userdata, std::string& holder) override {
    if (subscribe_named_ == nullptr) return subscribe_(&subscriber, callback, userdata);
    std::array<char, CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN> old_name{};
    CUpti_SubscriberParams params{};
    params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
    params.subscriberName = "streamrace";
    params.oldSubscriberName = old_name.data();
    params.oldSubscriberSize = old_name.size();
    const CUptiResult result = subscribe_named_(&subscriber, callback, userdata, &params);
    if (result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
      holder.assign(old_name.data(), strnlen(old_name.data(), old_name.size()));
    return result;
  }
  CUptiResult enable_domain(CUpti_SubscriberHandle subscriber,
                            CUpti_CallbackDomain domain) override {
    return enable_domain_(1, subscriber, domain);
  }
  CUptiResult enable_callback(CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain,
                              CUpti_CallbackId id) override {
    return enable_callback_(1, subscriber, domain, id);
  }
  std::string describe(CUptiResult result) override {
    const char* text = "unknown CUPTI error";
    if (result_string_ != nullptr) result_string_(result, &text);
    return text;
  }

private:
  Subscribe subscribe_;
  SubscribeNamed subscribe_named_; // optional: an older libcupti has no cuptiSubscribe_v2
  EnableDomain enable_domain_;
  EnableCallback enable_callback_;
  ResultString result_string_; // optional: only for messages
};

// The libcupti that belongs to the program's CUDA: one already loaded (PyTorch loads its wheel's
// copy), else the one beside the runtime the program runs on (CUDA 13 keeps them in one folder,
// in the toolkit and in the nvidia-cu13 wheel; a program carrying its CUDA by RPATH on a machine
// without a system CUDA has no other), else whichever the library path finds.
void* open_cupti() {
  constexpr const char* soname = "libcupti.so.13";
  if (void* loaded = dlopen(soname, RTLD_NOW | RTLD_NOLOAD)) return loaded;
  if (void* runtime = dlopen("libcudart.so.13", RTLD_NOW | RTLD_NOLOAD)) {
    char folder[PATH_MAX] = {};
    const bool found = dlinfo(runtime, RTLD_DI_ORIGIN, folder) == 0;
    dlclose(runtime);
    if (found)
      if (void* beside =
              dlopen((std::string(folder) + "/" + soname).c_str(), RTLD_NOW | RTLD_GLOBAL))
        return beside;
  }
  if (void* found = dlopen(soname, RTLD_NOW | RTLD_GLOBAL)) return found;
  return dlopen("libcupti.so", RTLD_NOW | RTLD_GLOBAL);
}

} // namespace

std::unique_ptr<CuptiApi> load_cupti(std::string& problem) {
  // Never closed: the callbacks stay subscribed for the life of the process.
  void* cupti = open_cupti();
  if (cupti == nullptr) {
    problem = std::string("cannot load libcupti (looked beside libcudart.so.13 and on the library "
                          "path): ") +
              dlerror();
    return nullptr;
  }
  auto subscribe = reinterpret_cast<LoadedCupti::Subscribe>(dlsym(cupti, "cuptiSubscribe"));
  auto subscribe_named =
      reinterpret_cast<LoadedCupti::SubscribeNamed>(dlsym(cupti, "cuptiSubscribe_v2"));
  auto enable_domain =
      reinterpret_cast<LoadedCupti::EnableDomain>(dlsym(cupti, "cuptiEnableDomain"));
  auto enable_callback =
      reinterpret_cast<LoadedCupti::EnableCallback>(dlsym(cupti, "cuptiEnableCallback"));
  auto result_string =
      reinterpret_cast<LoadedCupti::ResultString>(dlsym(cupti, "cuptiGetResultString"));
  if (subscribe == nullptr || enable_domain == nullptr || enable_callback == nullptr) {
    problem = "libcupti lacks cuptiSubscribe, cuptiEnableDomain or cuptiEnableCallback";
    return nullptr;
  }
  return std::make_unique<LoadedCupti>(subscribe, subscribe_named, enable_domain, enable_callback,
                                       result_string);
}

} // namespace streamrace::tracer
