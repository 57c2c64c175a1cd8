// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What a host function (cudaLaunchHostFunc, cudaStreamAddCallback) does to memory through its
// user data: it runs in its stream's order, so a callback that reads a pinned buffer another
// stream is still copying into races with that copy, as a kernel would. Found in the callback's
// body: elements read or written through the user-data pointer itself (`float* p =
// static_cast<float*>(data); p[0]`) or through a pointer field of the struct it points to
// (`log->pinned_metrics[0]`).
#pragma once

#include <string>
#include <vector>

namespace clang {
class FunctionDecl;
} // namespace clang

namespace streamrace::analyzer {

struct CallbackAccess {
  std::string field; // empty: the user-data pointer's own memory; else ".name" of the field
  bool read = false;
  bool write = false;
};

// The accesses `callback` makes through its first pointer parameter, one per field.
std::vector<CallbackAccess> callbackAccesses(const clang::FunctionDecl& callback);

} // namespace streamrace::analyzer
