// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The CUPTI callback API as a tool uses it in process: the enabled callbacks arrive at enter and
// exit with the real parameter structs; disabled ones and those after unsubscribing do not.
#include "emulator_test_support.h"

#include <cupti.h>

#include <string>
#include <vector>

namespace streamrace::emu::test {
namespace {

struct Seen {
  std::vector<std::string> calls;
  std::size_t memsetCount = 0;
  int streamsCreated = 0;
};

void CUPTIAPI record(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                     const void* cbdata) {
  auto* seen = static_cast<Seen*>(userdata);
  if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_STREAM_CREATED) {
    ++seen->streamsCreated;
    return;
  }
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API) {
    return;
  }
  const auto* data = static_cast<const CUpti_CallbackData*>(cbdata);
  seen->calls.push_back(std::string(data->callbackSite == CUPTI_API_ENTER ? "enter " : "exit ") +
                        data->functionName);
  if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020 &&
      data->callbackSite == CUPTI_API_ENTER) {
    seen->memsetCount =
        static_cast<const cudaMemsetAsync_v3020_params*>(data->functionParams)->count;
  }
}

TEST(CuptiSubscriber, SeesEnabledCallbacksWithTheirParametersUntilUnsubscribed) {
  Seen seen;
  CUpti_SubscriberHandle subscriber = nullptr;
  ASSERT_EQ(cuptiSubscribe(&subscriber, record, &seen), CUPTI_SUCCESS);
  CUpti_SubscriberHandle second = nullptr;
  EXPECT_EQ(cuptiSubscribe(&second, record, &seen), CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
  ASSERT_EQ(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API,
                                CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020),
            CUPTI_SUCCESS);
  ASSERT_EQ(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE), CUPTI_SUCCESS);
  EXPECT_EQ(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, 100000),
            CUPTI_ERROR_INVALID_PARAMETER);
  uint32_t enabled = 0;
  ASSERT_EQ(cuptiGetCallbackState(&enabled, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API,
                                  CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020),
            CUPTI_SUCCESS);
  EXPECT_EQ(enabled, 1u);

  cudaStream_t stream;
  ASSERT_CUDA_OK(cudaStreamCreate(&stream));
  void* device = nullptr;
  ASSERT_CUDA_OK(cudaMalloc(&device, 128));
  ASSERT_CUDA_OK(cudaMemsetAsync(device, 0, 96, stream));
  ASSERT_CUDA_OK(cudaStreamSynchronize(stream));
  EXPECT_EQ(seen.calls,
            (std::vector<std::string>{"enter cudaMemsetAsync", "exit cudaMemsetAsync"}));
  EXPECT_EQ(seen.memsetCount, 96u);
  EXPECT_EQ(seen.streamsCreated, 1);

  ASSERT_EQ(cuptiUnsubscribe(subscriber), CUPTI_SUCCESS);
  ASSERT_CUDA_OK(cudaMemsetAsync(device, 0, 32, stream));
  EXPECT_EQ(seen.calls.size(), 2u);
  EXPECT_EQ(cuptiUnsubscribe(subscriber), CUPTI_ERROR_INVALID_PARAMETER);
  ASSERT_CUDA_OK(cudaFree(device));
  ASSERT_CUDA_OK(cudaStreamDestroy(stream));
}

struct Nested {
  std::vector<std::string> calls;
  unsigned long long streamId = 0;
};

// Asks the runtime about the stream from inside the callback, as a tracer does.
void CUPTIAPI lookUpStream(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                           const void* cbdata) {
  auto* nested = static_cast<Nested*>(userdata);
  const auto* data = static_cast<const CUpti_CallbackData*>(cbdata);
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API) {
    return;
  }
  nested->calls.push_back(data->functionName);
  if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020 &&
      data->callbackSite == CUPTI_API_ENTER) {
    const auto* params = static_cast<const cudaMemsetAsync_v3020_params*>(data->functionParams);
    EXPECT_EQ(cudaStreamGetId(params->stream, &nested->streamId), cudaSuccess);
  }
}

TEST(CuptiSubscriber, RuntimeCallsMadeInsideACallbackGetNoCallbacksOfTheirOwn) {
  Nested nested;
  CUpti_SubscriberHandle subscriber = nullptr;
  ASSERT_EQ(cuptiSubscribe(&subscriber, lookUpStream, &nested), CUPTI_SUCCESS);
  cudaStream_t stream;
  ASSERT_CUDA_OK(cudaStreamCreate(&stream));
  void* device = nullptr;
  ASSERT_CUDA_OK(cudaMalloc(&device, 64));
  ASSERT_EQ(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API), CUPTI_SUCCESS);
  ASSERT_CUDA_OK(cudaMemsetAsync(device, 0, 64, stream));
  ASSERT_EQ(cuptiUnsubscribe(subscriber), CUPTI_SUCCESS);
  EXPECT_EQ(nested.calls, (std::vector<std::string>{"cudaMemsetAsync", "cudaMemsetAsync"}));
  unsigned long long expected = 0;
  ASSERT_CUDA_OK(cudaStreamGetId(stream, &expected));
  EXPECT_EQ(nested.streamId, expected);
  ASSERT_CUDA_OK(cudaStreamSynchronize(stream));
  ASSERT_CUDA_OK(cudaFree(device));
  ASSERT_CUDA_OK(cudaStreamDestroy(stream));
}

// cuptiSubscribe_v2: a refused subscriber learns who holds CUPTI, under CUPTI's own prefix; one
// that subscribed without a name leaves the name empty.
TEST(CuptiSubscriber, ARefusedSubscriberLearnsTheHoldersName) {
  Seen seen;
  CUpti_SubscriberParams named{};
  named.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  named.subscriberName = "Nsight Systems";
  CUpti_SubscriberHandle holder = nullptr;
  ASSERT_EQ(cuptiSubscribe_v2(&holder, record, &seen, &named), CUPTI_SUCCESS);
  char oldName[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN] = "unchanged";
  CUpti_SubscriberParams refused{};
  refused.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  refused.subscriberName = "streamrace";
  refused.oldSubscriberName = oldName;
  refused.oldSubscriberSize = sizeof oldName;
  CUpti_SubscriberHandle second = nullptr;
  EXPECT_EQ(cuptiSubscribe_v2(&second, record, &seen, &refused),
            CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
  EXPECT_STREQ(oldName, "CUPTI for Nsight Systems");
  ASSERT_EQ(cuptiUnsubscribe(holder), CUPTI_SUCCESS);

  ASSERT_EQ(cuptiSubscribe(&holder, record, &seen), CUPTI_SUCCESS);
  EXPECT_EQ(cuptiSubscribe_v2(&second, record, &seen, &refused),
            CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
  EXPECT_STREQ(oldName, "");
  ASSERT_EQ(cuptiUnsubscribe(holder), CUPTI_SUCCESS);
}

TEST(CuptiSubscriber, NamesCallbacksAndResultsAsTheRealLibraryDoes) {
  const char* name = nullptr;
  ASSERT_EQ(cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API,
                                 CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, &name),
            CUPTI_SUCCESS);
  EXPECT_STREQ(name, "cudaMalloc_v3020");
  ASSERT_EQ(cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
                                 &name),
            CUPTI_SUCCESS);
  EXPECT_STREQ(name, "cuLaunchKernel");
  EXPECT_EQ(
      cuptiGetCallbackName(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_STREAM_CREATED, &name),
      CUPTI_ERROR_INVALID_PARAMETER);
  const char* text = nullptr;
  ASSERT_EQ(cuptiGetResultString(CUPTI_ERROR_INVALID_PARAMETER, &text), CUPTI_SUCCESS);
  EXPECT_STREQ(text, "CUPTI_ERROR_INVALID_PARAMETER");
}

} // namespace
} // namespace streamrace::emu::test
