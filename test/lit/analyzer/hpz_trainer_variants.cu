// The trainer's shape (layers in a vector, RAII handles, CUDA_CHECK, release after forward and
// the hpZ all-gather before backward), one variant per build: hpz-buggy is flagged at the
// gather with an event fix-it; zero3 and both fixes (event, host sync) are clean. (The forward
// gathers are all issued before the releases: a variable index names one element, so gathering
// layer i+1 while layer i is released would look like a conflict; see analyzer/README.md.)
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
  DeviceFloats forwardWeights, backwardWeights, secondary, primary;
  Event released;
  unsigned long shard;
};

class Trainer {
public:
  void step(unsigned long layerCount) {
    for (unsigned long index = 0; index < layerCount; ++index)
      gatherOverWorld(layers_[index], layers_[index].forwardWeights.get());
    CUDA_CHECK(cudaEventRecord(forwardGathered_, allGatherStream_.get()));
    CUDA_CHECK(cudaStreamWaitEvent(computeStream_, forwardGathered_, 0));
    for (unsigned long index = 0; index < layerCount; ++index) {
#if !defined(VARIANT_ZERO3)
      release(layers_[index]);
#endif
    }
    for (unsigned long index = layerCount; index-- > 0;) {
      issueBackwardGather(layers_[index]);
      // BUGGY: :[[@LINE-1]]:7: warning: 'this->layers_[*].secondary.get()' is read by ncclAllGather on stream 'this->allGatherStream_.get()' while cudaMemcpyAsync on stream 'this->computeStream_' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
      // BUGGY-FIX: cudaStreamWaitEvent(this->allGatherStream_.get(), streamrace_ready_44, 0);
      // BUGGY-FIX-NEXT: cudaEventDestroy(streamrace_ready_44);
      // BUGGY-FIX-NEXT: issueBackwardGather(layers_[index]);
    }
  }

private:
  void gatherOverWorld(Layer& layer, float* full) {
    NCCL_CHECK(ncclAllGather(layer.primary.get(), full, layer.shard, ncclFloat, world_,
                             allGatherStream_.get()));
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
  cudaEvent_t forwardGathered_;
  Stream allGatherStream_;
  ncclComm_t world_, intraNode_;
};
