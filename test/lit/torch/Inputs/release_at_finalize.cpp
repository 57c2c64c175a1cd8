// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What PyTorch's autograd threads do when a job exits right after backward(): a thread that never
// ran Python drops the last reference to a CUDA tensor just as the interpreter exits. The
// caching allocator tells the GPU trace hooks, which wait for the GIL; if the interpreter has
// begun finalizing when the thread gets it, CPython ends the thread by unwinding it through
// PyTorch's noexcept frames, and the process aborts.
//
// hold_tensor_on_a_thread() starts the thread, which makes the tensor and waits.
// release_it_holding_the_gil(), called from Python's last exit handler through ctypes.PyDLL (which
// keeps the GIL), lets the thread drop the tensor and keeps the GIL a while, so the thread is
// still in the hooks when the interpreter finalizes, the widest form of that window. The
// interpreter's last exit function (Py_AtExit) joins the thread.
#include <ATen/ops/empty.h>

#include <dlfcn.h>

#include <chrono>
#include <future>
#include <thread>

namespace {

std::promise<void> release;
std::thread holder;

void join_holder() {
  if (holder.joinable()) holder.join();
}

} // namespace

// 0 when started; -1 when started already or Python lacks Py_AtExit.
extern "C" int hold_tensor_on_a_thread() {
  auto at_exit = reinterpret_cast<int (*)(void (*)())>(dlsym(RTLD_DEFAULT, "Py_AtExit"));
  if (at_exit == nullptr || holder.joinable() || at_exit(join_holder) != 0) return -1;
  holder = std::thread([released = release.get_future()]() noexcept {
    at::Tensor tensor = at::empty({1024}, at::TensorOptions().device(at::kCUDA));
    released.wait();
  });
  return 0;
}

extern "C" void release_it_holding_the_gil(int hold_ms) {
  release.set_value();
  std::this_thread::sleep_for(std::chrono::milliseconds(hold_ms));
}
