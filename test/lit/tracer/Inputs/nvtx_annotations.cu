// A kernel annotated through NVTX alone — no streamrace header — for the tracer's lit tests: a
// mark in the "streamrace" domain. Built by nvcc with -g against the real runtime (-cudart
// shared); run on the emulator under the tracer. The kernel writes the middle half of a buffer on
// one stream while a copy reads the whole buffer on another.
//
//   nvtx_annotations <scenario> <annotation>
//   scenario    race: no ordering between kernel and copy; event: the copy's stream waits on an
//               event recorded after the kernel
//   annotation  none; address: the kernel's address as the mark's 64-bit payload, the
//               specification as its message; name: no payload, the message "<mangled name>:
//               <specification>" as a registered string; late-name: the same after the kernel's
//               first launch (into another buffer); malformed: an address mark with a bad
//               specification, and a mark naming no kernel
#include <streamrace_emulator/kernel_registry.h>

#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "../../Inputs/check_call.h"

// Outside any namespace: its device name is the plain _Z4fillPfi the name annotation gives.
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

// A mark's event attributes without a message yet; when `kernel` is set, its payload is the
// kernel's address.
nvtxEventAttributes_t markAttributes(const void* kernel) {
  nvtxEventAttributes_t attributes;
  std::memset(&attributes, 0, sizeof attributes);
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  if (kernel != nullptr) {
    attributes.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
    attributes.payload.ullValue = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(kernel));
  }
  return attributes;
}

bool annotate(const char* how) {
  if (std::strcmp(how, "none") == 0) return true;
  nvtxDomainHandle_t domain = nvtxDomainCreateA("streamrace");
  if (std::strcmp(how, "address") == 0 || std::strcmp(how, "malformed") == 0) {
    const bool malformed = std::strcmp(how, "malformed") == 0;
    nvtxEventAttributes_t attributes = markAttributes(reinterpret_cast<const void*>(fill));
    attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attributes.message.ascii = malformed ? "w[p1*4],q" : "w[p1*4],-";
    nvtxDomainMarkEx(domain, &attributes);
    if (malformed) {
      nvtxEventAttributes_t anonymous = markAttributes(nullptr);
      anonymous.messageType = NVTX_MESSAGE_TYPE_ASCII;
      anonymous.message.ascii = "w[p1*4],-";
      nvtxDomainMarkEx(domain, &anonymous);
    }
    return true;
  }
  if (std::strcmp(how, "name") == 0 || std::strcmp(how, "late-name") == 0) {
    nvtxEventAttributes_t attributes = markAttributes(nullptr);
    attributes.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    attributes.message.registered = nvtxDomainRegisterStringA(domain, "_Z4fillPfi: w[p1*4],-");
    nvtxDomainMarkEx(domain, &attributes);
    return true;
  }
  return false;
}

// A launch before the annotation: the tracer has learned the kernel's layout, unannotated.
int launchOnce() {
  float* scratch = nullptr;
  CHECK(cudaMalloc(&scratch, 256 * sizeof(float)));
  fill<<<1, 256>>>(scratch, 256);
  CHECK(cudaDeviceSynchronize());
  return 0;
}

int run(bool ordered) {
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
  // The middle half: bytes 4096 to 12288 of the 16384-byte buffer.
  fill<<<kCount / 2 / 256, 256, 0, writer>>>(middle + kCount / 4, kCount / 2);
  CHECK(cudaGetLastError());
  if (ordered) {
    CHECK(cudaEventRecord(written, writer));
    CHECK(cudaStreamWaitEvent(reader, written, 0));
  }
  CHECK(cudaMemcpyAsync(target, middle, kCount * sizeof(float), cudaMemcpyDeviceToDevice, reader));
  CHECK(cudaDeviceSynchronize());
  std::printf("kernel and copy done\n");
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  const bool known =
      argc == 3 && (std::strcmp(argv[1], "race") == 0 || std::strcmp(argv[1], "event") == 0);
  streamrace_emulator::registerKernel<&fillOnCpu>(fill);
  if (known && std::strcmp(argv[2], "late-name") == 0 && launchOnce() != 0) return 1;
  if (!known || !annotate(argv[2])) {
    std::fprintf(stderr,
                 "usage: nvtx_annotations race|event none|address|name|late-name|malformed\n");
    return 2;
  }
  std::printf("annotation: %s\n", argv[2]);
  return run(std::strcmp(argv[1], "event") == 0);
}
