// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// PyTorch FSDP / Megatron: one flat gradient bucket is reduce-scattered on the comm stream while
// the next layer's backward refills it on the compute stream (iteration i's read, iteration i+1's
// write). Fixed: the compute stream waits for the reduce-scatter's event before refilling the
// bucket.
#include <cuda_runtime.h>
#include <nccl.h>

__global__ void layer_backward(const float* activations, float* grad_bucket, int layer) {
  grad_bucket[threadIdx.x] = activations[layer * blockDim.x + threadIdx.x] * 0.5f;
}

void backward_all_layers(const float* activations, float* grad_bucket, float* const* grad_shards,
                         size_t shard_elems, int num_layers, cudaStream_t compute,
                         cudaStream_t comm_stream, ncclComm_t comm) {
  cudaEvent_t bucket_full, bucket_free;
  cudaEventCreateWithFlags(&bucket_full, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&bucket_free, cudaEventDisableTiming);
  for (int layer = num_layers - 1; layer >= 0; --layer) {
#ifdef FIXED
    if (layer != num_layers - 1) cudaStreamWaitEvent(compute, bucket_free, 0);
#endif
    // expect: streamrace-unsynchronized-cross-stream
    layer_backward<<<1, 256, 0, compute>>>(activations, grad_bucket, layer);
    cudaEventRecord(bucket_full, compute);
    cudaStreamWaitEvent(comm_stream, bucket_full, 0);
    ncclReduceScatter(grad_bucket, grad_shards[layer], shard_elems, ncclFloat, ncclSum, comm,
                      comm_stream);
    cudaEventRecord(bucket_free, comm_stream);
  }
  cudaStreamSynchronize(comm_stream);
  cudaEventDestroy(bucket_full);
  cudaEventDestroy(bucket_free);
}
