// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "host_threads/host_threads.h"

#include "calling_thread.h"
#include "host_threads/hand_off_filter.h"
#include "process/next_definition.h"
#include "recorder.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <ctime>
#include <dlfcn.h>
#include <link.h>
#include <memory>
#include <new>
#include <optional>
#include <pthread.h>
#include <semaphore.h>
#include <string_view>
#include <utility>

namespace streamrace::tracer {

namespace {

thread_local int tracer_code_depth = 0;
// Whether this thread has made a CUDA or NCCL call: only such threads hand anything over.
thread_local bool gpu_thread = false;
// The creation hand-off this thread acquires with its first event (0: none).
thread_local std::uint64_t start_hand_off = 0;
// This thread as the hand-off filter knows it: its index is taken with its first event.
thread_local HandOffThread filter_thread;
std::atomic<std::uint16_t> next_filter_index{1};
constinit HandOffFilter hand_off_filter;

// Hand-off objects for thread creation and ending: ranges no address of a mutex, condition
// variable or semaphore falls in.
constexpr std::uint64_t kThreadStartBase = 0xfff0'0000'0000'0000ull;
constexpr std::uint64_t kThreadEndBase = 0xffe0'0000'0000'0000ull;
std::atomic<std::uint64_t> next_thread_start{1};

std::uint64_t end_of(pthread_t thread) {
  return kThreadEndBase | (static_cast<std::uint64_t>(thread) & 0x000f'ffff'ffff'ffffull);
}

std::uint64_t address_of(const void* object) {
  return reinterpret_cast<std::uintptr_t>(object);
}

// Which loaded object a caller's code belongs to, and whether it is a CUDA, NCCL or NVTX library,
// a GPU framework's C++ runtime, or this one: their locking is their own business, not a hand-off
// of the program's. A runtime's internal locks taken outside its API calls (a driver call, a
// kernel registration) would otherwise order threads that share nothing but the library. In a
// framework the harm is worse: PyTorch's NCCL watchdog thread queries a collective's end event
// and then unlocks the work list the Python thread locks next; on the emulator, where every query
// finds the work done, that ordered each rank's Python thread after its collectives in some runs
// and not in others, and a race the program has on every GPU came and went with timing. The
// program's own hand-offs in a Python job go through the interpreter (threading, queue), which
// stays the program's. A fixed table, appended under a spin flag (a mutex here would call back
// into this very file) and read without one.
struct Image {
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
  bool library = false;
};
constexpr std::size_t kImages = 128;
std::array<Image, kImages> images;
std::atomic<std::size_t> image_count{0};
std::atomic_flag appending_image = ATOMIC_FLAG_INIT;

bool is_runtime_library(std::string_view path) {
  const std::string_view file = path.substr(path.rfind('/') + 1);
  for (std::string_view prefix :
       {"libcuda", "libcudart", "libcupti", "libnccl", "libnvToolsExt", "libnvrtc", "libcublas",
        "libcudnn", "libstreamrace", "libtorch", "libc10"})
    if (file.starts_with(prefix)) return true;
  return false;
}

int find_image(dl_phdr_info* info, std::size_t, void* data) {
  auto* found = static_cast<std::pair<std::uintptr_t, Image>*>(data);
  Image image{UINTPTR_MAX, 0, false};
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) & segment = info->dlpi_phdr[i];
    if (segment.p_type != PT_LOAD) continue;
    const std::uintptr_t begin = info->dlpi_addr + segment.p_vaddr;
    image.begin = std::min(image.begin, begin);
    image.end = std::max(image.end, begin + segment.p_memsz);
  }
  if (found->first < image.begin || found->first >= image.end) return 0;
  image.library = info->dlpi_name != nullptr && is_runtime_library(info->dlpi_name);
  found->second = image;
  return 1;
}

// The tracer to tell, when this call on this thread is the program's own hand-off.
Recorder* hand_off_tracer(const void* caller) {
  if (!gpu_thread || tracer_code_depth > 0 || InsideLibraryCall::active() ||
      inside_cuda_runtime_call())
    return nullptr;
  Recorder* tracer = Recorder::running();
  return tracer != nullptr && !in_runtime_library(caller) ? tracer : nullptr;
}

// Inside a watched host function (host_function_runs.h), the program's hand-off is the function's
// stream's: it is kept with the run, and the tracer places it at the function's place.
bool kept_by_host_function(const void* caller, std::uint64_t object, bool release) {
  HostFunctionRun* run = running_host_function();
  if (run == nullptr || tracer_code_depth > 0 || InsideLibraryCall::active() ||
      in_runtime_library(caller))
    return false;
  run->record_hand_off(object, release,
                       release ? hand_off_filter.number_release(object)
                               : hand_off_filter.last_release(object));
  return true;
}

void release(const void* caller, const char* api, std::uint64_t object) {
  if (kept_by_host_function(caller, object, true)) return;
  Recorder* tracer = hand_off_tracer(caller);
  if (tracer != nullptr && hand_off_filter.release_carries_news(object, filter_thread))
    tracer->record_hand_off(
        api, HostRelease{.object = object, .sequence = hand_off_filter.number_release(object)});
}

void acquire(const void* caller, const char* api, std::uint64_t object) {
  if (kept_by_host_function(caller, object, false)) return;
  Recorder* tracer = hand_off_tracer(caller);
  if (tracer == nullptr || !hand_off_filter.acquire_carries_news(object, filter_thread)) return;
  ++filter_thread.clock_changes;
  tracer->record_hand_off(
      api, HostAcquire{.object = object, .sequence = hand_off_filter.last_release(object)});
}

struct StartRoutine {
  void* (*routine)(void*);
  void* argument;
  std::uint64_t hand_off;
  // Started by a library call (NCCL's proxy and connection threads, started while a
  // communicator is set up): the thread's CUDA calls are the library's own for its whole life.
  bool library_thread;
};

void* start_thread(void* data) {
  const std::unique_ptr<StartRoutine> start(static_cast<StartRoutine*>(data));
  start_hand_off = start->hand_off;
  std::optional<InsideLibraryCall> library_thread;
  if (start->library_thread) library_thread.emplace();
  void* result = start->routine(start->argument);
  release(reinterpret_cast<const void*>(start->routine), "pthread_exit", end_of(pthread_self()));
  return result;
}

} // namespace

void InsideTracer::enter() {
  ++tracer_code_depth;
}
void InsideTracer::leave() {
  --tracer_code_depth;
}
bool InsideTracer::active() {
  return tracer_code_depth > 0;
}

bool in_runtime_library(const void* code) {
  const auto address = reinterpret_cast<std::uintptr_t>(code);
  const std::size_t known = image_count.load(std::memory_order_acquire);
  for (std::size_t i = 0; i < known; ++i)
    if (address >= images[i].begin && address < images[i].end) return images[i].library;
  std::pair<std::uintptr_t, Image> found{address, Image{}};
  if (dl_iterate_phdr(find_image, &found) == 0) return false;
  while (appending_image.test_and_set(std::memory_order_acquire)) {
  }
  if (const std::size_t slot = image_count.load(std::memory_order_relaxed); slot < kImages) {
    images[slot] = found.second;
    image_count.store(slot + 1, std::memory_order_release);
  }
  appending_image.clear(std::memory_order_release);
  return found.second.library;
}

bool is_gpu_thread() {
  return gpu_thread;
}

void note_gpu_thread(Recorder& tracer) {
  ++filter_thread.clock_changes;
  if (gpu_thread) return;
  gpu_thread = true;
  // Index 0 (all 65535 taken) leaves this thread's hand-offs unfiltered.
  std::uint16_t index = next_filter_index.load(std::memory_order_relaxed);
  while (index != 0 &&
         !next_filter_index.compare_exchange_weak(index, static_cast<std::uint16_t>(index + 1))) {
  }
  filter_thread.index = index;
  if (start_hand_off != 0) {
    ++filter_thread.clock_changes;
    const std::uint64_t started = std::exchange(start_hand_off, 0);
    tracer.record_hand_off(
        "pthread_create",
        HostAcquire{.object = started, .sequence = hand_off_filter.last_release(started)});
  }
}

} // namespace streamrace::tracer

using streamrace::tracer::acquire;
using streamrace::tracer::address_of;
using streamrace::tracer::release;

// Each definition repeats its declaration in glibc's headers, exception specification included.
extern "C" {

__attribute__((visibility("default"))) int pthread_mutex_lock(pthread_mutex_t* mutex) noexcept {
  STREAMRACE_NEXT(pthread_mutex_lock);
  const void* caller = __builtin_return_address(0);
  const int result = real(mutex);
  if (result == 0) acquire(caller, "pthread_mutex_lock", address_of(mutex));
  return result;
}

__attribute__((visibility("default"))) int pthread_mutex_trylock(pthread_mutex_t* mutex) noexcept {
  STREAMRACE_NEXT(pthread_mutex_trylock);
  const void* caller = __builtin_return_address(0);
  const int result = real(mutex);
  if (result == 0) acquire(caller, "pthread_mutex_trylock", address_of(mutex));
  return result;
}

__attribute__((visibility("default"))) int
pthread_mutex_timedlock(pthread_mutex_t* mutex, const struct timespec* abstime) noexcept {
  STREAMRACE_NEXT(pthread_mutex_timedlock);
  const void* caller = __builtin_return_address(0);
  const int result = real(mutex, abstime);
  if (result == 0) acquire(caller, "pthread_mutex_timedlock", address_of(mutex));
  return result;
}

__attribute__((visibility("default"))) int pthread_mutex_unlock(pthread_mutex_t* mutex) noexcept {
  STREAMRACE_NEXT(pthread_mutex_unlock);
  const void* caller = __builtin_return_address(0);
  release(caller, "pthread_mutex_unlock", address_of(mutex));
  return real(mutex);
}

__attribute__((visibility("default"))) int pthread_cond_signal(pthread_cond_t* cond) noexcept {
  STREAMRACE_NEXT(pthread_cond_signal, "GLIBC_2.3.2");
  const void* caller = __builtin_return_address(0);
  release(caller, "pthread_cond_signal", address_of(cond));
  return real(cond);
}

__attribute__((visibility("default"))) int pthread_cond_broadcast(pthread_cond_t* cond) noexcept {
  STREAMRACE_NEXT(pthread_cond_broadcast, "GLIBC_2.3.2");
  const void* caller = __builtin_return_address(0);
  release(caller, "pthread_cond_broadcast", address_of(cond));
  return real(cond);
}

// Waiting unlocks the mutex inside the C library and locks it again before returning: the
// tracer sees a release of the mutex before the wait and acquires of both after it.
__attribute__((visibility("default"))) int pthread_cond_wait(pthread_cond_t* cond,
                                                             pthread_mutex_t* mutex) {
  STREAMRACE_NEXT(pthread_cond_wait, "GLIBC_2.3.2");
  const void* caller = __builtin_return_address(0);
  release(caller, "pthread_cond_wait", address_of(mutex));
  const int result = real(cond, mutex);
  acquire(caller, "pthread_cond_wait", address_of(mutex));
  acquire(caller, "pthread_cond_wait", address_of(cond));
  return result;
}

__attribute__((visibility("default"))) int pthread_cond_timedwait(pthread_cond_t* cond,
                                                                  pthread_mutex_t* mutex,
                                                                  const struct timespec* abstime) {
  STREAMRACE_NEXT(pthread_cond_timedwait, "GLIBC_2.3.2");
  const void* caller = __builtin_return_address(0);
  release(caller, "pthread_cond_timedwait", address_of(mutex));
  const int result = real(cond, mutex, abstime);
  acquire(caller, "pthread_cond_timedwait", address_of(mutex));
  if (result == 0) acquire(caller, "pthread_cond_timedwait", address_of(cond));
  return result;
}

__attribute__((visibility("default"))) int pthread_cond_clockwait(pthread_cond_t* cond,
                                                                  pthread_mutex_t* mutex,
                                                                  clockid_t clock,
                                                                  const struct timespec* abstime) {
  STREAMRACE_NEXT(pthread_cond_clockwait);
  const void* caller = __builtin_return_address(0);
  release(caller, "pthread_cond_clockwait", address_of(mutex));
  const int result = real(cond, mutex, clock, abstime);
  acquire(caller, "pthread_cond_clockwait", address_of(mutex));
  if (result == 0) acquire(caller, "pthread_cond_clockwait", address_of(cond));
  return result;
}

__attribute__((visibility("default"))) int sem_post(sem_t* semaphore) noexcept {
  STREAMRACE_NEXT(sem_post);
  const void* caller = __builtin_return_address(0);
  release(caller, "sem_post", address_of(semaphore));
  return real(semaphore);
}

__attribute__((visibility("default"))) int sem_wait(sem_t* semaphore) {
  STREAMRACE_NEXT(sem_wait);
  const void* caller = __builtin_return_address(0);
  const int result = real(semaphore);
  if (result == 0) acquire(caller, "sem_wait", address_of(semaphore));
  return result;
}

__attribute__((visibility("default"))) int sem_trywait(sem_t* semaphore) noexcept {
  STREAMRACE_NEXT(sem_trywait);
  const void* caller = __builtin_return_address(0);
  const int result = real(semaphore);
  if (result == 0) acquire(caller, "sem_trywait", address_of(semaphore));
  return result;
}

__attribute__((visibility("default"))) int sem_timedwait(sem_t* semaphore,
                                                         const struct timespec* abstime) {
  STREAMRACE_NEXT(sem_timedwait);
  const void* caller = __builtin_return_address(0);
  const int result = real(semaphore, abstime);
  if (result == 0) acquire(caller, "sem_timedwait", address_of(semaphore));
  return result;
}

__attribute__((visibility("default"))) int pthread_create(pthread_t* thread,
                                                          const pthread_attr_t* attributes,
                                                          void* (*routine)(void*),
                                                          void* argument) noexcept {
  STREAMRACE_NEXT(pthread_create);
  const void* caller = __builtin_return_address(0);
  using namespace streamrace::tracer;
  const std::uint64_t hand_off = kThreadStartBase | next_thread_start.fetch_add(1);
  release(caller, "pthread_create", hand_off);
  // Owned by the new thread once it exists; allocation failing leaves the program's call alone.
  std::unique_ptr<StartRoutine> start(
      new (std::nothrow) StartRoutine{routine, argument, hand_off, InsideLibraryCall::active()});
  if (!start) return real(thread, attributes, routine, argument);
  const int result = real(thread, attributes, start_thread, start.get());
  if (result == 0) static_cast<void>(start.release());
  return result;
}

__attribute__((visibility("default"))) int pthread_join(pthread_t thread, void** value) {
  STREAMRACE_NEXT(pthread_join);
  const void* caller = __builtin_return_address(0);
  const int result = real(thread, value);
  if (result == 0) acquire(caller, "pthread_join", streamrace::tracer::end_of(thread));
  return result;
}

} // extern "C"
