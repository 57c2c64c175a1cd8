// The trainer's shape against the mock headers (layers in a vector, RAII handles, CUDA_CHECK),
// in the trainer's order: the forward gather of layer i + 1 is issued while layer i is released
// (`i` and `i + 1` name different elements, see analyzer/README.md), the backward gather of
// layer i - 1 while layer i is used. One variant per build: hpz-buggy is flagged at the first
// backward gather with an event fix-it; zero3 and both fixes (event, host sync) are clean.
// reference_hpz_trainer.test checks the real trainer the same way.
// RUN: %check_streamrace --messages-prefix=BUGGY --fixes-prefix=BUGGY-FIX %s %t.buggy -- %mock_cuda -DVARIANT_HPZ_BUGGY
// RUN: %check_streamrace --messages-prefix=CLEAN %s %t.event -- %mock_cuda -DVARIANT_HPZ_FIX_EVENT
// RUN: %check_streamrace --messages-prefix=CLEAN %s %t.sync -- %mock_cuda -DVARIANT_HPZ_FIX_HOST_SYNC
// RUN: %check_streamrace --messages-prefix=CLEAN %s %t.zero3 -- %mock_cuda -DVARIANT_ZERO3
#include "nccl.h"

#define CUDA_CHECK(call) (void)(call)
#define NCCL_CHECK(call) (void)(call)

template <class T> struct Vector {
  T* items;
  T& operator[](unsigned long i) { return items[i]; }
};

struct DeviceFloats {
  float* pointer;
  float* get() const { return pointer; }
};
struct Event {
  cudaEvent_t event;
  cudaEvent_t get() const { return event; }
};
struct Stream {
  cudaStream_t stream;
  cudaStream_t get() const { return stream; }
};

struct Layer {
  DeviceFloats forwardWeights, backwardWeights, secondary, primary, output;
  Event forwardGathered, backwardGathered, released;
  unsigned long shard;
};

class Trainer {
public:
  void step(unsigned long layerCount) {
    issueForwardGather(layers_[0]);
    for (unsigned long index = 0; index < layerCount; ++index) {
      Layer& layer = layers_[index];
      if (index + 1 < layerCount) {
        issueForwardGather(layers_[index + 1]);
      }
      CUDA_CHECK(cudaStreamWaitEvent(computeStream_, layer.forwardGathered.get(), 0));
      CUDA_CHECK(cudaMemcpyAsync(layer.output.get(), layer.forwardWeights.get(), layer.shard * 4,
                                 cudaMemcpyDeviceToDevice, computeStream_));
#if !defined(VARIANT_ZERO3)
      release(layer);
#endif
    }
    issueBackwardGather(layers_[layerCount - 1]);
    // BUGGY: :95:16: warning: 'this->layers_[layerCount-1].secondary.get()' is read by ncclAllGather on stream 'this->allGatherStream_.get()' while cudaMemcpyAsync on stream 'this->computeStream_' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    // BUGGY-FIX: release(layer);
    // BUGGY-FIX: }
    // BUGGY-FIX-NEXT: cudaEvent_t streamrace_ready_[[LOOP:[0-9]+]];
    // BUGGY-FIX-NEXT: cudaEventCreateWithFlags(&streamrace_ready_[[LOOP]], cudaEventDisableTiming);
    // BUGGY-FIX-NEXT: cudaEventRecord(streamrace_ready_[[LOOP]], this->computeStream_);
    // BUGGY-FIX-NEXT: cudaStreamWaitEvent(this->allGatherStream_.get(), streamrace_ready_[[LOOP]], 0);
    // BUGGY-FIX-NEXT: cudaEventDestroy(streamrace_ready_[[LOOP]]);
    // BUGGY-FIX-NEXT: issueBackwardGather(layers_[layerCount - 1]);
    for (unsigned long index = layerCount; index-- > 0;) {
      Layer& layer = layers_[index];
      if (index > 0) {
        issueBackwardGather(layers_[index - 1]);
      }
      CUDA_CHECK(cudaStreamWaitEvent(computeStream_, layer.backwardGathered.get(), 0));
      CUDA_CHECK(cudaMemcpyAsync(layer.output.get(), layer.backwardWeights.get(), layer.shard * 4,
                                 cudaMemcpyDeviceToDevice, computeStream_));
    }
  }

private:
  void gatherOverWorld(Layer& layer, float* full) {
    NCCL_CHECK(ncclAllGather(layer.primary.get(), full, layer.shard, ncclFloat, world_,
                             allGatherStream_.get()));
  }

  void issueForwardGather(Layer& layer) {
    gatherOverWorld(layer, layer.forwardWeights.get());
    CUDA_CHECK(cudaEventRecord(layer.forwardGathered.get(), allGatherStream_.get()));
  }

  void issueBackwardGather(Layer& layer) {
#if defined(VARIANT_ZERO3)
    gatherOverWorld(layer, layer.backwardWeights.get());
#else
#if defined(VARIANT_HPZ_FIX_EVENT)
    CUDA_CHECK(cudaStreamWaitEvent(allGatherStream_.get(), layer.released.get(), 0));
#endif
    NCCL_CHECK(ncclAllGather(layer.secondary.get(), layer.backwardWeights.get(), layer.shard,
                             ncclFloat, intraNode_, allGatherStream_.get()));
#endif
    CUDA_CHECK(cudaEventRecord(layer.backwardGathered.get(), allGatherStream_.get()));
  }

  void release(Layer& layer) {
    CUDA_CHECK(cudaMemcpyAsync(layer.secondary.get(), layer.forwardWeights.get() + layer.shard,
                               layer.shard * 4, cudaMemcpyDeviceToDevice, computeStream_));
#if defined(VARIANT_HPZ_FIX_HOST_SYNC)
    CUDA_CHECK(cudaStreamSynchronize(computeStream_));
#elif defined(VARIANT_HPZ_FIX_EVENT)
    CUDA_CHECK(cudaEventRecord(layer.released.get(), computeStream_));
#endif
  }

  Vector<Layer> layers_;
  cudaStream_t computeStream_;
  Stream allGatherStream_;
  ncclComm_t world_, intraNode_;
};
