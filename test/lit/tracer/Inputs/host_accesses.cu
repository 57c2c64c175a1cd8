// The host's own loads and stores of pinned and managed memory that device work still uses, for
// the tracer's `watch_host_accesses` tests. Built by nvcc with -g against the real runtime
// (-cudart shared); run on the emulator under the tracer. Each scenario touches the memory with
// plain loads and stores, as a program does; the `*-synced` ones order the touch first.
//
//   host_accesses <scenario>
//   d2h / d2h-synced             read the pinned destination of a device-to-host copy
//                                without / after cudaStreamSynchronize
//   d2h-event                    read it after cudaEventSynchronize on an event after the copy
//   d2h-query-once / -poll       read it after one cudaStreamQuery / polling until cudaSuccess
//   h2d-refill / -synced         refill a pinned staging buffer while / after its host-to-device
//                                copy reads it
//   managed / managed-synced     read managed memory a kernel writes, without / after
//                                cudaDeviceSynchronize
//   own-handler                  the program's own SIGSEGV handler, installed after the first
//                                CUDA call, sees the fault on its own protected page and repairs
//                                it; then the d2h race, which the tracer must still see
//   handler-first                the program's own SIGSEGV handler, installed before the first
//                                CUDA call (the tracer's crash flush goes in front of it), sees
//                                its fault once, with the fault's own address
//   own-crash                    a plain null-pointer store the program does not handle
#include <streamrace_emulator/kernel_registry.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

#include "../../Inputs/check_call.h"

__global__ void fill(int* out, int value, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = value;
}

namespace {

constexpr int kCount = 1024;

void fillOnCpu(const StreamraceEmuLaunch&, int* out, int value, int count) {
  for (int i = 0; i < count; ++i)
    out[i] = value;
}

// Device-to-host: `wait` orders (or not) the host's read of the destination after the copy.
template <typename Wait> int readCopied(Wait wait) {
  int* device = nullptr;
  int* pinned = nullptr;
  cudaStream_t stream = nullptr;
  CHECK(cudaMalloc(&device, kCount * sizeof(int)));
  CHECK(cudaMallocHost(&pinned, kCount * sizeof(int)));
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CHECK(cudaMemset(device, 7, kCount * sizeof(int)));
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpyAsync(pinned, device, kCount * sizeof(int), cudaMemcpyDeviceToHost, stream));
  if (int status = wait(stream); status != 0) return status;
  const int first = pinned[0]; // the host's read
  CHECK(cudaStreamSynchronize(stream));
  std::printf("read %s\n", first == pinned[0] ? "the copied value" : "a stale value");
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFree(device));
  return 0;
}

int stagingRefill(bool synced) {
  int* device = nullptr;
  int* staging = nullptr;
  cudaStream_t stream = nullptr;
  CHECK(cudaMalloc(&device, kCount * sizeof(int)));
  CHECK(cudaHostAlloc(&staging, kCount * sizeof(int), cudaHostAllocDefault));
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (int i = 0; i < kCount; ++i)
    staging[i] = 1;
  CHECK(cudaMemcpyAsync(device, staging, kCount * sizeof(int), cudaMemcpyHostToDevice, stream));
  if (synced) CHECK(cudaStreamSynchronize(stream));
  for (int i = 0; i < kCount; ++i)
    staging[i] = 2; // the next batch
  CHECK(cudaStreamSynchronize(stream));
  std::printf("refilled\n");
  CHECK(cudaFreeHost(staging));
  CHECK(cudaFree(device));
  return 0;
}

int managedAfterKernel(bool synced) {
  int* managed = nullptr;
  cudaStream_t stream = nullptr;
  CHECK(cudaMallocManaged(&managed, kCount * sizeof(int)));
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  fill<<<kCount / 256, 256, 0, stream>>>(managed, 5, kCount);
  CHECK(cudaGetLastError());
  if (synced) CHECK(cudaDeviceSynchronize());
  const int sum = managed[0] + managed[kCount - 1]; // the host's read
  CHECK(cudaDeviceSynchronize());
  std::printf("managed %s\n", sum == 10 ? "read after the kernel" : "read early");
  CHECK(cudaFree(managed));
  return 0;
}

// The program's own use of SIGSEGV: a page it protects itself, repaired by its handler.
char* own_page = nullptr;
volatile sig_atomic_t own_faults = 0;

void onOwnFault(int, siginfo_t* info, void*) {
  if (static_cast<char*>(info->si_addr) != own_page) _exit(3);
  ++own_faults;
  mprotect(own_page, static_cast<std::size_t>(sysconf(_SC_PAGESIZE)), PROT_READ | PROT_WRITE);
}

int ownHandler() {
  CHECK(cudaFree(nullptr)); // the tracer starts here, in front of the program's handler
  struct sigaction action{};
  action.sa_sigaction = onOwnFault;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGSEGV, &action, nullptr) != 0) return 2;
  struct sigaction current{};
  sigaction(SIGSEGV, nullptr, &current);
  std::printf("sigaction reports the program's handler: %s\n",
              current.sa_sigaction == onOwnFault ? "yes" : "no");
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  own_page = static_cast<char*>(mmap(nullptr, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  own_page[0] = 'x'; // faults into the program's handler, which repairs the page
  std::printf("own handler saw %d fault(s), page holds %c\n", static_cast<int>(own_faults),
              own_page[0]);
  return readCopied([](cudaStream_t) { return 0; });
}

int handlerFirst() {
  struct sigaction action{};
  action.sa_sigaction = onOwnFault;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGSEGV, &action, nullptr) != 0) return 2;
  CHECK(cudaFree(nullptr)); // the tracer starts here and flushes its trace ahead of the handler
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  own_page = static_cast<char*>(mmap(nullptr, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  own_page[0] = 'y';
  std::printf("own handler saw %d fault(s), page holds %c\n", static_cast<int>(own_faults),
              own_page[0]);
  return 0;
}

int ownCrash() {
  CHECK(cudaFree(nullptr));
  std::fflush(stdout);
  volatile int* nowhere = nullptr;
  *nowhere = 1;
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: host_accesses <scenario>\n");
    return 2;
  }
  streamrace_emulator::registerKernel<&fillOnCpu>(fill);
  const std::string scenario = argv[1];
  if (scenario == "d2h") return readCopied([](cudaStream_t) { return 0; });
  if (scenario == "d2h-synced")
    return readCopied([](cudaStream_t stream) {
      CHECK(cudaStreamSynchronize(stream));
      return 0;
    });
  if (scenario == "d2h-event")
    return readCopied([](cudaStream_t stream) {
      cudaEvent_t copied = nullptr;
      CHECK(cudaEventCreate(&copied));
      CHECK(cudaEventRecord(copied, stream));
      CHECK(cudaEventSynchronize(copied));
      return 0;
    });
  if (scenario == "d2h-query-once")
    return readCopied([](cudaStream_t stream) {
      std::printf("first answer %s\n", cudaGetErrorName(cudaStreamQuery(stream)));
      return 0;
    });
  if (scenario == "d2h-query-poll")
    return readCopied([](cudaStream_t stream) {
      while (cudaStreamQuery(stream) == cudaErrorNotReady)
        usleep(1000);
      return 0;
    });
  if (scenario == "h2d-refill") return stagingRefill(false);
  if (scenario == "h2d-refill-synced") return stagingRefill(true);
  if (scenario == "managed") return managedAfterKernel(false);
  if (scenario == "managed-synced") return managedAfterKernel(true);
  if (scenario == "own-handler") return ownHandler();
  if (scenario == "handler-first") return handlerFirst();
  if (scenario == "own-crash") return ownCrash();
  std::fprintf(stderr, "unknown scenario %s\n", scenario.c_str());
  return 2;
}
