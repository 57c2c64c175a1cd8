// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "api_tracing.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "callback_hooks.h"
#include "runtime_state.h"

namespace streamrace::emu {

namespace {

thread_local cudaError_t lastErrorOfThread = cudaSuccess;
thread_local bool initializingOnThisThread = false;
// Set while a subscriber's callback runs on this thread: runtime calls the callback makes (to look
// up a stream's id, say) run without callbacks of their own, so a tool cannot recurse into itself.
thread_local bool insideCallback = false;
std::atomic<std::uint32_t> nextCorrelationId{1};

enum class InitState : int { NotStarted, Running, Done };
std::atomic<InitState> initState{InitState::NotStarted};

// The driver loads CUDA_INJECTION64_PATH when it initializes and calls its
// InitializeInjection; a tool uses that moment to subscribe to CUPTI.
void loadInjectionLibrary() {
  const char* path = std::getenv("CUDA_INJECTION64_PATH");
  if (path == nullptr || *path == '\0') {
    return;
  }
  void* library = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
  if (library == nullptr) {
    std::fprintf(stderr, "streamrace emulator: cannot load CUDA_INJECTION64_PATH=%s: %s\n", path,
                 dlerror());
    return;
  }
  using InitializeInjectionFn = int (*)();
  auto initialize = reinterpret_cast<InitializeInjectionFn>(dlsym(library, "InitializeInjection"));
  if (initialize == nullptr) {
    std::fprintf(stderr, "streamrace emulator: %s has no InitializeInjection function\n", path);
    return;
  }
  initialize();
}

class CallbackGuard {
public:
  CallbackGuard() { insideCallback = true; }
  ~CallbackGuard() { insideCallback = false; }
  CallbackGuard(const CallbackGuard&) = delete;
  CallbackGuard& operator=(const CallbackGuard&) = delete;
};

void deliver(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* cbdata) {
  if (insideCallback) {
    return;
  }
  CallbackGuard guard;
  deliverIfWanted(domain, cbid, cbdata);
}

void deliverResource(CUpti_CallbackIdResource cbid, int device, cudaStream_t stream) {
  CUpti_ResourceData data{};
  data.context = contextOf(device);
  data.resourceHandle.stream = stream;
  deliver(CUPTI_CB_DOMAIN_RESOURCE, cbid, &data);
}

void deliverSynchronize(CUpti_CallbackIdSync cbid, int device, cudaStream_t stream) {
  CUpti_SynchronizeData data{};
  data.context = contextOf(device);
  data.stream = stream;
  deliver(CUPTI_CB_DOMAIN_SYNCHRONIZE, cbid, &data);
}

} // namespace

void ensureInitialized() {
  if (initState.load(std::memory_order_acquire) == InitState::Done || initializingOnThisThread) {
    return;
  }
  InitState expected = InitState::NotStarted;
  if (initState.compare_exchange_strong(expected, InitState::Running)) {
    initializingOnThisThread = true;
    loadInjectionLibrary();
    initializingOnThisThread = false;
    initState.store(InitState::Done, std::memory_order_release);
    return;
  }
  while (initState.load(std::memory_order_acquire) != InitState::Done) {
    std::this_thread::yield();
  }
}

CUcontext contextOf(int device) {
  // The device object's address serves as its primary context's handle: unique and stable.
  return reinterpret_cast<CUcontext>(&Runtime::instance().device(device));
}

void ensureContext(int device) {
  if (!Runtime::instance().device(device).contextAnnounced.exchange(true)) {
    deliverResource(CUPTI_CBID_RESOURCE_CONTEXT_CREATED, device, nullptr);
  }
}

void setLastError(cudaError_t error) {
  lastErrorOfThread = error;
}

cudaError_t takeLastError() {
  cudaError_t error = lastErrorOfThread;
  lastErrorOfThread = cudaSuccess;
  return error;
}

cudaError_t peekLastError() {
  return lastErrorOfThread;
}

ApiCallbackScope::ApiCallbackScope(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                   const char* functionName, const void* params, void* returnValue,
                                   const char* symbolName)
    : domain_(domain), cbid_(cbid), insideTool_(insideCallback) {
  data_.functionName = functionName;
  data_.functionParams = params;
  data_.functionReturnValue = returnValue;
  data_.symbolName = symbolName;
  const CallbackHooks* hooks = installedCallbackHooks();
  if (insideTool_ || hooks == nullptr || !hooks->wanted(domain, cbid)) {
    return;
  }
  placeInContext();
  data_.callbackSite = CUPTI_API_ENTER;
  entered_ = true;
  CallbackGuard guard;
  hooks->deliver(domain, cbid, &data_);
}

void ApiCallbackScope::placeInContext() {
  int device = Runtime::instance().currentDevice();
  ensureContext(device);
  data_.context = contextOf(device);
  data_.contextUid = static_cast<std::uint32_t>(device + 1);
  data_.correlationData = &correlationData_;
  data_.correlationId = nextCorrelationId++;
}

void ApiCallbackScope::finish() {
  const CallbackHooks* hooks = installedCallbackHooks();
  if (insideTool_ || hooks == nullptr || !hooks->wanted(domain_, cbid_)) {
    return;
  }
  if (!entered_) {
    placeInContext();
  }
  data_.callbackSite = CUPTI_API_EXIT;
  deliver(domain_, cbid_, &data_);
}

void notifyStreamCreated(int device, cudaStream_t stream) {
  ensureContext(device);
  deliverResource(CUPTI_CBID_RESOURCE_STREAM_CREATED, device, stream);
}

void notifyStreamDestroyStarting(int device, cudaStream_t stream) {
  deliverResource(CUPTI_CBID_RESOURCE_STREAM_DESTROY_STARTING, device, stream);
}

void notifyStreamSynchronized(int device, cudaStream_t stream) {
  deliverSynchronize(CUPTI_CBID_SYNCHRONIZE_STREAM_SYNCHRONIZED, device, stream);
}

void notifyContextSynchronized(int device) {
  deliverSynchronize(CUPTI_CBID_SYNCHRONIZE_CONTEXT_SYNCHRONIZED, device, nullptr);
}

} // namespace streamrace::emu
