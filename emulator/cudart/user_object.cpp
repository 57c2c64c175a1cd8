// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "user_object.h"

#include <memory>
#include <thread>

namespace streamrace::emu {

void UserObject::release(unsigned count) {
  if (references_.fetch_sub(count) != count) {
    return;
  }
  std::unique_ptr<UserObject> last(this);
  std::thread([destroy = destroy_, pointer = pointer_] { destroy(pointer); }).detach();
}

} // namespace streamrace::emu
