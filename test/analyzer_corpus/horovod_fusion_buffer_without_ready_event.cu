// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Horovod (PR #363, WAIT_FOR_DATA): the background op copies a gradient into the fusion buffer on
// its own stream without waiting for the framework's ready event, while the backward kernel writes
// it. Fixed: the op's stream waits for the ready event recorded after the backward kernel.
#include <cuda_runtime.h>
#include <nccl.h>

__global__ void backward_kernel(float* grad) {
  grad[threadIdx.x] = 1.0f;
}

struct TensorTableEntry {
  float* data;
  size_t elems;
  cudaEvent_t ready_event;
};

class NcclAllreduceOp {
public:
  explicit NcclAllreduceOp(ncclComm_t comm, size_t fusion_elems) : comm_(comm) {
    cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
    cudaMalloc(&fusion_, fusion_elems * sizeof(float));
  }

  void execute(TensorTableEntry& entry) {
#ifdef FIXED
    cudaStreamWaitEvent(stream_, entry.ready_event, 0);
#endif
    // expect: streamrace-unsynchronized-cross-stream
    cudaMemcpyAsync(fusion_, entry.data, entry.elems * sizeof(float), cudaMemcpyDeviceToDevice,
                    stream_);
    ncclAllReduce(fusion_, fusion_, entry.elems, ncclFloat, ncclSum, comm_, stream_);
    cudaMemcpyAsync(entry.data, fusion_, entry.elems * sizeof(float), cudaMemcpyDeviceToDevice,
                    stream_);
    cudaStreamSynchronize(stream_);
  }

private:
  ncclComm_t comm_;
  cudaStream_t stream_;
  float* fusion_;
};

void allreduce_gradient(NcclAllreduceOp& op, float* grad, size_t elems, cudaStream_t framework) {
  TensorTableEntry entry{grad, elems, nullptr};
  cudaEventCreateWithFlags(&entry.ready_event, cudaEventDisableTiming);
  backward_kernel<<<1, 256, 0, framework>>>(grad);
  cudaEventRecord(entry.ready_event, framework);
  op.execute(entry);
  cudaEventDestroy(entry.ready_event);
}
