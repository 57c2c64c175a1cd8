// A tiny CUPTI tool, loaded through CUDA_INJECTION64_PATH: its InitializeInjection subscribes to
// the runtime, driver, resource and synchronize domains and prints what it sees, with the
// parameters of a few calls read from the real *_params structs.
#include <cupti.h>

#include <cstdio>

namespace {

const char* callbackName(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  const char* name = nullptr;
  return cuptiGetCallbackName(domain, cbid, &name) == CUPTI_SUCCESS ? name : "?";
}

void printRuntimeParams(CUpti_CallbackId cbid, const CUpti_CallbackData* data) {
  switch (cbid) {
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020: {
    const auto* params = static_cast<const cudaMemcpyAsync_v3020_params*>(data->functionParams);
    std::printf(" count=%zu kind=%d", params->count, static_cast<int>(params->kind));
    break;
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020: {
    const auto* params = static_cast<const cudaStreamWaitEvent_v3020_params*>(data->functionParams);
    std::printf(" event=%s flags=%u", params->event != nullptr ? "set" : "null", params->flags);
    break;
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000: {
    const auto* params = static_cast<const cudaLaunchKernel_v7000_params*>(data->functionParams);
    std::printf(" grid=%u block=%u symbol=%s", params->gridDim.x, params->blockDim.x,
                data->symbolName != nullptr ? data->symbolName : "?");
    break;
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020: {
    const auto* params = static_cast<const cudaMalloc_v3020_params*>(data->functionParams);
    std::printf(" size=%zu", params->size);
    break;
  }
  default:
    break;
  }
}

void CUPTIAPI onCallback(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                         const void* cbdata) {
  static_cast<void>(userdata);
  switch (domain) {
  case CUPTI_CB_DOMAIN_RUNTIME_API:
  case CUPTI_CB_DOMAIN_DRIVER_API: {
    const auto* data = static_cast<const CUpti_CallbackData*>(cbdata);
    const char* domainName = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? "runtime" : "driver";
    if (data->callbackSite == CUPTI_API_ENTER) {
      *data->correlationData = data->correlationId;
      std::printf("cupti: %s enter %s [%s]", domainName, data->functionName,
                  callbackName(domain, cbid));
      if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
        printRuntimeParams(cbid, data);
      } else if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel) {
        const auto* params = static_cast<const cuLaunchKernel_params*>(data->functionParams);
        std::printf(" grid=%u block=%u symbol=%s%s", params->gridDimX, params->blockDimX,
                    data->symbolName,
                    params->kernelParams == nullptr && params->extra != nullptr ? " packed" : "");
      }
      std::printf("\n");
    } else {
      bool correlated = *data->correlationData == data->correlationId;
      if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
        cudaError_t result = *static_cast<const cudaError_t*>(data->functionReturnValue);
        std::printf("cupti: runtime exit %s -> %d%s\n", data->functionName,
                    static_cast<int>(result), correlated ? "" : " (correlation lost)");
      } else {
        std::printf("cupti: driver exit %s%s\n", data->functionName,
                    correlated ? "" : " (correlation lost)");
      }
    }
    break;
  }
  case CUPTI_CB_DOMAIN_RESOURCE: {
    const auto* data = static_cast<const CUpti_ResourceData*>(cbdata);
    const char* what = cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED  ? "context created"
                       : cbid == CUPTI_CBID_RESOURCE_STREAM_CREATED ? "stream created"
                       : cbid == CUPTI_CBID_RESOURCE_STREAM_DESTROY_STARTING
                           ? "stream destroy starting"
                           : "other";
    std::printf("cupti: resource %s context=%s stream=%s\n", what,
                data->context != nullptr ? "set" : "null",
                data->resourceHandle.stream != nullptr ? "set" : "null");
    break;
  }
  case CUPTI_CB_DOMAIN_SYNCHRONIZE: {
    const auto* data = static_cast<const CUpti_SynchronizeData*>(cbdata);
    std::printf("cupti: synchronize %s stream=%s\n",
                cbid == CUPTI_CBID_SYNCHRONIZE_STREAM_SYNCHRONIZED ? "stream" : "context",
                data->stream != nullptr ? "set" : "null");
    break;
  }
  default:
    break;
  }
}

} // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  std::printf("cupti tool: InitializeInjection\n");
  CUpti_SubscriberHandle subscriber = nullptr;
  CUptiResult result = cuptiSubscribe(&subscriber, onCallback, nullptr);
  if (result != CUPTI_SUCCESS) {
    const char* text = nullptr;
    cuptiGetResultString(result, &text);
    std::printf("cupti tool: cuptiSubscribe failed: %s\n", text);
    return 0;
  }
  CUpti_SubscriberHandle second = nullptr;
  const char* secondResult = nullptr;
  cuptiGetResultString(cuptiSubscribe(&second, onCallback, nullptr), &secondResult);
  std::printf("cupti tool: second subscriber: %s\n", secondResult);
  cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
  cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
                      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
  cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE);
  cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_SYNCHRONIZE);
  return 1;
}
