// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "ops/op_scopes.h"

#include "recorder.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace streamrace::tracer {

namespace {

struct OpenOp {
  std::string_view name;
  std::vector<Access> accesses;
  std::uint32_t python_stack = 0;
  std::vector<CapturedCall> held;
  // Which of the held calls are this op's own kernel launches (the others came from ops nested
  // in it, with their own ranges).
  std::vector<std::size_t> launches;
  // False for a scope that only lends its Python lines.
  bool states_extents = true;
};

thread_local std::vector<OpenOp> open_ops;

} // namespace

std::string_view OpScopes::intern_name(std::string_view name) {
  static std::mutex mutex;
  // Never destroyed: held calls name their op until the tracer thread is done with them.
  static auto* const names = std::make_unique<std::unordered_set<std::string>>().release();
  std::lock_guard lock(mutex);
  return *names->emplace(name).first;
}

void OpScopes::begin(std::string_view name, std::span<const Access> accesses,
                     std::uint32_t python_stack) {
  // An op nested in another one (a composite operator calling others) was issued from the
  // same Python lines.
  if (python_stack == 0 && !open_ops.empty()) python_stack = open_ops.back().python_stack;
  open_ops.push_back(OpenOp{name, {accesses.begin(), accesses.end()}, python_stack, {}, {}});
}

void OpScopes::begin_python_lines(std::uint32_t python_stack) {
  open_ops.push_back(OpenOp{{}, {}, python_stack, {}, {}, false});
}

bool OpScopes::end(std::span<const Access> accesses,
                   std::span<const std::pair<Address, std::uint64_t>> blocks) {
  if (open_ops.empty()) return false;
  OpenOp op = std::move(open_ops.back());
  open_ops.pop_back();
  op.accesses.insert(op.accesses.end(), accesses.begin(), accesses.end());
  if (op.states_extents)
    for (std::size_t launch : op.launches)
      op.held[launch].stated_accesses = op.accesses;
  std::erase_if(op.held, [&](CapturedCall& call) {
    auto* block = std::get_if<BlockAlloc>(&call.payload);
    if (block == nullptr || block->size != 0) return false;
    auto sized = std::find_if(blocks.begin(), blocks.end(),
                              [&](const auto& entry) { return entry.first == block->base; });
    if (sized == blocks.end()) return true;
    block->size = sized->second;
    return false;
  });
  if (!open_ops.empty()) {
    std::vector<CapturedCall>& outer = open_ops.back().held;
    outer.insert(outer.end(), std::make_move_iterator(op.held.begin()),
                 std::make_move_iterator(op.held.end()));
    return true;
  }
  if (Recorder* tracer = Recorder::get())
    for (CapturedCall& call : op.held)
      tracer->push(std::move(call));
  return true;
}

bool OpScopes::inside_op() {
  return !open_ops.empty();
}

bool OpScopes::hold(CapturedCall& call) {
  if (open_ops.empty()) return false;
  OpenOp& op = open_ops.back();
  if (!op.name.empty()) call.api = op.name;
  call.python_stack = op.python_stack;
  // Its accesses are filled in when the op ends: the op's ranges may still grow.
  if (std::holds_alternative<KernelLaunch>(call.payload)) op.launches.push_back(op.held.size());
  op.held.push_back(std::move(call));
  return true;
}

} // namespace streamrace::tracer
