// The host's own loads and stores of pinned and managed memory that device work still uses, for
// the tracer's `watch_host_accesses` tests. Built by nvcc with -g against the real runtime
// (-cudart shared); run on the emulator under the tracer. Each scenario touches the memory with
// plain loads and stores, as a program does; the `*-synced` ones order the touch first.
//
//   host_accesses <scenario>
//   d2h / d2h-synced             read the pinned destination of a device-to-host copy
//                                without / after cudaStreamSynchronize
//   d2h-twice                    d2h twice, each with an allocation of its own
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
//   syscalls                     read, pread, readv, fread, write and fwrite given pinned memory
//                                that enqueued copies used (and the host then waited for): each
//                                moves the program's bytes as it would untraced
//   read-race                    read() from a file into the pinned destination of a
//                                device-to-host copy still in flight
#include <streamrace_emulator/kernel_registry.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/mman.h>
#include <sys/uio.h>
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

// A file of kCount ints counting up from 1000, open for reading and writing; -1 if it cannot be.
int countingFile() {
  char path[] = "/tmp/streamrace-host-accesses-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) return -1;
  unlink(path);
  int numbers[kCount];
  for (int i = 0; i < kCount; ++i)
    numbers[i] = 1000 + i;
  if (write(fd, numbers, sizeof numbers) != static_cast<ssize_t>(sizeof numbers)) return -1;
  return fd;
}

bool holdsCount(const int* values, int from) {
  for (int i = 0; i < kCount; ++i)
    if (values[i] != from + i) return false;
  return true;
}

constexpr std::size_t kBytes = kCount * sizeof(int);

struct FileAndPinned {
  int* device = nullptr;
  int* pinned = nullptr;
  cudaStream_t stream = nullptr;
  int fd = -1;
};

int setUp(FileAndPinned& setup) {
  CHECK(cudaMalloc(&setup.device, kBytes));
  CHECK(cudaMallocHost(&setup.pinned, kBytes));
  CHECK(cudaStreamCreateWithFlags(&setup.stream, cudaStreamNonBlocking));
  setup.fd = countingFile();
  return setup.fd < 0 ? 2 : 0;
}

// Each call is handed pinned pages a copy was enqueued on (the host then waited for the copy):
// pages the mode closed, which the kernel refuses with EFAULT unless they are opened first.
int systemCalls() {
  FileAndPinned setup;
  if (int status = setUp(setup); status != 0) return status;
  int* const device = setup.device;
  int* const pinned = setup.pinned;
  const cudaStream_t stream = setup.stream;
  const int fd = setup.fd;
  auto close_pages = [&]() {
    CHECK(cudaMemcpyAsync(device, pinned, kBytes, cudaMemcpyHostToDevice, stream));
    CHECK(cudaStreamSynchronize(stream));
    return 0;
  };
  auto report = [&](const char* call, bool moved) {
    std::printf("%s %s\n", call, moved && holdsCount(pinned, 1000) ? "moved the bytes" : "failed");
    std::memset(pinned, 0, kBytes);
  };
  if (close_pages() != 0) return 1;
  report("pread", pread(fd, pinned, kBytes, 0) == static_cast<ssize_t>(kBytes));
  if (close_pages() != 0) return 1;
  lseek(fd, 0, SEEK_SET);
  report("read", read(fd, pinned, kBytes) == static_cast<ssize_t>(kBytes));
  if (close_pages() != 0) return 1;
  const iovec halves[2] = {{pinned, kBytes / 2}, {pinned + kCount / 2, kBytes / 2}};
  report("readv", preadv(fd, halves, 2, 0) == static_cast<ssize_t>(kBytes));
  if (close_pages() != 0) return 1;
  FILE* file = fdopen(dup(fd), "r+");
  if (file == nullptr) return 2;
  std::setvbuf(file, nullptr, _IONBF, 0); // straight into the caller's buffer
  std::rewind(file);
  report("fread", std::fread(pinned, sizeof(int), kCount, file) == kCount);
  // The other way: the pages hold the numbers again, shifted by 1000, and go to the file.
  for (int i = 0; i < kCount; ++i)
    pinned[i] = 2000 + i;
  if (close_pages() != 0) return 1;
  const bool written = pwrite(fd, pinned, kBytes, 0) == static_cast<ssize_t>(kBytes);
  if (close_pages() != 0) return 1;
  std::rewind(file);
  const bool appended = std::fwrite(pinned, sizeof(int), kCount, file) == kCount;
  int from_file[kCount];
  const bool both = written && appended && pread(fd, from_file, sizeof from_file, 0) == kBytes &&
                    holdsCount(from_file, 2000);
  std::printf("write and fwrite %s\n", both ? "moved the bytes" : "failed");
  std::fclose(file);
  close(fd);
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFree(device));
  return 0;
}

int readRace() {
  FileAndPinned setup;
  if (int status = setUp(setup); status != 0) return status;
  int* const device = setup.device;
  int* const pinned = setup.pinned;
  const cudaStream_t stream = setup.stream;
  const int fd = setup.fd;
  CHECK(cudaMemset(device, 7, kBytes));
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpyAsync(pinned, device, kBytes, cudaMemcpyDeviceToHost, stream));
  const ssize_t got = pread(fd, pinned, kBytes, 0); // the host's write, through the kernel
  CHECK(cudaStreamSynchronize(stream));
  std::printf("read %zd bytes\n", got);
  close(fd);
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFree(device));
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
  if (scenario == "d2h-twice") {
    const auto noWait = [](cudaStream_t) { return 0; };
    const int first = readCopied(noWait);
    return first != 0 ? first : readCopied(noWait);
  }
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
  if (scenario == "syscalls") return systemCalls();
  if (scenario == "read-race") return readRace();
  std::fprintf(stderr, "unknown scenario %s\n", scenario.c_str());
  return 2;
}
