// A kernel launched through the driver API (cuLaunchKernel on the CUfunction cudaGetFuncBySymbol
// gives, as Triton-compiled kernels are launched) that writes a buffer on one stream while a
// copy reads it on another, for the tracer's lit tests. Built by nvcc with -g against the real
// runtime (-cudart shared) and the driver stub; run on the emulator (whose libcuda.so.1 stand-in
// runs the launch) under the tracer.
//
//   driver_races <scenario> [annotate]
//   race          cuLaunchKernel writes `middle` on stream 1, cudaMemcpyAsync reads it on stream 2
//   event         the same, stream 2 waits on an event recorded after the launch
//   runtime-race  the same kernel launched with <<<>>> instead (the runtime's launch, with the
//                 driver's underneath)
//   packed-race   as race, the arguments packed in one buffer passed through `extra`
//   packed-event  as event, the arguments packed
//   With `annotate`, an NVTX mark in the "streamrace" domain annotates the kernel by name first.
#include <streamrace_emulator/kernel_registry.h>

#include <cuda.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstring>

#include "../../Inputs/check_call.h"

#define CHECK_DRIVER(call)                                                                         \
  do {                                                                                             \
    CUresult status = (call);                                                                      \
    if (status != CUDA_SUCCESS) {                                                                  \
      std::printf("FAILED %s: %d\n", #call, static_cast<int>(status));                             \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

// Outside any namespace: its device name is the plain _Z4fillPfi the annotation names.
__global__ void fill(float* out, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = 1.0f;
}

namespace {

constexpr int kCount = 1 << 12;

void fillOnCpu(const StreamraceEmuLaunch&, float* out, int count) {
  for (int i = 0; i < count; ++i)
    out[i] = 1.0f;
}

void annotateByName() {
  nvtxEventAttributes_t mark;
  std::memset(&mark, 0, sizeof mark);
  mark.version = NVTX_VERSION;
  mark.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  mark.messageType = NVTX_MESSAGE_TYPE_ASCII;
  mark.message.ascii = "_Z4fillPfi: w[p1*4],-";
  nvtxDomainMarkEx(nvtxDomainCreateA("streamrace"), &mark);
}

enum class Launch { Runtime, Driver, DriverPacked };

int run(bool ordered, Launch how) {
  float* middle = nullptr;
  float* target = nullptr;
  CHECK(cudaMalloc(&middle, kCount * sizeof(float)));
  CHECK(cudaMalloc(&target, kCount * sizeof(float)));
  cudaStream_t writer = nullptr;
  cudaStream_t reader = nullptr;
  cudaEvent_t written = nullptr;
  CHECK(cudaStreamCreate(&writer));
  CHECK(cudaStreamCreate(&reader));
  CHECK(cudaEventCreate(&written));
  if (how != Launch::Runtime) {
    cudaFunction_t function = nullptr;
    CHECK(cudaGetFuncBySymbol(&function, reinterpret_cast<const void*>(fill)));
    int count = kCount;
    void* arguments[] = {&middle, &count};
    struct {
      float* out;
      int count;
    } packed{middle, kCount};
    std::size_t packedSize = sizeof packed;
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE,
                     &packedSize, CU_LAUNCH_PARAM_END};
    const bool inExtra = how == Launch::DriverPacked;
    CHECK_DRIVER(cuLaunchKernel(reinterpret_cast<CUfunction>(function), kCount / 256, 1, 1, 256, 1,
                                1, 0, reinterpret_cast<CUstream>(writer),
                                inExtra ? nullptr : arguments, inExtra ? extra : nullptr));
  } else {
    fill<<<kCount / 256, 256, 0, writer>>>(middle, kCount);
    CHECK(cudaGetLastError());
  }
  if (ordered) {
    CHECK(cudaEventRecord(written, writer));
    CHECK(cudaStreamWaitEvent(reader, written, 0));
  }
  CHECK(cudaMemcpyAsync(target, middle, kCount * sizeof(float), cudaMemcpyDeviceToDevice, reader));
  CHECK(cudaDeviceSynchronize());
  float first = 0.0f;
  CHECK(cudaMemcpy(&first, target, sizeof first, cudaMemcpyDeviceToHost));
  std::printf("kernel and copy done, target[0] = %.1f\n", first);
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: driver_races race|event|runtime-race|packed-race|packed-event "
                         "[annotate]\n");
    return 2;
  }
  streamrace_emulator::registerKernel<&fillOnCpu>(fill);
  if (argc > 2 && std::strcmp(argv[2], "annotate") == 0) annotateByName();
  if (std::strcmp(argv[1], "race") == 0) return run(false, Launch::Driver);
  if (std::strcmp(argv[1], "event") == 0) return run(true, Launch::Driver);
  if (std::strcmp(argv[1], "runtime-race") == 0) return run(false, Launch::Runtime);
  if (std::strcmp(argv[1], "packed-race") == 0) return run(false, Launch::DriverPacked);
  if (std::strcmp(argv[1], "packed-event") == 0) return run(true, Launch::DriverPacked);
  std::fprintf(stderr, "unknown scenario %s\n", argv[1]);
  return 2;
}
