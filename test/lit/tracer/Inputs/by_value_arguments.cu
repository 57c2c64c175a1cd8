// A kernel that takes its buffers inside a struct passed by value (as parameter packs and
// PyTorch's TensorIterator kernels do) writes one buffer on one stream; a copy on another stream
// reads it, for the tracer's lit tests. Built by nvcc with -g (-cudart shared) and run on the
// emulator, which reads the struct's size from the program's own device code.
//
//   by_value_arguments <scenario>
//   race       scale<<<>>>(Arguments{middle, source, ...}) on `writer`, a copy reads `middle` on
//              `reader`: nothing orders them
//   event      the same, `reader` waits on an event recorded after the kernel
//   elsewhere  the struct names other buffers: the copy of `middle` touches nothing it does
//   tail       the kernel scales the first half of `middle` (its count member says so) while a
//              copy on `reader` fills the second half: disjoint bytes, no race
//   tail-race  the same copy fills the first half: it races with the kernel's write
//   layout     prints each parameter's offset and size as cudaFuncGetParamInfo gives them
#include <cstdio>
#include <string_view>

#include "../../Inputs/check_call.h"

struct Arguments {
  float* output;
  const float* input;
  int count;
  double factor;
};

__global__ void scale(Arguments arguments, int offset) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x + offset;
  if (i < arguments.count)
    arguments.output[i] = static_cast<float>(arguments.input[i] * arguments.factor);
}

namespace {

constexpr int kCount = 1 << 12;
constexpr size_t kBytes = kCount * sizeof(float);

} // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: by_value_arguments race|event|elsewhere|tail|tail-race|layout\n");
    return 2;
  }
  const std::string_view scenario = argv[1];
  if (scenario == "layout") {
    size_t offset = 0;
    size_t size = 0;
    for (size_t index = 0; cudaFuncGetParamInfo(reinterpret_cast<const void*>(&scale), index,
                                                &offset, &size) == cudaSuccess;
         ++index)
      std::printf("parameter %zu: offset %zu, size %zu\n", index, offset, size);
    return 0;
  }
  const bool tail = scenario == "tail" || scenario == "tail-race";
  if (scenario != "race" && scenario != "event" && scenario != "elsewhere" && !tail) {
    std::fprintf(stderr, "by_value_arguments: unknown scenario '%s'\n", argv[1]);
    return 2;
  }
  float* middle = nullptr;
  float* source = nullptr;
  float* other = nullptr;
  float* target = nullptr;
  CHECK(cudaMalloc(&middle, kBytes));
  CHECK(cudaMalloc(&source, kBytes));
  CHECK(cudaMalloc(&other, kBytes));
  CHECK(cudaMalloc(&target, kBytes));
  cudaStream_t writer = nullptr;
  cudaStream_t reader = nullptr;
  cudaEvent_t written = nullptr;
  CHECK(cudaStreamCreateWithFlags(&writer, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&reader, cudaStreamNonBlocking));
  CHECK(cudaEventCreate(&written));

  if (tail) {
    constexpr int kHalf = kCount / 2;
    scale<<<kHalf / 256, 256, 0, writer>>>(Arguments{middle, source, kHalf, 2.0}, 0);
    CHECK(cudaGetLastError());
    float* filled = scenario == "tail" ? middle + kHalf : middle;
    CHECK(cudaMemcpyAsync(filled, target, kHalf * sizeof(float), cudaMemcpyDeviceToDevice, reader));
  } else {
    const Arguments arguments{scenario == "elsewhere" ? other : middle, source, kCount, 2.0};
    scale<<<kCount / 256, 256, 0, writer>>>(arguments, 0);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(written, writer));
    if (scenario == "event") CHECK(cudaStreamWaitEvent(reader, written, 0));
    CHECK(cudaMemcpyAsync(target, middle, kBytes, cudaMemcpyDeviceToDevice, reader));
  }
  CHECK(cudaDeviceSynchronize());
  std::printf("by-value kernel and copy done\n");
  return 0;
}
