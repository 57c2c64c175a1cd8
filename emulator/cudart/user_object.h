// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// CUDA user objects: a program's pointer with a destructor and a reference count, which graphs
// (and the executables instantiated from them) hold so that what their work needs outlives them.
// The destructor runs on a thread of its own once the last reference is gone, as the runtime
// documents (it may not call CUDA).
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>

namespace streamrace::emu {

class UserObject {
public:
  UserObject(void* pointer, cudaHostFn_t destroy, unsigned references)
      : pointer_(pointer), destroy_(destroy), references_(references) {}

  void retain(unsigned count) { references_.fetch_add(count); }
  // Drops `count` references; the last one runs the destructor and deletes the object.
  void release(unsigned count);

private:
  void* pointer_;
  cudaHostFn_t destroy_;
  std::atomic<unsigned> references_;
};

// References a graph or an executable holds; copying one takes as many references again.
class HeldUserObject {
public:
  HeldUserObject(UserObject* object, unsigned count) : object_(object), count_(count) {}
  HeldUserObject(const HeldUserObject& other) : object_(other.object_), count_(other.count_) {
    object_->retain(count_);
  }
  HeldUserObject& operator=(const HeldUserObject&) = delete;
  ~HeldUserObject() { object_->release(count_); }

private:
  UserObject* object_;
  unsigned count_;
};

} // namespace streamrace::emu
