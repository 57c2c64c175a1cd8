// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "hpz_events.h"

#include <stdexcept>
#include <string>

namespace streamrace::examples {

namespace {

constexpr StreamHandle kCompute = kNullStream; // torch's default stream: the legacy stream
constexpr StreamHandle kGather = 0xA000;       // side streams come from a non-blocking pool
constexpr StreamHandle kReduce = 0xB000;
constexpr std::uint32_t kFloat = 4;
constexpr std::uint8_t kNcclFloat32 = 7;

// Layer sizes not divisible by the world size, so padding paths run.
constexpr std::uint64_t kLayerElements[] = {1001, 2003, 3007, 4001};

Address region(int kind, int layer) {
  return 0x10000000ull * static_cast<Address>(kind + 1) + 0x100000ull * static_cast<Address>(layer);
}
enum Region { Primary, FullForward, FullBackward, Secondary, Gradient, GradientShard, Activation };

class Builder {
public:
  Builder(HpzMode mode, SymbolTable& symbols, const HpzShape& shape, const EventSink& sink)
      : mode_(mode), symbols_(symbols), shape_(shape), world_(shape.nodes * shape.gpus_per_node),
        sink_(sink) {
    auto site = [&](const char* api, const char* function, std::uint32_t line) {
      return symbols_.add_call_site(CallSite{api, {StackFrame{function, "hpz_step.cpp", line}}});
    };
    forward_gather_ = site("ncclAllGather", "fetch_forward", 40);
    forward_kernel_ = site("cudaLaunchKernel", "forward_layer", 52);
    release_copy_ = site("cudaMemcpyAsync", "release_to_secondary", 64);
    release_sync_ = site("cudaStreamSynchronize", "release_to_secondary", 66);
    release_record_ = site("cudaEventRecord", "release_to_secondary", 67);
    backward_wait_ = site("cudaStreamWaitEvent", "fetch_backward", 79);
    backward_gather_ = site("ncclAllGather", "fetch_backward", 81);
    backward_kernel_ = site("cudaLaunchKernel", "backward_layer", 93);
    reduce_scatter_ = site("ncclReduceScatter", "reduce_gradients", 105);
    optimizer_kernel_ = site("cudaLaunchKernel", "adam_step", 117);
    loss_copy_ = site("cudaMemcpy", "train_step", 130);
    init_copy_ = site("cudaMemcpyAsync", "init_secondary", 20);
    allocate_ = site("cudaMalloc", "allocate_partitions", 12);
  }

  void build() {
    for (int r = 0; r < world_; ++r)
      setup(r);
    for (int step = 1; step <= shape_.steps; ++step) {
      range_push("forward");
      for (int layer = 0; layer < shape_.layers; ++layer)
        forward(layer, step);
      range_pop();
      range_push("backward");
      for (int layer = shape_.layers - 1; layer >= 0; --layer)
        backward(layer);
      range_pop();
      optimizer();
    }
  }

private:
  bool hpz() const { return mode_ != HpzMode::Zero3; }
  std::uint64_t aligned(int layer) const {
    const std::uint64_t n = kLayerElements[layer % 4];
    return n + (world_ - n % world_) % world_;
  }
  std::uint64_t primary_shard(int layer) const { return aligned(layer) / world_; }
  std::uint64_t secondary_shard(int layer) const { return aligned(layer) / shape_.gpus_per_node; }

  void range_push(const char* name) {
    for (int r = 0; r < world_; ++r)
      emit(r, NvtxRangePush{symbols_.intern(name)});
  }
  void range_pop() {
    for (int r = 0; r < world_; ++r)
      emit(r, NvtxRangePop{});
  }

  void emit(int rank, Payload payload, CallSiteId site = 0) {
    sink_(Event{EventHeader{static_cast<RankId>(rank), 100u + rank, site,
                            static_cast<std::uint32_t>(rank), 0},
                std::move(payload)});
  }
  Access access(Address base, std::uint64_t elements, AccessMode mode) {
    return Access{base, elements * kFloat, mode, Extent::Exact};
  }

  void setup(int r) {
    const int node = r / shape_.gpus_per_node;
    const int local = r % shape_.gpus_per_node;
    emit(r, SetDevice{local});
    emit(r, StreamCreate{kGather, kCurrentDevice, StreamKind::NonBlocking, 0});
    emit(r, StreamCreate{kReduce, kCurrentDevice, StreamKind::NonBlocking, 0});
    emit(r, NameStream{kCompute, symbols_.intern("C")});
    emit(r, NameStream{kGather, symbols_.intern("A")});
    emit(r, NameStream{kReduce, symbols_.intern("R")});
    emit(r, CommInit{kWorld, 0x57041d, world_, r, kCurrentDevice});
    emit(r, CommInit{kIntra, 0x1A7A0 + static_cast<CommKey>(node), shape_.gpus_per_node, local,
                     kCurrentDevice});
    for (int layer = 0; layer < shape_.layers; ++layer) {
      const std::uint64_t full = aligned(layer) * kFloat;
      emit(r, Alloc{region(Primary, layer), primary_shard(layer) * kFloat, MemoryKind::Device},
           allocate_);
      emit(r, Alloc{region(FullForward, layer), full, MemoryKind::Device}, allocate_);
      emit(r, Alloc{region(FullBackward, layer), full, MemoryKind::Device}, allocate_);
      emit(r, Alloc{region(Gradient, layer), full, MemoryKind::Device}, allocate_);
      emit(r,
           Alloc{region(GradientShard, layer), primary_shard(layer) * kFloat, MemoryKind::Device},
           allocate_);
      emit(r, Alloc{region(Activation, layer), 4096, MemoryKind::Device}, allocate_);
      if (hpz()) {
        emit(r,
             Alloc{region(Secondary, layer), secondary_shard(layer) * kFloat, MemoryKind::Device},
             allocate_);
        emit(r, NameMemory{region(Secondary, layer), secondary_shard(layer) * kFloat,
                           symbols_.intern("secondary shard of layer " + std::to_string(layer))});
      }
    }
    // Initialisation gathers every weight once and makes step 1's secondary shards, then
    // synchronizes: step 1 is safe.
    if (hpz()) {
      for (int layer = 0; layer < shape_.layers; ++layer)
        release(r, layer, init_copy_);
    }
    emit(r, DeviceSynchronize{kCurrentDevice});
  }

  void release(int r, int layer, CallSiteId site) {
    const int local = r % shape_.gpus_per_node;
    const std::uint64_t ss = secondary_shard(layer);
    emit(r,
         Copy{kCompute, region(Secondary, layer), region(FullForward, layer) + local * ss * kFloat,
              ss * kFloat, 1, 0, 0, CopyKind::DeviceToDevice, false},
         site);
  }

  void forward(int layer, int step) {
    for (int r = 0; r < world_; ++r) {
      emit(r,
           Collective{kGather, kWorld, CollectiveKind::AllGather, region(Primary, layer),
                      region(FullForward, layer), primary_shard(layer), kFloat, 0, kNcclFloat32, 0},
           forward_gather_);
      const EventHandle ready = 0xE0000 + static_cast<EventHandle>(layer);
      emit(r, EventRecord{ready, kGather});
      emit(r, StreamWaitEvent{kCompute, ready});
      emit(r,
           KernelLaunch{kCompute,
                        0,
                        {access(region(FullForward, layer), aligned(layer), AccessMode::Read),
                         access(region(Activation, layer), 1024, AccessMode::Write)}},
           forward_kernel_);
      // Release: step 1 uses the shards made at initialisation; later steps remake them.
      if (hpz() && step > 1) {
        release(r, layer, release_copy_);
        if (mode_ == HpzMode::FixHostSync)
          emit(r, StreamSynchronize{kCompute, true}, release_sync_);
        if (mode_ == HpzMode::FixEvent)
          emit(r, EventRecord{secondary_ready(layer), kCompute}, release_record_);
      }
    }
  }

  EventHandle secondary_ready(int layer) const { return 0xE5000 + static_cast<EventHandle>(layer); }

  void backward(int layer) {
    for (int r = 0; r < world_; ++r) {
      if (hpz()) {
        if (mode_ == HpzMode::FixEvent)
          emit(r, StreamWaitEvent{kGather, secondary_ready(layer)}, backward_wait_);
        emit(r,
             Collective{kGather, kIntra, CollectiveKind::AllGather, region(Secondary, layer),
                        region(FullBackward, layer), secondary_shard(layer), kFloat, 0,
                        kNcclFloat32, 0},
             backward_gather_);
      } else {
        emit(r,
             Collective{kGather, kWorld, CollectiveKind::AllGather, region(Primary, layer),
                        region(FullBackward, layer), primary_shard(layer), kFloat, 0, kNcclFloat32,
                        0},
             backward_gather_);
      }
      const EventHandle gathered = 0xE1000 + static_cast<EventHandle>(layer);
      emit(r, EventRecord{gathered, kGather});
      emit(r, StreamWaitEvent{kCompute, gathered});
      emit(r,
           KernelLaunch{kCompute,
                        0,
                        {access(region(FullBackward, layer), aligned(layer), AccessMode::Read),
                         access(region(Activation, layer), 1024, AccessMode::Read),
                         access(region(Gradient, layer), aligned(layer), AccessMode::Write)}},
           backward_kernel_);
      const EventHandle computed = 0xE2000 + static_cast<EventHandle>(layer);
      emit(r, EventRecord{computed, kCompute});
      emit(r, StreamWaitEvent{kReduce, computed});
      emit(r,
           Collective{kReduce, kWorld, CollectiveKind::ReduceScatter, region(Gradient, layer),
                      region(GradientShard, layer), primary_shard(layer), kFloat, 0, kNcclFloat32,
                      0},
           reduce_scatter_);
    }
  }

  void optimizer() {
    for (int r = 0; r < world_; ++r) {
      emit(r, EventRecord{0xE3000, kReduce});
      emit(r, StreamWaitEvent{kCompute, 0xE3000});
      for (int layer = 0; layer < shape_.layers; ++layer)
        emit(r,
             KernelLaunch{
                 kCompute,
                 0,
                 {access(region(GradientShard, layer), primary_shard(layer), AccessMode::Read),
                  access(region(Primary, layer), primary_shard(layer), AccessMode::ReadWrite)}},
             optimizer_kernel_);
      // loss.item(): a synchronous copy to pageable memory makes the host wait for C.
      emit(r,
           Copy{kCompute, 0x7fff0000, region(Activation, 0), 4, 1, 0, 0, CopyKind::DeviceToHost,
                true},
           loss_copy_);
    }
  }

  static constexpr CommHandle kWorld = 0xC0;
  static constexpr CommHandle kIntra = 0xC1;

  HpzMode mode_;
  SymbolTable& symbols_;
  HpzShape shape_;
  int world_;
  const EventSink& sink_;
  CallSiteId forward_gather_, forward_kernel_, release_copy_, release_sync_, release_record_,
      backward_wait_, backward_gather_, backward_kernel_, reduce_scatter_, optimizer_kernel_,
      loss_copy_, init_copy_, allocate_;
};

} // namespace

HpzMode parse_hpz_mode(std::string_view text) {
  if (text == "zero3") return HpzMode::Zero3;
  if (text == "hpz-buggy") return HpzMode::Buggy;
  if (text == "hpz-fix-hostsync") return HpzMode::FixHostSync;
  if (text == "hpz-fix-event") return HpzMode::FixEvent;
  throw std::invalid_argument("unknown mode '" + std::string(text) +
                              "' (expected zero3, hpz-buggy, hpz-fix-hostsync or hpz-fix-event)");
}

std::string_view hpz_mode_name(HpzMode mode) {
  switch (mode) {
  case HpzMode::Zero3:
    return "zero3";
  case HpzMode::Buggy:
    return "hpz-buggy";
  case HpzMode::FixHostSync:
    return "hpz-fix-hostsync";
  case HpzMode::FixEvent:
    return "hpz-fix-event";
  }
  return "";
}

void hpz_events(HpzMode mode, SymbolTable& symbols, const HpzShape& shape, const EventSink& sink) {
  if (shape.nodes < 1 || shape.gpus_per_node < 1 || shape.layers < 1 || shape.steps < 1)
    throw std::invalid_argument("an hpZ job needs at least one node, GPU, layer and step");
  Builder(mode, symbols, shape, sink).build();
}

std::vector<Event> hpz_events(HpzMode mode, SymbolTable& symbols, const HpzShape& shape) {
  std::vector<Event> events;
  hpz_events(mode, symbols, shape, [&](Event event) { events.push_back(std::move(event)); });
  return events;
}

} // namespace streamrace::examples
