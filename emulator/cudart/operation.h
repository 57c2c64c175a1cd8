// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What a stream executes: a body tagged with the kind of work it stands for (the kind selects the
// delay knobs that apply to it).
#pragma once

#include <functional>
#include <string_view>

namespace streamrace::emu {

enum class OperationKind {
  Memcpy,
  Memset,
  Kernel,
  HostFunction,
  EventRecord,
  EventWait,
  Allocation,
  Free,
  Graph,
  Marker
};

std::string_view operationKindName(OperationKind kind);

struct Work {
  OperationKind kind;
  std::function<void()> body;
};

} // namespace streamrace::emu
