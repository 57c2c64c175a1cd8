// Elements of one array indexed by a loop variable: `i` and `i + 1` are different elements, so
// gathering layer i + 1 while layer i is released is no conflict; the same element, in one
// iteration or carried into the next by `++i`, still races. Indices the analysis cannot relate
// (another variable, or a constant against a variable) may name the same element: reported.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

// The trainer's forward pass: prefetch the next layer on `gather` while this one is copied on
// `compute`, each layer's gather ordered before its use by an event.
void prefetch_next_while_releasing(float* full[], float* shard[], const float* primary,
                                   cudaEvent_t gathered[], int layers, cudaStream_t compute,
                                   cudaStream_t gather) {
  cudaMemcpyAsync(full[0], primary, 64, cudaMemcpyDeviceToDevice, gather);
  cudaEventRecord(gathered[0], gather);
  for (int i = 0; i < layers; ++i) {
    if (i + 1 < layers) {
      cudaMemcpyAsync(full[i + 1], primary, 64, cudaMemcpyDeviceToDevice, gather);
      cudaEventRecord(gathered[i + 1], gather);
    }
    cudaStreamWaitEvent(compute, gathered[i], 0);
    cudaMemcpyAsync(shard[i], full[i], 64, cudaMemcpyDeviceToDevice, compute);
  }
}

// The backward pass counts down: the gather of layer i - 1 runs while layer i is read.
void prefetch_previous_counting_down(float* full[], float* gradient[], cudaEvent_t gathered[],
                                     const float* shard, int layers, cudaStream_t compute,
                                     cudaStream_t gather) {
  cudaMemcpyAsync(full[layers - 1], shard, 64, cudaMemcpyDeviceToDevice, gather);
  cudaEventRecord(gathered[layers - 1], gather);
  for (int i = layers; i-- > 0;) {
    if (i > 0) {
      cudaMemcpyAsync(full[i - 1], shard, 64, cudaMemcpyDeviceToDevice, gather);
      cudaEventRecord(gathered[i - 1], gather);
    }
    cudaStreamWaitEvent(compute, gathered[i], 0);
    cudaMemcpyAsync(gradient[i], full[i], 64, cudaMemcpyDeviceToDevice, compute);
  }
}

void same_element_same_iteration(float* full[], float* shard[], const float* primary, int layers,
                                 cudaStream_t compute, cudaStream_t gather) {
  for (int i = 0; i < layers; ++i) {
    cudaMemcpyAsync(full[i], primary, 64, cudaMemcpyDeviceToDevice, gather);
    cudaMemcpyAsync(shard[i], full[i], 64, cudaMemcpyDeviceToDevice, compute);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'full[i]' is read by cudaMemcpyAsync on stream 'compute' while cudaMemcpyAsync on stream 'gather' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  }
}

// Prefetched without an event: iteration i reads the element iteration i - 1 gathered.
void same_element_next_iteration(float* full[], float* shard[], const float* primary, int layers,
                                 cudaStream_t compute, cudaStream_t gather) {
  for (int i = 0; i + 1 < layers; ++i) {
    cudaMemcpyAsync(full[i + 1], primary, 64, cudaMemcpyDeviceToDevice, gather);
    cudaMemcpyAsync(shard[i], full[i], 64, cudaMemcpyDeviceToDevice, compute);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'full[i]' is read by cudaMemcpyAsync on stream 'compute' while cudaMemcpyAsync on stream 'gather' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  }
}

// `j` and `i` are two variables the program keeps apart: full[j] is another element than the one
// this iteration gathers.
void unrelated_index(float* full[], float* shard[], const float* primary, int layers, int j,
                     cudaStream_t compute, cudaStream_t gather) {
  for (int i = 0; i < layers; ++i) {
    cudaMemcpyAsync(full[i], primary, 64, cudaMemcpyDeviceToDevice, gather);
    cudaMemcpyAsync(shard[j], full[j], 64, cudaMemcpyDeviceToDevice, compute);
  }
}

// Once the first loop is over, its variable is gone and so is what it said about the elements
// gathered: any of them may be the one the second loop reads.
void second_loop_over_the_same_array(float* full[], float* shard[], const float* primary,
                                     int layers, cudaStream_t compute, cudaStream_t gather) {
  for (int i = 0; i < layers; ++i)
    cudaMemcpyAsync(full[i], primary, 64, cudaMemcpyDeviceToDevice, gather);
  for (int j = 0; j < layers; ++j)
    cudaMemcpyAsync(shard[j], full[j], 64, cudaMemcpyDeviceToDevice, compute);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'full[j]' is read by cudaMemcpyAsync on stream 'compute' while cudaMemcpyAsync on stream 'gather' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

// A constant index and a variable one: `i` may be 0.
void constant_against_variable(float* full[], const float* primary, float* out, int i,
                               cudaStream_t compute, cudaStream_t gather) {
  cudaMemcpyAsync(full[0], primary, 64, cudaMemcpyDeviceToDevice, gather);
  cudaMemcpyAsync(out, full[i], 64, cudaMemcpyDeviceToDevice, compute);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'full[i]' is read by cudaMemcpyAsync on stream 'compute' while cudaMemcpyAsync on stream 'gather' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

// Reassigned from something the analysis does not follow: the old elements may be any element.
void index_reassigned(float* full[], const float* primary, float* out, int i, int (*next)(int),
                      cudaStream_t compute, cudaStream_t gather) {
  cudaMemcpyAsync(full[i + 1], primary, 64, cudaMemcpyDeviceToDevice, gather);
  i = next(i);
  cudaMemcpyAsync(out, full[i], 64, cudaMemcpyDeviceToDevice, compute);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'full[i]' is read by cudaMemcpyAsync on stream 'compute' while cudaMemcpyAsync on stream 'gather' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

// A helper given the layer index reads the element the caller's iteration names.
static void gather_layer(float* full[], float* out, int layer, cudaStream_t s) {
  cudaMemcpyAsync(out, full[layer], 64, cudaMemcpyDeviceToDevice, s);
}

void helper_takes_the_layer(float* full[], float* out, const float* primary, int layers,
                            cudaStream_t compute, cudaStream_t gather) {
  for (int i = 0; i < layers; ++i) {
    cudaMemcpyAsync(full[i], primary, 64, cudaMemcpyDeviceToDevice, gather);
    gather_layer(full, out, i, compute);
    // CHECK-MESSAGES: :[[@LINE-8]]:3: warning: 'full[i]' is read by cudaMemcpyAsync on stream 'compute' while cudaMemcpyAsync on stream 'gather' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  }
}

void helper_takes_the_layer_after_an_event(float* full[], float* out, const float* primary,
                                           int layers, cudaStream_t compute, cudaStream_t gather,
                                           cudaEvent_t gathered) {
  for (int i = 0; i < layers; ++i) {
    cudaMemcpyAsync(full[i], primary, 64, cudaMemcpyDeviceToDevice, gather);
    cudaEventRecord(gathered, gather);
    cudaStreamWaitEvent(compute, gathered, 0);
    gather_layer(full, out, i, compute);
    cudaStreamSynchronize(compute);
  }
}
