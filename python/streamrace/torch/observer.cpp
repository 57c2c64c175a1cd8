// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// streamrace.torch's operator observer: states every aten operator's byte ranges to the tracer
// from C++, through PyTorch's RecordFunction callbacks, instead of a Python dispatch mode that
// costs tens of microseconds an operator. It is compiled against the process's own PyTorch the
// first time a traced job imports it (observer_build.py), and talks to libstreamrace.so only
// through the entry points it finds in the process (tracer/src/python/torch_entry.cpp).
//
// For each operator with a schema: the ranges of its tensor arguments before it runs (read, or
// written when the schema marks the argument as written: in-place `self` is read and written,
// an `out=` argument only written), and those of its new outputs, with their caching-allocator
// blocks, after it ran. Operators nest (a composite operator calls others): the tracer gives a
// kernel the ranges of the innermost one that launched it. Operators that only return views of
// their arguments launch nothing and are skipped. Work is named after the outermost operator
// (the one the program called); one the autograd engine runs is named after its backward node
// too, "aten::mm (MmBackward0)".
#include <ATen/Context.h>
#include <ATen/core/function_schema.h>
#include <ATen/core/ivalue.h>
#include <ATen/record_function.h>
#include <c10/core/Stream.h>
#include <c10/core/impl/GPUTrace.h>
#include <c10/cuda/CUDACachingAllocator.h>

#include "streamrace/op_extents.h"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {

// A range covering more bytes than the tensor touches: the span of a view with gaps, when it
// has more contiguous runs than this.
constexpr std::size_t kMaxRuns = 64;

struct TracerEntries {
  int (*begin_op)(const char*, const streamrace_extent*, size_t, unsigned) = nullptr;
  int (*end_op)(const streamrace_extent*, size_t, const uint64_t*, size_t) = nullptr;
  int (*host_access)(const streamrace_extent*, size_t) = nullptr;
  int (*block_stream_use)(uint64_t, uint64_t) = nullptr;
  int (*block_alloc)(uint64_t, uint64_t, int) = nullptr;
};

TracerEntries tracer;
at::CallbackHandle callbacks = 0;
std::atomic<bool> failed{false};
// The Python lines of the latest backward() or autograd.grad() call (a stack id of the
// tracer's), for the operators the autograd engine runs for it on its own threads.
std::atomic<unsigned> backward_call{0};

// Operators that read or change metadata only (streamrace/torch_model.py, METADATA_OPERATORS),
// given before the callbacks are installed and read-only after: they touch no tensor's bytes.
std::unordered_set<std::string> metadata_operators;

struct Operator {
  std::string name; // with its overload: "aten::add_.Tensor"
  std::vector<int32_t> argument_modes;
  std::vector<std::size_t> new_returns; // positions of returns that are new tensors
  bool passes_through = false;
  bool record_stream = false;
};

// The operator a RecordFunction runs, worked out once per schema (a schema's name lives as long
// as the operator, so its address is the key); null for a scope with no schema.
const Operator* operator_of(const at::RecordFunction& function) {
  thread_local std::unordered_map<const char*, std::unique_ptr<Operator>> known;
  const char* key = function.name();
  if (auto found = known.find(key); found != known.end()) return found->second.get();
  std::optional<c10::FunctionSchema> schema = function.operator_schema();
  if (!schema) return nullptr;
  auto op = std::make_unique<Operator>();
  op->name = schema->name();
  if (const std::string& overload = schema->overload_name();
      !overload.empty() && overload != "default")
    op->name += "." + overload;
  for (const c10::Argument& argument : schema->arguments()) {
    const c10::AliasInfo* alias = argument.alias_info();
    op->argument_modes.push_back(alias == nullptr || !alias->isWrite() ? STREAMRACE_READ
                                 : argument.is_out()                   ? STREAMRACE_WRITE
                                                                       : STREAMRACE_READ_WRITE);
  }
  const std::vector<c10::Argument>& returns = schema->returns();
  for (std::size_t i = 0; i < returns.size(); ++i)
    if (returns[i].alias_info() == nullptr) op->new_returns.push_back(i);
  op->passes_through =
      metadata_operators.contains(schema->name()) ||
      (!returns.empty() && std::all_of(returns.begin(), returns.end(), [](const c10::Argument& r) {
        return r.alias_info() != nullptr && !r.alias_info()->isWrite();
      }));
  op->record_stream = schema->name() == "aten::record_stream";
  return known.emplace(key, std::move(op)).first->second.get();
}

struct Ranges {
  std::vector<streamrace_extent> device;
  std::vector<streamrace_extent> host;
  std::vector<uint64_t> blocks; // (address, size) pairs
  void clear() {
    device.clear();
    host.clear();
    blocks.clear();
  }
};

// A tensor that is not contiguous: one range when it is dense in its span, else its innermost
// contiguous run at every position of the dimensions outside it. Dimensions of one element or
// of stride 0 (an expanded tensor repeats the same bytes) add no bytes.
void add_strided(const at::Tensor& tensor, uint64_t address, int32_t mode,
                 std::vector<streamrace_extent>& out) {
  std::vector<std::pair<int64_t, int64_t>> dims; // (stride, size)
  for (int64_t d = 0; d < tensor.dim(); ++d)
    if (tensor.size(d) > 1 && tensor.stride(d) > 0)
      dims.emplace_back(tensor.stride(d), tensor.size(d));
  std::sort(dims.begin(), dims.end());
  const auto element = static_cast<uint64_t>(tensor.element_size());
  int64_t elements = 1;
  int64_t span = 1;
  for (const auto& [stride, size] : dims) {
    elements *= size;
    span += (size - 1) * stride;
  }
  if (span == elements) {
    out.push_back({address, static_cast<uint64_t>(span) * element, mode, 1});
    return;
  }
  int64_t run = 1;
  std::size_t inner = 0;
  for (; inner < dims.size() && dims[inner].first == run; ++inner)
    run *= dims[inner].second;
  if (static_cast<std::size_t>(elements / run) > kMaxRuns) {
    out.push_back({address, static_cast<uint64_t>(span) * element, mode, 0});
    return;
  }
  std::vector<int64_t> offsets{0};
  for (std::size_t d = inner; d < dims.size(); ++d) {
    std::vector<int64_t> next;
    for (int64_t offset : offsets)
      for (int64_t step = 0; step < dims[d].second; ++step)
        next.push_back(offset + step * dims[d].first);
    offsets.swap(next);
  }
  std::sort(offsets.begin(), offsets.end());
  for (int64_t offset : offsets)
    out.push_back({address + static_cast<uint64_t>(offset) * element,
                   static_cast<uint64_t>(run) * element, mode, 1});
}

// `with_blocks`: the tensor is a new output, whose caching-allocator block the tracer sizes.
void add_tensor(const at::Tensor& tensor, int32_t mode, Ranges& ranges, bool with_blocks) {
  if (!tensor.defined() || tensor.layout() != c10::kStrided || tensor.is_nested() ||
      !tensor.unsafeGetTensorImpl()->has_storage())
    return;
  const c10::Storage& storage = tensor.storage();
  const auto base = reinterpret_cast<uint64_t>(storage.data());
  std::vector<streamrace_extent>* out = &ranges.device;
  // A CUDA tensor without data (a FakeTensor while torch.compile traces) has no bytes to state.
  if (tensor.is_cuda() && base != 0) {
    if (with_blocks) {
      ranges.blocks.push_back(base);
      ranges.blocks.push_back(storage.nbytes());
    }
  } else if (!with_blocks && tensor.is_cpu() && base != 0 &&
             at::globalContext().isPinnedPtr(storage.data(), c10::DeviceType::CUDA)) {
    out = &ranges.host; // pinned host memory, which device copies read and write
  } else {
    return;
  }
  const int64_t count = tensor.numel();
  if (count == 0) return;
  const uint64_t address =
      base + static_cast<uint64_t>(tensor.storage_offset()) * tensor.element_size();
  if (tensor.is_contiguous())
    out->push_back({address, static_cast<uint64_t>(count) * tensor.element_size(), mode, 1});
  else
    add_strided(tensor, address, mode, *out);
}

void add_value(const c10::IValue& value, int32_t mode, Ranges& ranges, bool with_blocks) {
  if (value.isTensor()) {
    add_tensor(value.toTensor(), mode, ranges, with_blocks);
  } else if (value.isTensorList()) {
    for (const at::Tensor& tensor : value.toTensorList().vec())
      add_tensor(tensor, mode, ranges, with_blocks);
  } else if (value.isList()) {
    for (const c10::IValue& item : value.toListRef())
      if (item.isTensor()) add_tensor(item.toTensor(), mode, ranges, with_blocks);
  }
}

// The backward nodes the autograd engine is running on this thread, innermost last, and how
// many operators are open on it.
thread_local std::vector<std::string> backward_nodes;
thread_local int open_ops = 0;
thread_local std::string outermost_name;

enum class Scope { Node, Op };

struct Opened final : at::ObserverContext {
  explicit Opened(Scope s) : scope(s) {}
  Scope scope;
};

void give_up(const char* what) {
  if (failed.exchange(true)) return;
  std::fprintf(stderr,
               "streamrace: warning: the operator observer stopped (%s); operators from "
               "now on keep the tracer's approximate extents\n",
               what);
}

std::unique_ptr<at::ObserverContext> start(const at::RecordFunction& function) {
  if (failed.load(std::memory_order_relaxed)) return nullptr;
  try {
    if (function.scope() == at::RecordScope::BACKWARD_FUNCTION) {
      std::string_view name = function.name();
      if (auto colon = name.rfind(": "); colon != std::string_view::npos)
        name.remove_prefix(colon + 2);
      backward_nodes.emplace_back(name);
      return std::make_unique<Opened>(Scope::Node);
    }
    const Operator* op = operator_of(function);
    if (op == nullptr || op->passes_through) return nullptr;
    thread_local Ranges ranges;
    ranges.clear();
    c10::ArrayRef<const c10::IValue> inputs = function.inputs();
    for (std::size_t i = 0; i < inputs.size() && i < op->argument_modes.size(); ++i)
      add_value(inputs[i], op->argument_modes[i], ranges, false);
    if (op->record_stream && inputs.size() == 2 && inputs[0].isTensor() && inputs[1].isStream() &&
        inputs[0].toTensor().is_cuda())
      tracer.block_stream_use(reinterpret_cast<uint64_t>(inputs[0].toTensor().storage().data()),
                              reinterpret_cast<uint64_t>(inputs[1].toStream().native_handle()));
    // Work is reported under the operator the program called (aten::relu), with the ranges
    // of the innermost one that launched it (aten::clamp_min).
    unsigned caller = 0;
    if (open_ops == 0) outermost_name = op->name;
    if (!backward_nodes.empty()) {
      caller = backward_call.load(std::memory_order_relaxed);
      if (open_ops == 0) outermost_name += " (" + backward_nodes.back() + ")";
    }
    tracer.begin_op(outermost_name.c_str(), ranges.device.data(), ranges.device.size(), caller);
    // An operator with no device tensor runs on the host, here on pinned memory that copies also
    // use (one with a device tensor, copy_, moves it by a copy instead). The outermost one
    // states it: the operators it calls touch the same bytes.
    if (open_ops++ == 0 && !ranges.host.empty() && ranges.device.empty())
      tracer.host_access(ranges.host.data(), ranges.host.size());
    return std::make_unique<Opened>(Scope::Op);
  } catch (const std::exception& error) {
    give_up(error.what());
    return nullptr;
  }
}

void end(const at::RecordFunction& function, at::ObserverContext* context) {
  auto* opened = static_cast<Opened*>(context);
  if (opened == nullptr) return;
  if (opened->scope == Scope::Node) {
    if (!backward_nodes.empty()) backward_nodes.pop_back();
    return;
  }
  --open_ops;
  thread_local Ranges ranges;
  ranges.clear();
  try {
    if (const Operator* op = operator_of(function); op != nullptr) {
      const std::vector<c10::IValue>& outputs = function.outputs();
      for (std::size_t position : op->new_returns)
        if (position < outputs.size()) add_value(outputs[position], STREAMRACE_WRITE, ranges, true);
    }
  } catch (const std::exception& error) {
    give_up(error.what());
    ranges.clear();
  }
  // The op is closed whatever happened, so the ones around it stay paired.
  tracer.end_op(ranges.device.data(), ranges.device.size(), ranges.blocks.data(),
                ranges.blocks.size() / 2);
}

template <typename Function> bool find(Function& function, const char* name) {
  function = reinterpret_cast<Function>(dlsym(RTLD_DEFAULT, name));
  return function != nullptr;
}

} // namespace

// 1 when the tracer is in the process and the callbacks are installed, 0 otherwise.
extern "C" __attribute__((visibility("default"))) void
streamraceObserverMetadataOperator(const char* name) {
  metadata_operators.emplace(name);
}

extern "C" __attribute__((visibility("default"))) int streamraceObserverEnable() {
  if (callbacks != 0) return 1;
  if (!find(tracer.begin_op, "streamraceTorchBeginOp") ||
      !find(tracer.end_op, "streamraceTorchEndOp") ||
      !find(tracer.host_access, "streamraceTorchHostAccess") ||
      !find(tracer.block_stream_use, "streamraceTorchBlockStreamUse") ||
      !find(tracer.block_alloc, "streamraceTorchBlockAlloc"))
    return 0;
  callbacks = at::addGlobalCallback(
      at::RecordFunctionCallback(&start, &end)
          .needsInputs(true)
          .needsOutputs(true)
          .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION}));
  return 1;
}

// A backward() or autograd.grad() call starts; `stack` is its Python lines (the tracer's id).
extern "C" __attribute__((visibility("default"))) void
streamraceObserverNoteBackward(unsigned stack) {
  backward_call.store(stack, std::memory_order_relaxed);
}

// Follows the blocks the caching allocator hands out, each tied to its stream (a free is noted
// from Python, where its lines are: PyTorch releases the GIL before it frees a block, and the
// allocator's lock is held here). Called once CUDA is initialized (the allocator has its devices
// then); 0 when this allocator takes no trackers (the cudaMallocAsync backend).
extern "C" __attribute__((visibility("default"))) int streamraceObserverFollowAllocator() {
  try {
    c10::cuda::CUDACachingAllocator::attachAllocatorTraceTracker(
        [](const c10::CachingDeviceAllocator::TraceEntry& entry) {
          if (entry.action_ == c10::CachingDeviceAllocator::TraceEntry::ALLOC)
            tracer.block_alloc(entry.addr_, reinterpret_cast<uint64_t>(entry.stream_),
                               entry.device_);
        });
    return 1;
  } catch (const std::exception&) {
    return 0;
  }
}

// Called when the interpreter exits, before it starts finalizing: PyTorch calls the GPU trace
// hook that notes frees from whichever thread frees a block, and takes the GIL first. Once the
// interpreter finalizes, CPython ends a thread that waits for the GIL by unwinding it, which
// aborts the process inside PyTorch's noexcept frames ("terminate called without an active
// exception"). The autograd engine's threads free the last graph's buffers after backward() has
// returned, so at exit they can. Blocks freed from here on are not followed.
extern "C" __attribute__((visibility("default"))) void streamraceObserverStopFollowingFrees() {
  c10::impl::GPUTrace::gpuTraceState.store(nullptr, std::memory_order_release);
}
