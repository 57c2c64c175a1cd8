// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// System calls given watched memory (`watch_host_accesses`). The kernel does not fault on a page
// the tracer protected: it fails the call with EFAULT, and a program that read()s a file into a
// pinned buffer would see its read fail only because it is traced. So the preloaded tracer
// defines the C library's calls that hand the kernel a buffer — read, write, their positioned and
// vectored forms, the socket calls and stdio's fread/fwrite (whose own system calls, made inside
// the C library, cannot be intercepted) — and gives the watched pages of the buffers back before
// the call, as a fault would have. After it, the bytes the call moved are the calling thread's
// host access, like a load or store of them: a read into the buffer writes it. A call made
// with no watched byte costs a scan of the table (watched_memory.h) and nothing else.
#include "host_access/host_access_record.h"
#include "host_access/watched_memory.h"
#include "process/next_definition.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <span>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

namespace streamrace::tracer {

namespace {

// Another thread may enqueue work on the pages between their opening and the call, closing them
// again; the call is then made again, a few times at most.
constexpr int kReopenAttempts = 3;

std::span<const iovec> one(const iovec& buffer) {
  return {&buffer, 1};
}

// The buffers of one call, and whether the kernel writes them.
class KernelBuffers {
public:
  KernelBuffers(std::span<const iovec> buffers, bool kernel_writes)
      : buffers_(buffers), kernel_writes_(kernel_writes) {
    if (!WatchedMemory::enabled()) return;
    for (const iovec& buffer : buffers_)
      if (WatchedMemory::instance().open_for_kernel(address(buffer), buffer.iov_len,
                                                    kernel_writes_))
        watched_ = true;
  }

  bool watched() const { return watched_; }

  void reopen() const {
    for (const iovec& buffer : buffers_)
      WatchedMemory::instance().open_for_kernel(address(buffer), buffer.iov_len, kernel_writes_);
  }

  // The call moved `moved` bytes, filling (or emptying) the buffers in order; `caller` is the
  // return address into the code that made it.
  void record(void* caller, std::uint64_t moved) const {
    const int saved_errno = errno;
    RawStack stack;
    capture_stack_from(caller, stack);
    for (const iovec& buffer : buffers_) {
      if (moved == 0) break;
      const std::uint64_t size = std::min<std::uint64_t>(buffer.iov_len, moved);
      moved -= size;
      if (WatchedMemory::instance().watches(address(buffer), size)) {
        RawStack own = stack; // recording may trim it
        record_watched_access(address(buffer), size, kernel_writes_, own);
      }
    }
    errno = saved_errno;
  }

private:
  static std::uintptr_t address(const iovec& buffer) {
    return reinterpret_cast<std::uintptr_t>(buffer.iov_base);
  }

  std::span<const iovec> buffers_;
  bool kernel_writes_;
  bool watched_ = false;
};

// A system call's way: `call()` returns the bytes moved, or -1 with errno.
template <typename Call>
ssize_t through_kernel(void* caller, std::span<const iovec> buffers, bool kernel_writes,
                       Call&& call) {
  const KernelBuffers kernel(buffers, kernel_writes);
  ssize_t result = call();
  if (!kernel.watched()) return result;
  for (int attempt = 0; result < 0 && errno == EFAULT && attempt < kReopenAttempts; ++attempt) {
    kernel.reopen();
    result = call();
  }
  if (result > 0) kernel.record(caller, static_cast<std::uint64_t>(result));
  return result;
}

// stdio's way: `call()` returns the items moved, of `size` bytes each.
template <typename Call>
std::size_t through_stdio(void* caller, const void* buffer, std::size_t size, std::size_t count,
                          bool kernel_writes, Call&& call) {
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(size, count, &bytes)) return call();
  const iovec whole{const_cast<void*>(buffer), bytes};
  const KernelBuffers kernel(one(whole), kernel_writes);
  const std::size_t items = call();
  if (kernel.watched() && items > 0) kernel.record(caller, items * size);
  return items;
}

std::span<const iovec> vector_of(const iovec* buffers, int count) {
  return {buffers, buffers != nullptr && count > 0 ? static_cast<std::size_t>(count) : 0};
}

std::span<const iovec> vector_of(const msghdr* message) {
  if (message == nullptr || message->msg_iov == nullptr) return {};
  return {message->msg_iov, message->msg_iovlen};
}

} // namespace

} // namespace streamrace::tracer

using streamrace::tracer::one;
using streamrace::tracer::through_kernel;
using streamrace::tracer::through_stdio;
using streamrace::tracer::vector_of;

// Each definition repeats its declaration in glibc's headers, exception specification included.
extern "C" {

#define STREAMRACE_CALLER __builtin_return_address(0)

__attribute__((visibility("default"))) ssize_t read(int fd, void* buffer, size_t count) {
  STREAMRACE_NEXT(read);
  const iovec whole{buffer, count};
  return through_kernel(STREAMRACE_CALLER, one(whole), true,
                        [&] { return real(fd, buffer, count); });
}

__attribute__((visibility("default"))) ssize_t write(int fd, const void* buffer, size_t count) {
  STREAMRACE_NEXT(write);
  const iovec whole{const_cast<void*>(buffer), count};
  return through_kernel(STREAMRACE_CALLER, one(whole), false,
                        [&] { return real(fd, buffer, count); });
}

__attribute__((visibility("default"))) ssize_t pread(int fd, void* buffer, size_t count,
                                                     off_t offset) {
  STREAMRACE_NEXT(pread);
  const iovec whole{buffer, count};
  return through_kernel(STREAMRACE_CALLER, one(whole), true,
                        [&] { return real(fd, buffer, count, offset); });
}

__attribute__((visibility("default"))) ssize_t pread64(int fd, void* buffer, size_t count,
                                                       off64_t offset) {
  STREAMRACE_NEXT(pread64);
  const iovec whole{buffer, count};
  return through_kernel(STREAMRACE_CALLER, one(whole), true,
                        [&] { return real(fd, buffer, count, offset); });
}

__attribute__((visibility("default"))) ssize_t pwrite(int fd, const void* buffer, size_t count,
                                                      off_t offset) {
  STREAMRACE_NEXT(pwrite);
  const iovec whole{const_cast<void*>(buffer), count};
  return through_kernel(STREAMRACE_CALLER, one(whole), false,
                        [&] { return real(fd, buffer, count, offset); });
}

__attribute__((visibility("default"))) ssize_t pwrite64(int fd, const void* buffer, size_t count,
                                                        off64_t offset) {
  STREAMRACE_NEXT(pwrite64);
  const iovec whole{const_cast<void*>(buffer), count};
  return through_kernel(STREAMRACE_CALLER, one(whole), false,
                        [&] { return real(fd, buffer, count, offset); });
}

__attribute__((visibility("default"))) ssize_t readv(int fd, const iovec* buffers, int count) {
  STREAMRACE_NEXT(readv);
  return through_kernel(STREAMRACE_CALLER, vector_of(buffers, count), true,
                        [&] { return real(fd, buffers, count); });
}

__attribute__((visibility("default"))) ssize_t writev(int fd, const iovec* buffers, int count) {
  STREAMRACE_NEXT(writev);
  return through_kernel(STREAMRACE_CALLER, vector_of(buffers, count), false,
                        [&] { return real(fd, buffers, count); });
}

__attribute__((visibility("default"))) ssize_t preadv(int fd, const iovec* buffers, int count,
                                                      off_t offset) {
  STREAMRACE_NEXT(preadv);
  return through_kernel(STREAMRACE_CALLER, vector_of(buffers, count), true,
                        [&] { return real(fd, buffers, count, offset); });
}

__attribute__((visibility("default"))) ssize_t preadv64(int fd, const iovec* buffers, int count,
                                                        off64_t offset) {
  STREAMRACE_NEXT(preadv64);
  return through_kernel(STREAMRACE_CALLER, vector_of(buffers, count), true,
                        [&] { return real(fd, buffers, count, offset); });
}

__attribute__((visibility("default"))) ssize_t pwritev(int fd, const iovec* buffers, int count,
                                                       off_t offset) {
  STREAMRACE_NEXT(pwritev);
  return through_kernel(STREAMRACE_CALLER, vector_of(buffers, count), false,
                        [&] { return real(fd, buffers, count, offset); });
}

__attribute__((visibility("default"))) ssize_t pwritev64(int fd, const iovec* buffers, int count,
                                                         off64_t offset) {
  STREAMRACE_NEXT(pwritev64);
  return through_kernel(STREAMRACE_CALLER, vector_of(buffers, count), false,
                        [&] { return real(fd, buffers, count, offset); });
}

__attribute__((visibility("default"))) ssize_t recv(int fd, void* buffer, size_t count, int flags) {
  STREAMRACE_NEXT(recv);
  const iovec whole{buffer, count};
  return through_kernel(STREAMRACE_CALLER, one(whole), true,
                        [&] { return real(fd, buffer, count, flags); });
}

__attribute__((visibility("default"))) ssize_t recvfrom(int fd, void* buffer, size_t count,
                                                        int flags, sockaddr* from,
                                                        socklen_t* from_length) {
  STREAMRACE_NEXT(recvfrom);
  const iovec whole{buffer, count};
  return through_kernel(STREAMRACE_CALLER, one(whole), true,
                        [&] { return real(fd, buffer, count, flags, from, from_length); });
}

__attribute__((visibility("default"))) ssize_t recvmsg(int fd, msghdr* message, int flags) {
  STREAMRACE_NEXT(recvmsg);
  return through_kernel(STREAMRACE_CALLER, vector_of(message), true,
                        [&] { return real(fd, message, flags); });
}

__attribute__((visibility("default"))) ssize_t send(int fd, const void* buffer, size_t count,
                                                    int flags) {
  STREAMRACE_NEXT(send);
  const iovec whole{const_cast<void*>(buffer), count};
  return through_kernel(STREAMRACE_CALLER, one(whole), false,
                        [&] { return real(fd, buffer, count, flags); });
}

__attribute__((visibility("default"))) ssize_t sendto(int fd, const void* buffer, size_t count,
                                                      int flags, const sockaddr* to,
                                                      socklen_t to_length) {
  STREAMRACE_NEXT(sendto);
  const iovec whole{const_cast<void*>(buffer), count};
  return through_kernel(STREAMRACE_CALLER, one(whole), false,
                        [&] { return real(fd, buffer, count, flags, to, to_length); });
}

__attribute__((visibility("default"))) ssize_t sendmsg(int fd, const msghdr* message, int flags) {
  STREAMRACE_NEXT(sendmsg);
  return through_kernel(STREAMRACE_CALLER, vector_of(message), false,
                        [&] { return real(fd, message, flags); });
}

__attribute__((visibility("default"))) size_t fread(void* buffer, size_t size, size_t count,
                                                    FILE* stream) {
  STREAMRACE_NEXT(fread);
  return through_stdio(STREAMRACE_CALLER, buffer, size, count, true,
                       [&] { return real(buffer, size, count, stream); });
}

__attribute__((visibility("default"))) size_t fwrite(const void* buffer, size_t size, size_t count,
                                                     FILE* stream) {
  STREAMRACE_NEXT(fwrite);
  return through_stdio(STREAMRACE_CALLER, buffer, size, count, false,
                       [&] { return real(buffer, size, count, stream); });
}

__attribute__((visibility("default"))) size_t fread_unlocked(void* buffer, size_t size,
                                                             size_t count, FILE* stream) {
  STREAMRACE_NEXT(fread_unlocked);
  return through_stdio(STREAMRACE_CALLER, buffer, size, count, true,
                       [&] { return real(buffer, size, count, stream); });
}

__attribute__((visibility("default"))) size_t fwrite_unlocked(const void* buffer, size_t size,
                                                              size_t count, FILE* stream) {
  STREAMRACE_NEXT(fwrite_unlocked);
  return through_stdio(STREAMRACE_CALLER, buffer, size, count, false,
                       [&] { return real(buffer, size, count, stream); });
}

} // extern "C"
