// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Bad arguments get the documented error codes, never a crash; the last-error state behaves as
// the runtime documents.
#include "emulator_test_support.h"

#include <cstring>

namespace streamrace::emu::test {
namespace {

const auto unknownStream = reinterpret_cast<cudaStream_t>(0x5eed);
const auto unknownEvent = reinterpret_cast<cudaEvent_t>(0x5eed);

class Errors : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_CUDA_OK(cudaMalloc(&device, 256));
    cudaGetLastError();
  }
  void TearDown() override {
    EXPECT_EQ(cudaFree(device), cudaSuccess);
    cudaGetLastError();
  }
  void* device = nullptr;
  char host[512] = {};
};

TEST_F(Errors, NullPointersAreInvalidValues) {
  EXPECT_EQ(cudaMalloc(nullptr, 16), cudaErrorInvalidValue);
  EXPECT_EQ(cudaStreamCreate(nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaEventCreate(nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetDeviceCount(nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(nullptr, host, 16, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemset(nullptr, 0, 16), cudaErrorInvalidValue);
  EXPECT_EQ(cudaLaunchHostFunc(0, nullptr, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaPointerGetAttributes(nullptr, device), cudaErrorInvalidValue);
}

TEST_F(Errors, UnknownHandlesAreInvalidResourceHandles) {
  EXPECT_EQ(cudaStreamSynchronize(unknownStream), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaStreamQuery(unknownStream), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaStreamDestroy(unknownStream), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaMemcpyAsync(device, host, 16, cudaMemcpyHostToDevice, unknownStream),
            cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaMemsetAsync(device, 0, 16, unknownStream), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaEventRecord(unknownEvent, 0), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaEventSynchronize(unknownEvent), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaStreamWaitEvent(0, unknownEvent, 0), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaEventDestroy(unknownEvent), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaStreamDestroy(0), cudaErrorInvalidResourceHandle);
}

TEST_F(Errors, CopiesAndSetsPastTheEndOfAnAllocationAreInvalidValues) {
  EXPECT_EQ(cudaMemcpy(device, host, 257, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(host, static_cast<char*>(device) + 200, 64, cudaMemcpyDeviceToHost),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemset(static_cast<char*>(device) + 1, 0, 256), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy2D(device, 128, host, 128, 64, 3, cudaMemcpyHostToDevice),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(device, host, 256, cudaMemcpyHostToDevice), cudaSuccess);
}

TEST_F(Errors, WrongDirectionsAndHostMemoryWhereDeviceMemoryIsRequired) {
  EXPECT_EQ(cudaMemcpy(host, device, 16, static_cast<cudaMemcpyKind>(42)),
            cudaErrorInvalidMemcpyDirection);
  EXPECT_EQ(cudaMemcpy(host, host + 64, 16, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemset(host, 0, 16), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFree(host), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFree(static_cast<char*>(device) + 8), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFreeHost(host), cudaErrorInvalidValue);
}

TEST_F(Errors, BadFlagsDevicesAndConfigurations) {
  cudaStream_t stream;
  EXPECT_EQ(cudaStreamCreateWithFlags(&stream, 0x80), cudaErrorInvalidValue);
  cudaEvent_t event;
  EXPECT_EQ(cudaEventCreateWithFlags(&event, 0x80), cudaErrorInvalidValue);
  EXPECT_EQ(cudaEventCreateWithFlags(&event, cudaEventInterprocess), cudaErrorInvalidValue);
  EXPECT_EQ(cudaSetDevice(99), cudaErrorInvalidDevice);
  cudaDeviceProp prop;
  EXPECT_EQ(cudaGetDeviceProperties(&prop, -1), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaLaunchKernel(reinterpret_cast<const void*>(&host), dim3(1), dim3(1), nullptr, 0, 0),
            cudaErrorInvalidDeviceFunction);
}

TEST_F(Errors, ElapsedTimeNeedsTwoRecordedTimingEvents) {
  cudaEvent_t timing, untimed;
  ASSERT_CUDA_OK(cudaEventCreate(&timing));
  ASSERT_CUDA_OK(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming));
  float ms = 0;
  EXPECT_EQ(cudaEventElapsedTime(&ms, timing, timing), cudaErrorInvalidResourceHandle);
  ASSERT_CUDA_OK(cudaEventRecord(timing, 0));
  ASSERT_CUDA_OK(cudaEventRecord(untimed, 0));
  ASSERT_CUDA_OK(cudaDeviceSynchronize());
  EXPECT_EQ(cudaEventElapsedTime(&ms, timing, untimed), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaEventElapsedTime(nullptr, timing, timing), cudaErrorInvalidValue);
  ASSERT_CUDA_OK(cudaEventDestroy(timing));
  ASSERT_CUDA_OK(cudaEventDestroy(untimed));
}

TEST_F(Errors, LastErrorIsKeptUntilReadAndPeekingLeavesIt) {
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaMalloc(nullptr, 1), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemset(device, 0, 16), cudaSuccess);
  EXPECT_EQ(cudaPeekAtLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  // Not-ready is a status, not an error.
  cudaStream_t stream;
  ASSERT_CUDA_OK(cudaStreamCreate(&stream));
  Flag slow;
  ASSERT_CUDA_OK(cudaLaunchHostFunc(stream, sleepThenSet, &slow));
  EXPECT_EQ(cudaStreamQuery(stream), cudaErrorNotReady);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_CUDA_OK(cudaStreamDestroy(stream));
  ASSERT_CUDA_OK(cudaDeviceSynchronize());
}

TEST(ErrorNames, NamesAndStringsForEveryCode) {
  EXPECT_STREQ(cudaGetErrorName(cudaSuccess), "cudaSuccess");
  EXPECT_STREQ(cudaGetErrorName(cudaErrorInvalidValue), "cudaErrorInvalidValue");
  EXPECT_STREQ(cudaGetErrorName(cudaErrorStreamCaptureUnjoined), "cudaErrorStreamCaptureUnjoined");
  EXPECT_STREQ(cudaGetErrorString(cudaErrorInvalidValue), "invalid argument");
  EXPECT_STREQ(cudaGetErrorString(cudaErrorInvalidResourceHandle), "invalid resource handle");
  EXPECT_STREQ(cudaGetErrorString(static_cast<cudaError_t>(123456)), "unrecognized error code");
}

} // namespace
} // namespace streamrace::emu::test
