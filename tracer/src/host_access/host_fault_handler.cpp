// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the handler may do. The faults it keeps are synchronous: the handler runs exactly where
// the program's load or store of a watched byte was, like a call made from that instruction, and
// the code it interrupts is code touching pinned or managed memory the program owns — never the
// allocator's or the C library's bookkeeping (their data does not live in those allocations; the
// bytes a registered range shares a page with are given back without anything recorded). So it
// takes no lock the interrupted code can hold, and the queueing it shares with every traced call
// (tracer.h) is lock-free and allocates nothing for a fault: the access travels outside the
// event's vector (CapturedCall::host_access). What it calls beyond that: mprotect, the unwinder
// (libunwind, made for signal context; loaded at the tracer's start) and, for an address in a
// library not yet seen, dl_iterate_phdr. A fault inside an op a framework stated (op_scopes.h)
// is held with the op, in a vector: the one allocation left on this path.
#include "host_access/host_fault_handler.h"

#include "host_access/host_access_record.h"
#include "host_access/watched_memory.h"
#include "tracer.h"

#include <atomic>
#include <csignal>
#include <dlfcn.h>
#include <pthread.h>
#include <ucontext.h>
#include <unistd.h>

namespace streamrace::tracer {

namespace {

using SigactionFunction = int (*)(int, const struct sigaction*, struct sigaction*);

SigactionFunction libc_sigaction() {
  static constinit std::atomic<void*> found{nullptr};
  void* function = found.load(std::memory_order_relaxed);
  if (function == nullptr) {
    function = dlsym(RTLD_NEXT, "sigaction");
    found.store(function, std::memory_order_relaxed);
  }
  return reinterpret_cast<SigactionFunction>(function);
}

std::atomic<bool> installed{false};
Tracer* watching_tracer = nullptr;
// What SIGSEGV would do without the tracer: the action the process had when the handler went in,
// replaced by every action the program installs since.
struct sigaction program_action{};

#if defined(__x86_64__)
// The page-fault error code's bit 1: the access was a write.
bool faulted_on_write(const ucontext_t& context) {
  return (context.uc_mcontext.gregs[REG_ERR] & 2) != 0;
}
void* faulting_instruction(const ucontext_t& context) {
  return reinterpret_cast<void*>(context.uc_mcontext.gregs[REG_RIP]);
}
#else
bool faulted_on_write(const ucontext_t&) {
  return true;
}
void* faulting_instruction(const ucontext_t&) {
  return nullptr;
}
#endif

constexpr char kRefusedPage[] =
    "streamrace: the kernel refused to give back a watched page the program touched; the "
    "program meets the fault as on any page it cannot access\n";

bool is_default(const struct sigaction& action) {
  return (action.sa_flags & SA_SIGINFO) == 0 &&
         (action.sa_handler == SIG_DFL || action.sa_handler == SIG_IGN);
}

// A fault that is not the tracer's, given to the program's action as the kernel would have.
void hand_to_program(int signal, siginfo_t* info, void* context) {
  if (watching_tracer != nullptr && Tracer::running() != nullptr)
    watching_tracer->flush_for_crash();
  const struct sigaction action = program_action;
  if (is_default(action)) {
    // The default action, from the instruction itself: it faults again with the handler gone,
    // and the process dies with the status and core dump an untraced run gets (an ignored
    // SIGSEGV from a fault kills too). A signal someone sent is sent again.
    struct sigaction fallback{};
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    libc_sigaction()(signal, &fallback, nullptr);
    if (info->si_code <= 0) raise(signal);
    return;
  }
  if ((action.sa_flags & SA_RESETHAND) != 0) {
    program_action = {};
    program_action.sa_handler = SIG_DFL;
  }
  sigset_t mask = action.sa_mask;
  if ((action.sa_flags & SA_NODEFER) == 0) sigaddset(&mask, signal);
  sigset_t previous;
  pthread_sigmask(SIG_BLOCK, &mask, &previous);
  if ((action.sa_flags & SA_SIGINFO) != 0)
    action.sa_sigaction(signal, info, context);
  else
    action.sa_handler(signal);
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

void on_fault(int signal, siginfo_t* info, void* context) {
  const auto& machine = *static_cast<const ucontext_t*>(context);
  if (info->si_code == SEGV_ACCERR) {
    const bool write = faulted_on_write(machine);
    const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
    switch (WatchedMemory::instance().on_fault(address, write)) {
    case FaultVerdict::NotOurs:
      break;
    case FaultVerdict::Restored:
      return;
    case FaultVerdict::Refused: {
      [[maybe_unused]] const ssize_t written =
          ::write(STDERR_FILENO, kRefusedPage, sizeof kRefusedPage - 1);
      break;
    }
    case FaultVerdict::HostAccess: {
      // The handler's frames and the signal trampoline are not the program's.
      RawStack stack;
      capture_stack_from(faulting_instruction(machine), stack);
      record_watched_access(address, 1, write, stack);
      return;
    }
    }
  }
  hand_to_program(signal, info, context);
}

} // namespace

void install_host_fault_handler(Tracer& tracer) {
  if (installed.load()) return;
  watching_tracer = &tracer;
  struct sigaction action{};
  action.sa_sigaction = on_fault;
  sigemptyset(&action.sa_mask);
  // On the program's alternate stack when it has one: a stack overflow is its fault to handle.
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  if (libc_sigaction()(SIGSEGV, &action, &program_action) == 0) installed.store(true);
}

bool host_fault_handler_installed() {
  return installed.load(std::memory_order_relaxed);
}

} // namespace streamrace::tracer

// With the handler in, the program's SIGSEGV actions are kept aside for the faults that are its
// own, and what it asks about is what it set; every other signal goes to the C library.
extern "C" __attribute__((visibility("default"))) int
sigaction(int signal, const struct sigaction* action, struct sigaction* previous) noexcept {
  using namespace streamrace::tracer;
  if (signal != SIGSEGV || !installed.load(std::memory_order_acquire))
    return libc_sigaction()(signal, action, previous);
  if (previous != nullptr) *previous = program_action;
  if (action != nullptr) program_action = *action;
  return 0;
}

extern "C" __attribute__((visibility("default"))) sighandler_t
signal(int number, sighandler_t handler) noexcept {
  using namespace streamrace::tracer;
  if (number != SIGSEGV || !installed.load(std::memory_order_acquire)) {
    // The C library's own, with its flags (siginterrupt's choice included) untouched.
    static const auto libc_signal =
        reinterpret_cast<sighandler_t (*)(int, sighandler_t)>(dlsym(RTLD_NEXT, "signal"));
    return libc_signal(number, handler);
  }
  struct sigaction action{};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART; // signal()'s BSD semantics, as glibc gives them
  struct sigaction previous{};
  if (sigaction(number, &action, &previous) != 0) return SIG_ERR;
  return previous.sa_handler;
}
