// A kernel that writes a buffer on one stream and a copy that reads it on another, for the
// tracer's lit tests. Built by nvcc with -g against the real runtime (-cudart shared); run on
// the emulator under the tracer. The kernel has a CPU twin, so the copy really reads its output.
//
//   kernel_races <scenario> [annotate]
//   race        fill<<<>>> writes `middle` on stream 1, cudaMemcpyAsync reads it on stream 2
//   event       the same, stream 2 waits on an event recorded after the kernel
//   last-error  the program's cudaGetLastError answers around the first launches of kernels
//   launch-ex   as race, fill launched with cudaLaunchKernelEx (its stream in the config)
//   launch-ex-event   as event, launched with cudaLaunchKernelEx
//   cooperative as race, fill launched with cudaLaunchCooperativeKernel
//   slices      stamp<<<>>> writes the first half of one buffer on stream 1 and the second half
//               on stream 2 (one element per thread, no guard): disjoint, no race
//   slices-overlap  the second launch starts a quarter in: the middle quarter races
//   slices-ex   as slices, the second launch with cudaLaunchKernelEx
//   flags       raise() sets one flag through a device function on stream 1, and the next flag
//               of the same array on stream 2: disjoint, no race
//   With `annotate`, fill is annotated (streamrace/annotations.h) before it is launched.
#include <streamrace/annotations.h>
#include <streamrace_emulator/kernel_registry.h>

#include <cstdio>
#include <cstring>

#include "../../Inputs/check_call.h"

// Outside any namespace: their device names are the plain _Z4fillPfi and _Z5scalePffi that the
// kernel summaries name.
__global__ void fill(float* out, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = 1.0f;
}

__global__ void scale(float* data, float factor, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) data[i] *= factor;
}

// One element per thread of the launch, indexed by the thread's grid index alone.
__global__ void stamp(int* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = i;
}

__device__ void set_flag(int* flag) {
  *flag = 1;
}

__global__ void raise(int* flag) {
  if (threadIdx.x == 0) set_flag(flag);
}

namespace {

constexpr int kCount = 1 << 12;

enum class Slices { Disjoint, Overlapping, SecondByLaunchEx };

int slices(Slices how) {
  int* data = nullptr;
  CHECK(cudaMalloc(&data, kCount * sizeof(int)));
  cudaStream_t first = nullptr;
  cudaStream_t second = nullptr;
  CHECK(cudaStreamCreate(&first));
  CHECK(cudaStreamCreate(&second));
  constexpr int kHalf = kCount / 2;
  stamp<<<kHalf / 256, 256, 0, first>>>(data);
  CHECK(cudaGetLastError());
  int* rest = data + (how == Slices::Overlapping ? kHalf / 2 : kHalf);
  if (how == Slices::SecondByLaunchEx) {
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(kHalf / 256);
    config.blockDim = dim3(256);
    config.stream = second;
    CHECK(cudaLaunchKernelEx(&config, stamp, rest));
  } else {
    stamp<<<kHalf / 256, 256, 0, second>>>(rest);
    CHECK(cudaGetLastError());
  }
  CHECK(cudaDeviceSynchronize());
  std::printf("slices done\n");
  return 0;
}

int flags() {
  int* flag = nullptr;
  CHECK(cudaMalloc(&flag, 2 * sizeof(int)));
  cudaStream_t first = nullptr;
  cudaStream_t second = nullptr;
  CHECK(cudaStreamCreate(&first));
  CHECK(cudaStreamCreate(&second));
  raise<<<1, 32, 0, first>>>(flag);
  raise<<<1, 32, 0, second>>>(flag + 1);
  CHECK(cudaDeviceSynchronize());
  std::printf("flags done\n");
  return 0;
}

void fillOnCpu(const StreamraceEmuLaunch&, float* out, int count) {
  for (int i = 0; i < count; ++i)
    out[i] = 1.0f;
}

enum class Launch { Chevrons, Ex, Cooperative };

int race(bool ordered, Launch how = Launch::Chevrons) {
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
  int count = kCount;
  if (how == Launch::Ex) {
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(kCount / 256);
    config.blockDim = dim3(256);
    config.stream = writer;
    CHECK(cudaLaunchKernelEx(&config, fill, middle, count));
  } else if (how == Launch::Cooperative) {
    void* arguments[] = {&middle, &count};
    CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(fill), dim3(kCount / 256),
                                      dim3(256), arguments, 0, writer));
  } else {
    fill<<<kCount / 256, 256, 0, writer>>>(middle, count);
    CHECK(cudaGetLastError());
  }
  if (ordered) {
    CHECK(cudaEventRecord(written, writer));
    CHECK(cudaStreamWaitEvent(reader, written, 0));
  }
  CHECK(cudaMemcpyAsync(target, middle, kCount * sizeof(float), cudaMemcpyDeviceToDevice, reader));
  CHECK(cudaDeviceSynchronize());
  std::printf("kernel and copy done\n");
  return 0;
}

// The tracer asks the runtime for each new kernel's parameter layout, which ends with an error
// the program must never see, and must not erase an error the program has not read yet.
int lastError() {
  float* data = nullptr;
  CHECK(cudaMalloc(&data, kCount * sizeof(float)));
  std::printf("set device 99: %s\n", cudaGetErrorName(cudaSetDevice(99)));
  fill<<<1, 1>>>(data, kCount);
  std::printf("after a launch, pending error: %s\n", cudaGetErrorName(cudaGetLastError()));
  std::printf("read again: %s\n", cudaGetErrorName(cudaGetLastError()));
  scale<<<1, 1>>>(data, 2.0f, kCount);
  std::printf("after a new kernel's launch: %s\n", cudaGetErrorName(cudaPeekAtLastError()));
  fill<<<1, 1>>>(data, kCount);
  std::printf("after a second launch: %s\n", cudaGetErrorName(cudaGetLastError()));
  CHECK(cudaDeviceSynchronize());
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: kernel_races race|event|last-error|launch-ex|launch-ex-event|"
                         "cooperative|slices|slices-overlap|slices-ex|flags [annotate]\n");
    return 2;
  }
  streamrace_emulator::registerKernel<&fillOnCpu>(fill);
  if (argc > 2 && std::strcmp(argv[2], "annotate") == 0)
    std::printf("annotated: %d\n", streamrace_annotate_kernel((const void*)fill, "w[p1*4],-"));
  if (std::strcmp(argv[1], "race") == 0) return race(false);
  if (std::strcmp(argv[1], "event") == 0) return race(true);
  if (std::strcmp(argv[1], "last-error") == 0) return lastError();
  if (std::strcmp(argv[1], "launch-ex") == 0) return race(false, Launch::Ex);
  if (std::strcmp(argv[1], "launch-ex-event") == 0) return race(true, Launch::Ex);
  if (std::strcmp(argv[1], "cooperative") == 0) return race(false, Launch::Cooperative);
  if (std::strcmp(argv[1], "slices") == 0) return slices(Slices::Disjoint);
  if (std::strcmp(argv[1], "slices-overlap") == 0) return slices(Slices::Overlapping);
  if (std::strcmp(argv[1], "slices-ex") == 0) return slices(Slices::SecondByLaunchEx);
  if (std::strcmp(argv[1], "flags") == 0) return flags();
  std::fprintf(stderr, "unknown scenario %s\n", argv[1]);
  return 2;
}
