// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Memory on the emulator: per-device address ranges, pointer attributes, copies of every kind
// and their host-wait behaviour, the stream-ordered pool.
#include "emulator_test_support.h"

#include <cstring>
#include <vector>

// What nvcc's start-up code calls for each __device__ variable; no header declares it.
extern "C" void __cudaRegisterVar(void** fatCubinHandle, char* hostVar, char* deviceAddress,
                                  const char* deviceName, int ext, size_t size, int constant,
                                  int global);

namespace streamrace::emu::test {
namespace {

TEST(Memory, DeviceAllocationsOfDifferentDevicesLiveAtDistinctAddressesTheirAttributesName) {
  void* onZero = nullptr;
  void* onOne = nullptr;
  ASSERT_CUDA_OK(cudaSetDevice(0));
  ASSERT_CUDA_OK(cudaMalloc(&onZero, 1 << 20));
  ASSERT_CUDA_OK(cudaSetDevice(1));
  ASSERT_CUDA_OK(cudaMalloc(&onOne, 1 << 20));
  ASSERT_CUDA_OK(cudaSetDevice(0));
  cudaPointerAttributes attributes{};
  ASSERT_CUDA_OK(cudaPointerGetAttributes(&attributes, static_cast<char*>(onOne) + 100));
  EXPECT_EQ(attributes.type, cudaMemoryTypeDevice);
  EXPECT_EQ(attributes.device, 1);
  ASSERT_CUDA_OK(cudaPointerGetAttributes(&attributes, onZero));
  EXPECT_EQ(attributes.device, 0);

  int pageable = 0;
  ASSERT_CUDA_OK(cudaPointerGetAttributes(&attributes, &pageable));
  EXPECT_EQ(attributes.type, cudaMemoryTypeUnregistered);
  void* pinned = nullptr;
  ASSERT_CUDA_OK(cudaHostAlloc(&pinned, 64, cudaHostAllocMapped));
  ASSERT_CUDA_OK(cudaPointerGetAttributes(&attributes, pinned));
  EXPECT_EQ(attributes.type, cudaMemoryTypeHost);
  void* managed = nullptr;
  ASSERT_CUDA_OK(cudaMallocManaged(&managed, 64));
  ASSERT_CUDA_OK(cudaPointerGetAttributes(&attributes, managed));
  EXPECT_EQ(attributes.type, cudaMemoryTypeManaged);

  ASSERT_CUDA_OK(cudaFree(onZero));
  ASSERT_CUDA_OK(cudaFree(onOne));
  ASSERT_CUDA_OK(cudaFreeHost(pinned));
  ASSERT_CUDA_OK(cudaFree(managed));
}

TEST(Memory, MemGetInfoCountsAllocations) {
  std::size_t freeBefore = 0, total = 0, freeAfter = 0;
  ASSERT_CUDA_OK(cudaMemGetInfo(&freeBefore, &total));
  void* block = nullptr;
  ASSERT_CUDA_OK(cudaMalloc(&block, 1 << 24));
  ASSERT_CUDA_OK(cudaMemGetInfo(&freeAfter, &total));
  EXPECT_EQ(freeBefore - freeAfter, std::size_t{1} << 24);
  ASSERT_CUDA_OK(cudaFree(block));
}

TEST(Copies, RoundTripThroughEveryKind) {
  constexpr std::size_t bytes = 1024;
  std::vector<unsigned char> source(bytes), back(bytes, 0);
  for (std::size_t i = 0; i < bytes; ++i) {
    source[i] = static_cast<unsigned char>(i * 7);
  }
  void *first = nullptr, *second = nullptr, *peer = nullptr;
  ASSERT_CUDA_OK(cudaMalloc(&first, bytes));
  ASSERT_CUDA_OK(cudaMalloc(&second, bytes));
  ASSERT_CUDA_OK(cudaSetDevice(1));
  ASSERT_CUDA_OK(cudaMalloc(&peer, bytes));
  ASSERT_CUDA_OK(cudaSetDevice(0));
  ASSERT_CUDA_OK(cudaMemcpy(first, source.data(), bytes, cudaMemcpyHostToDevice));
  ASSERT_CUDA_OK(cudaMemcpy(second, first, bytes, cudaMemcpyDeviceToDevice));
  ASSERT_CUDA_OK(cudaMemcpyPeer(peer, 1, second, 0, bytes));
  ASSERT_CUDA_OK(cudaMemcpy(back.data(), peer, bytes, cudaMemcpyDefault));
  EXPECT_EQ(back, source);

  // 2D: copy the first 16 bytes of each of 8 rows of 128.
  std::vector<unsigned char> rows(16 * 8, 0);
  ASSERT_CUDA_OK(cudaMemcpy2D(rows.data(), 16, first, 128, 16, 8, cudaMemcpyDeviceToHost));
  for (std::size_t row = 0; row < 8; ++row) {
    EXPECT_EQ(std::memcmp(rows.data() + row * 16, source.data() + row * 128, 16), 0)
        << "row " << row;
  }
  ASSERT_CUDA_OK(cudaMemset2D(first, 128, 0xab, 4, 8));
  ASSERT_CUDA_OK(cudaMemcpy(back.data(), first, bytes, cudaMemcpyDeviceToHost));
  EXPECT_EQ(back[128 * 3], 0xab);
  EXPECT_EQ(back[128 * 3 + 4], source[128 * 3 + 4]);

  ASSERT_CUDA_OK(cudaFree(first));
  ASSERT_CUDA_OK(cudaFree(second));
  ASSERT_CUDA_OK(cudaFree(peer));
}

TEST(Copies, SynchronousDeviceToHostWaitsForEarlierLegacyWork) {
  Flag slowWork;
  void* device = nullptr;
  ASSERT_CUDA_OK(cudaMalloc(&device, 16));
  ASSERT_CUDA_OK(cudaMemset(device, 5, 16));
  ASSERT_CUDA_OK(cudaLaunchHostFunc(0, sleepThenSet, &slowWork));
  unsigned char back[16] = {};
  ASSERT_CUDA_OK(cudaMemcpy(back, device, 16, cudaMemcpyDeviceToHost));
  EXPECT_TRUE(slowWork.set);
  EXPECT_EQ(back[15], 5);
  ASSERT_CUDA_OK(cudaFree(device));
}

TEST(Copies, PageableHostToDeviceIsStagedSoTheSourceMayBeReusedAtOnce) {
  cudaStream_t stream;
  ASSERT_CUDA_OK(cudaStreamCreate(&stream));
  Flag slowWork;
  ASSERT_CUDA_OK(cudaLaunchHostFunc(stream, sleepThenSet, &slowWork));
  std::vector<int> source(64, 1);
  void* device = nullptr;
  ASSERT_CUDA_OK(cudaMalloc(&device, 64 * sizeof(int)));
  ASSERT_CUDA_OK(
      cudaMemcpyAsync(device, source.data(), 64 * sizeof(int), cudaMemcpyHostToDevice, stream));
  EXPECT_FALSE(slowWork.set);
  std::fill(source.begin(), source.end(), 2);
  std::vector<int> back(64, 0);
  ASSERT_CUDA_OK(
      cudaMemcpyAsync(back.data(), device, 64 * sizeof(int), cudaMemcpyDeviceToHost, stream));
  // Device-to-pageable copies make the host wait even in their asynchronous form.
  EXPECT_EQ(back[63], 1);
  ASSERT_CUDA_OK(cudaFree(device));
  ASSERT_CUDA_OK(cudaStreamDestroy(stream));
}

TEST(StreamOrderedPool, AllocationsAreDeviceMemoryUntilFreedInStreamOrder) {
  cudaStream_t stream;
  ASSERT_CUDA_OK(cudaStreamCreate(&stream));
  void* pooled = nullptr;
  ASSERT_CUDA_OK(cudaMallocAsync(&pooled, 4096, stream));
  ASSERT_CUDA_OK(cudaMemsetAsync(pooled, 3, 4096, stream));
  cudaPointerAttributes attributes{};
  ASSERT_CUDA_OK(cudaPointerGetAttributes(&attributes, pooled));
  EXPECT_EQ(attributes.type, cudaMemoryTypeDevice);
  ASSERT_CUDA_OK(cudaFreeAsync(pooled, stream));
  EXPECT_EQ(cudaFreeAsync(pooled, stream), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  ASSERT_CUDA_OK(cudaStreamSynchronize(stream));
  cudaMemPool_t pool = nullptr;
  ASSERT_CUDA_OK(cudaDeviceGetDefaultMemPool(&pool, 0));
  EXPECT_NE(pool, nullptr);
  ASSERT_CUDA_OK(cudaStreamDestroy(stream));
}

TEST(HostMemory, RegisteredRangesArePinnedUntilUnregistered) {
  std::vector<char> buffer(8192);
  ASSERT_CUDA_OK(cudaHostRegister(buffer.data(), buffer.size(), cudaHostRegisterDefault));
  EXPECT_EQ(cudaHostRegister(buffer.data() + 10, 10, cudaHostRegisterDefault),
            cudaErrorHostMemoryAlreadyRegistered);
  std::vector<char> around(3 * 8192);
  ASSERT_CUDA_OK(cudaHostRegister(around.data() + 4096, 16, cudaHostRegisterDefault));
  EXPECT_EQ(cudaHostRegister(around.data(), around.size(), cudaHostRegisterDefault),
            cudaErrorHostMemoryAlreadyRegistered);
  ASSERT_CUDA_OK(cudaHostUnregister(around.data() + 4096));
  void* devicePointer = nullptr;
  ASSERT_CUDA_OK(cudaHostGetDevicePointer(&devicePointer, buffer.data(), 0));
  EXPECT_EQ(devicePointer, buffer.data());
  ASSERT_CUDA_OK(cudaHostUnregister(buffer.data()));
  EXPECT_EQ(cudaHostUnregister(buffer.data()), cudaErrorHostMemoryNotRegistered);
  cudaGetLastError();
}

// Stands in for the host shadow nvcc emits for `__constant__ float table[4]`.
float constantTable[4];

TEST(Symbols, RegisteredDeviceVariablesGetDeviceMemoryAndBoundsChecks) {
  __cudaRegisterVar(nullptr, reinterpret_cast<char*>(constantTable), nullptr, "constantTable", 0,
                    sizeof constantTable, 1, 0);
  const float values[4] = {1, 2, 3, 4};
  ASSERT_CUDA_OK(
      cudaMemcpyToSymbol(constantTable, values, sizeof values, 0, cudaMemcpyHostToDevice));
  float back[2] = {};
  ASSERT_CUDA_OK(cudaMemcpyFromSymbol(back, constantTable, sizeof back, 2 * sizeof(float),
                                      cudaMemcpyDeviceToHost));
  EXPECT_EQ(back[0], 3.0f);
  EXPECT_EQ(back[1], 4.0f);
  EXPECT_EQ(constantTable[0], 0.0f) << "the host shadow is not the device variable";
  void* address = nullptr;
  ASSERT_CUDA_OK(cudaGetSymbolAddress(&address, constantTable));
  cudaPointerAttributes attributes{};
  ASSERT_CUDA_OK(cudaPointerGetAttributes(&attributes, address));
  EXPECT_EQ(attributes.type, cudaMemoryTypeDevice);
  EXPECT_EQ(cudaMemcpyToSymbol(constantTable, values, sizeof values, 4, cudaMemcpyHostToDevice),
            cudaErrorInvalidValue);
  int unregistered = 0;
  EXPECT_EQ(cudaGetSymbolAddress(&address, &unregistered), cudaErrorInvalidSymbol);
  cudaGetLastError();
}

TEST(Memory, PitchedAllocationsPadRows) {
  void* rows = nullptr;
  std::size_t pitch = 0;
  ASSERT_CUDA_OK(cudaMallocPitch(&rows, &pitch, 100, 4));
  EXPECT_GE(pitch, 100u);
  ASSERT_CUDA_OK(cudaMemset2D(rows, pitch, 1, 100, 4));
  ASSERT_CUDA_OK(cudaFree(rows));
}

} // namespace
} // namespace streamrace::emu::test
