// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// cudaFuncGetParamInfo: kernel parameter layouts from CPU registrations and from the mangled
// device names nvcc registers.
#include "emulator_test_support.h"

#include <streamrace_emulator/kernel_registry.h>

extern "C" void __cudaRegisterFunction(void** fatCubinHandle, const char* hostFun, char* deviceFun,
                                       const char* deviceName, int threadLimit, uint3* tid,
                                       uint3* bid, dim3* bDim, dim3* gDim, int* wSize);

namespace streamrace::emu::test {
namespace {

void scatterKernel(const float*, double, char, int*) {}
void scatterOnCpu(const StreamraceEmuLaunch&, const float*, double, char, int*) {}

// Stand-ins for nvcc's host stubs: only their addresses matter (distinct bodies keep the
// compiler from folding them into one).
volatile int lastStubCalled = 0;
void deviceOnlyScale() {
  lastStubCalled = 1;
}
void deviceOnlyByValue() {
  lastStubCalled = 2;
}
void deviceOnlyExternC() {
  lastStubCalled = 3;
}

struct Layout {
  std::size_t offset = 0;
  std::size_t size = 0;
};

cudaError_t parameter(const void* func, std::size_t index, Layout& layout) {
  return cudaFuncGetParamInfo(func, index, &layout.offset, &layout.size);
}

TEST(ParameterInfo, ACpuRegistrationGivesSizesEachAlignedToItself) {
  ASSERT_TRUE(streamrace_emulator::registerKernel<&scatterOnCpu>(scatterKernel));
  const void* kernel = reinterpret_cast<const void*>(&scatterKernel);
  Layout layout;
  ASSERT_CUDA_OK(parameter(kernel, 0, layout));
  EXPECT_EQ(layout.offset, 0u);
  EXPECT_EQ(layout.size, 8u);
  ASSERT_CUDA_OK(parameter(kernel, 1, layout));
  EXPECT_EQ(layout.offset, 8u);
  EXPECT_EQ(layout.size, 8u);
  ASSERT_CUDA_OK(parameter(kernel, 2, layout));
  EXPECT_EQ(layout.offset, 16u);
  EXPECT_EQ(layout.size, 1u);
  ASSERT_CUDA_OK(parameter(kernel, 3, layout));
  EXPECT_EQ(layout.offset, 24u);
  EXPECT_EQ(layout.size, 8u);
  EXPECT_EQ(parameter(kernel, 4, layout), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue); // recorded like every failed call
}

TEST(ParameterInfo, AnNvccRegistrationGivesTheTypesItsMangledNameSpells) {
  __cudaRegisterFunction(nullptr, reinterpret_cast<const char*>(&deviceOnlyScale), nullptr,
                         "_Z5scalePffi", -1, nullptr, nullptr, nullptr, nullptr, nullptr);
  const void* kernel = reinterpret_cast<const void*>(&deviceOnlyScale);
  Layout layout;
  ASSERT_CUDA_OK(parameter(kernel, 1, layout));
  EXPECT_EQ(layout.offset, 8u);
  EXPECT_EQ(layout.size, 4u);
  ASSERT_CUDA_OK(parameter(kernel, 2, layout));
  EXPECT_EQ(layout.offset, 12u);
  EXPECT_EQ(parameter(kernel, 3, layout), cudaErrorInvalidValue);
  cudaGetLastError();
}

TEST(ParameterInfo, LayoutsTheEmulatorCannotKnowAreInvalidValues) {
  __cudaRegisterFunction(nullptr, reinterpret_cast<const char*>(&deviceOnlyByValue), nullptr,
                         "_Z6kernel6float4Pf", -1, nullptr, nullptr, nullptr, nullptr, nullptr);
  __cudaRegisterFunction(nullptr, reinterpret_cast<const char*>(&deviceOnlyExternC), nullptr,
                         "plain_c_kernel", -1, nullptr, nullptr, nullptr, nullptr, nullptr);
  Layout layout;
  EXPECT_EQ(parameter(reinterpret_cast<const void*>(&deviceOnlyByValue), 0, layout),
            cudaErrorInvalidValue);
  EXPECT_EQ(parameter(reinterpret_cast<const void*>(&deviceOnlyExternC), 0, layout),
            cudaErrorInvalidValue);
  int notAKernel = 0;
  EXPECT_EQ(parameter(&notAKernel, 0, layout), cudaErrorInvalidDeviceFunction);
  EXPECT_EQ(cudaFuncGetParamInfo(reinterpret_cast<const void*>(&deviceOnlyScale), 0, nullptr,
                                 &layout.size),
            cudaErrorInvalidValue);
  cudaGetLastError();
}

} // namespace
} // namespace streamrace::emu::test
