// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Kernel launches: cudaLaunchKernel and the path nvcc 13 generates for <<<>>> (push/pop call
// configuration, __cudaGetKernel, __cudaLaunchKernel), the start-up registration of fat binaries
// and kernels, and the emulator's own entry point for CPU kernel implementations.
#include <cuda_runtime_api.h>
// cupti.h brings the parameter structs and callback ids; they must not be included twice.
#include <cupti.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "api_tracing.h"
#include "kernel_launch.h"
#include "kernel_table.h"
#include "runtime_state.h"

using namespace streamrace::emu;

namespace {

constexpr unsigned kMaxThreadsPerBlock = 1024;
// Argument copies are laid out on boundaries this wide, enough for every kernel parameter type.
constexpr std::size_t kArgumentAlignment = alignof(std::max_align_t);

struct CallConfiguration {
  dim3 gridDim;
  dim3 blockDim;
  std::size_t sharedMem;
  cudaStream_t stream;
};

thread_local std::vector<CallConfiguration> pendingConfigurations;

// The fat binaries nvcc registers at start-up; their handles must stay valid until exit.
struct FatBinaryModule {
  void* fatCubin;
};

std::vector<std::unique_ptr<FatBinaryModule>>& fatBinaryModules() {
  static std::vector<std::unique_ptr<FatBinaryModule>> modules;
  return modules;
}

std::mutex fatBinaryMutex;

// Owns copies of a launch's arguments, as the runtime copies them at launch time.
class ArgumentCopies {
public:
  ArgumentCopies(void** args, const std::vector<std::size_t>& sizes) {
    std::vector<std::size_t> offsets;
    std::size_t total = 0;
    for (std::size_t size : sizes) {
      offsets.push_back(total);
      total += (size + kArgumentAlignment - 1) / kArgumentAlignment * kArgumentAlignment;
    }
    storage_ = std::make_unique<std::max_align_t[]>(total / sizeof(std::max_align_t) + 1);
    auto* bytes = reinterpret_cast<std::byte*>(storage_.get());
    for (std::size_t index = 0; index < sizes.size(); ++index) {
      std::memcpy(bytes + offsets[index], args[index], sizes[index]);
      pointers_.push_back(bytes + offsets[index]);
    }
  }
  void** pointers() { return pointers_.data(); }
  // A kernel's CPU body dereferences its pointer arguments where a GPU would reach memory by
  // DMA: pointers into pinned or managed memory go to the device's mapping (host_mapping.h).
  // Pointers the kernel reads from memory (a struct, an array of pointers) stay as they are.
  void toDeviceAddresses(const MemoryRegistry& memory, const std::vector<std::size_t>& sizes) {
    for (std::size_t index = 0; index < sizes.size(); ++index) {
      if (sizes[index] != sizeof(void*)) {
        continue;
      }
      void* argument = nullptr;
      std::memcpy(&argument, pointers_[index], sizeof argument);
      void* device = memory.deviceAddress(argument);
      std::memcpy(pointers_[index], &device, sizeof device);
    }
  }

private:
  std::unique_ptr<std::max_align_t[]> storage_;
  std::vector<void*> pointers_;
};

bool validGeometry(dim3 grid, dim3 block) {
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0) {
    return false;
  }
  return static_cast<unsigned long long>(block.x) * block.y * block.z <= kMaxThreadsPerBlock;
}

// `extra`: the packed argument buffer a driver launch passed instead of kernelParams, whose
// parameters `args` points into; the CUPTI callback shows the launch as the program made it.
cudaError_t launch(const std::optional<KernelLaunchInfo>& kernel, dim3 grid, dim3 block,
                   void** args, std::size_t sharedMem, cudaStream_t handle, DefaultStream zero,
                   void** extra = nullptr) {
  Runtime& runtime = Runtime::instance();
  if (!kernel) {
    return cudaErrorInvalidDeviceFunction;
  }
  Stream* stream = runtime.resolveStream(handle, zero);
  if (stream == nullptr) {
    return cudaErrorInvalidResourceHandle;
  }
  if (!validGeometry(grid, block)) {
    return cudaErrorInvalidConfiguration;
  }
  if (!kernel->argumentSizes.empty() && args == nullptr) {
    return cudaErrorInvalidValue;
  }
  // The driver launch a real runtime performs underneath (or the program's own), as a CUPTI
  // driver-domain callback.
  cuLaunchKernel_params driverParams{
      reinterpret_cast<CUfunction>(const_cast<KernelRecord*>(kernel->handle)),
      grid.x,
      grid.y,
      grid.z,
      block.x,
      block.y,
      block.z,
      static_cast<unsigned>(sharedMem),
      handle,
      extra != nullptr ? nullptr : args,
      extra};
  CUresult driverResult = CUDA_SUCCESS;
  ApiCallbackScope driverScope(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
                               "cuLaunchKernel", &driverParams, &driverResult,
                               kernel->deviceName.c_str());
  Work work{OperationKind::Kernel, {}};
  if (kernel->body != nullptr) {
    auto copies = std::make_shared<ArgumentCopies>(args, kernel->argumentSizes);
    copies->toDeviceAddresses(runtime.memory, kernel->argumentSizes);
    StreamraceEmuLaunch geometry{grid, block, sharedMem, handle};
    work.body = [body = kernel->body, copies, geometry] { body(&geometry, copies->pointers()); };
  } else if (kernel->firstNoOpLaunch) {
    std::fprintf(stderr,
                 "streamrace emulator: kernel %s has no CPU implementation registered; its "
                 "launches do nothing\n",
                 kernel->deviceName.empty() ? "(unnamed)" : kernel->deviceName.c_str());
  }
  runtime.submit(*stream, std::move(work));
  driverScope.finish();
  return cudaSuccess;
}

const char* symbolNameOf(const std::optional<KernelLaunchInfo>& kernel) {
  return kernel ? kernel->deviceName.c_str() : nullptr;
}

// Launches `kernel` reporting it to CUPTI as cudaLaunchKernel (or its _ptsz twin), whichever path
// the program took to get here.
cudaError_t tracedLaunch(const std::optional<KernelLaunchInfo>& kernel, const void* func,
                         dim3 gridDim, dim3 blockDim, void** args, std::size_t sharedMem,
                         cudaStream_t stream, DefaultStream zero) {
  if (zero == DefaultStream::PerThread) {
    const cudaLaunchKernel_ptsz_v7000_params params{func, gridDim,   blockDim,
                                                    args, sharedMem, stream};
    return traced(
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000, "cudaLaunchKernel_ptsz", &params,
        [&] { return launch(kernel, gridDim, blockDim, args, sharedMem, stream, zero); },
        symbolNameOf(kernel));
  }
  const cudaLaunchKernel_v7000_params params{func, gridDim, blockDim, args, sharedMem, stream};
  return traced(
      CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel", &params,
      [&] { return launch(kernel, gridDim, blockDim, args, sharedMem, stream, zero); },
      symbolNameOf(kernel));
}

// The launches whose CUPTI record has cudaLaunchKernel's shape under another name.
template <typename Params>
cudaError_t tracedLaunchAs(CUpti_CallbackId cbid, const char* name, const void* func, dim3 gridDim,
                           dim3 blockDim, void** args, std::size_t sharedMem, cudaStream_t stream,
                           DefaultStream zero) {
  auto kernel = KernelTable::instance().launchInfoByHostFunction(func);
  const Params params{func, gridDim, blockDim, args, sharedMem, stream};
  return traced(
      cbid, name, &params,
      [&] { return launch(kernel, gridDim, blockDim, args, sharedMem, stream, zero); },
      symbolNameOf(kernel));
}

// cudaLaunchKernelEx: the launch attributes (clusters, priorities, programmatic serialization)
// change nothing on the emulator; the configuration's geometry and stream are what run.
cudaError_t tracedLaunchEx(CUpti_CallbackId cbid, const char* name,
                           const cudaLaunchConfig_t* config, const void* func, void** args,
                           DefaultStream zero) {
  auto kernel = KernelTable::instance().launchInfoByHostFunction(func);
  const cudaLaunchKernelExC_v11060_params params{config, func, args};
  return traced(
      cbid, name, &params,
      [&] {
        if (config == nullptr) {
          return cudaErrorInvalidValue;
        }
        return launch(kernel, config->gridDim, config->blockDim, args, config->dynamicSmemBytes,
                      config->stream, zero);
      },
      symbolNameOf(kernel));
}

cudaError_t launchByHandle(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args,
                           std::size_t sharedMem, cudaStream_t stream, DefaultStream zero) {
  auto info =
      KernelTable::instance().launchInfoByHandle(reinterpret_cast<const KernelRecord*>(kernel));
  // As the real runtime: __cudaLaunchKernel goes on to cudaLaunchKernel with the handle, which
  // is what CUPTI reports as the launch's function, not the host stub.
  return tracedLaunch(info, reinterpret_cast<const void*>(kernel), gridDim, blockDim, args,
                      sharedMem, stream, zero);
}

} // namespace

cudaError_t streamrace::emu::launchKernel(const std::optional<KernelLaunchInfo>& kernel, dim3 grid,
                                          dim3 block, void** args, std::size_t sharedMem,
                                          cudaStream_t handle, DefaultStream zero, void** extra) {
  return launch(kernel, grid, block, args, sharedMem, handle, zero, extra);
}

extern "C" {

cudaError_t cudaLaunchKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args,
                             size_t sharedMem, cudaStream_t stream) {
  return tracedLaunch(KernelTable::instance().launchInfoByHostFunction(func), func, gridDim,
                      blockDim, args, sharedMem, stream, DefaultStream::Legacy);
}

cudaError_t cudaLaunchKernel_ptsz(const void* func, dim3 gridDim, dim3 blockDim, void** args,
                                  size_t sharedMem, cudaStream_t stream) {
  return tracedLaunch(KernelTable::instance().launchInfoByHostFunction(func), func, gridDim,
                      blockDim, args, sharedMem, stream, DefaultStream::PerThread);
}

cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args,
                                        size_t sharedMem, cudaStream_t stream) {
  return tracedLaunchAs<cudaLaunchCooperativeKernel_v9000_params>(
      CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000, "cudaLaunchCooperativeKernel",
      func, gridDim, blockDim, args, sharedMem, stream, DefaultStream::Legacy);
}

cudaError_t cudaLaunchCooperativeKernel_ptsz(const void* func, dim3 gridDim, dim3 blockDim,
                                             void** args, size_t sharedMem, cudaStream_t stream) {
  return tracedLaunchAs<cudaLaunchCooperativeKernel_ptsz_v9000_params>(
      CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
      "cudaLaunchCooperativeKernel_ptsz", func, gridDim, blockDim, args, sharedMem, stream,
      DefaultStream::PerThread);
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** args) {
  return tracedLaunchEx(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060, "cudaLaunchKernelExC",
                        config, func, args, DefaultStream::Legacy);
}

cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t* config, const void* func,
                                     void** args) {
  return tracedLaunchEx(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
                        "cudaLaunchKernelExC_ptsz", config, func, args, DefaultStream::PerThread);
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args,
                               size_t sharedMem, cudaStream_t stream) {
  return launchByHandle(kernel, gridDim, blockDim, args, sharedMem, stream, DefaultStream::Legacy);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args,
                                    size_t sharedMem, cudaStream_t stream) {
  return launchByHandle(kernel, gridDim, blockDim, args, sharedMem, stream,
                        DefaultStream::PerThread);
}

cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* hostFunction) {
  if (kernel == nullptr) {
    return cudaErrorInvalidValue;
  }
  KernelRecord* record = KernelTable::instance().handleFor(hostFunction);
  if (record == nullptr) {
    return cudaErrorInvalidDeviceFunction;
  }
  *kernel = reinterpret_cast<cudaKernel_t>(record);
  return cudaSuccess;
}

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                     struct CUstream_st* stream) {
  pendingConfigurations.push_back(CallConfiguration{gridDim, blockDim, sharedMem, stream});
  return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3* gridDim, dim3* blockDim, size_t* sharedMem,
                                       void* stream) {
  if (pendingConfigurations.empty()) {
    return cudaErrorMissingConfiguration;
  }
  CallConfiguration configuration = pendingConfigurations.back();
  pendingConfigurations.pop_back();
  *gridDim = configuration.gridDim;
  *blockDim = configuration.blockDim;
  *sharedMem = configuration.sharedMem;
  *static_cast<cudaStream_t*>(stream) = configuration.stream;
  return cudaSuccess;
}

void** __cudaRegisterFatBinary(void* fatCubin) {
  std::lock_guard lock(fatBinaryMutex);
  auto module = std::make_unique<FatBinaryModule>(FatBinaryModule{fatCubin});
  void** handle = &module->fatCubin;
  fatBinaryModules().push_back(std::move(module));
  KernelTable::instance().registerFatBinary(fatCubin);
  return handle;
}

// Registration needs no finishing step: kernels are usable as soon as they are registered.
void __cudaRegisterFatBinaryEnd(void** /*fatCubinHandle*/) {}

// Kernels stay registered after their module goes: at exit nothing launches them any more.
void __cudaUnregisterFatBinary(void** /*fatCubinHandle*/) {}

char __cudaInitModule(void** fatCubinHandle) {
  return fatCubinHandle != nullptr ? 1 : 0;
}

// Only the host stub and the device name matter here: launch limits come from the launch.
void __cudaRegisterFunction(void** /*fatCubinHandle*/, const char* hostFun, char* /*deviceFun*/,
                            const char* deviceName, int /*threadLimit*/, uint3* /*tid*/,
                            uint3* /*bid*/, dim3* /*bDim*/, dim3* /*gDim*/, int* /*wSize*/) {
  KernelTable::instance().registerDeviceFunction(hostFun, deviceName);
}

int streamraceEmuRegisterKernel(const void* kernel, StreamraceEmuKernelBody body, unsigned argCount,
                                const size_t* argSizes) {
  if (kernel == nullptr || body == nullptr || (argCount > 0 && argSizes == nullptr)) {
    return static_cast<int>(cudaErrorInvalidValue);
  }
  KernelTable::instance().registerCpuBody(kernel, body,
                                          std::vector<std::size_t>(argSizes, argSizes + argCount));
  return 0;
}

} // extern "C"
