// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// C-style pipeline struct set up by an init function (streams created non-blocking there) and
// driven through pointer-taking stage functions: the compute stage reads the batch the load stage
// uploads. Fixed: the load stage records an event in the struct and the compute stage waits on it.
#include <cuda_runtime.h>

__global__ void augment(const unsigned char* image, float* tensor) {
  tensor[threadIdx.x] = image[threadIdx.x] / 255.0f;
}

struct Pipeline {
  cudaStream_t load;
  cudaStream_t compute;
  cudaEvent_t loaded;
  unsigned char* d_image;
  float* d_tensor;
  size_t image_bytes;
};

void pipeline_init(Pipeline* p, size_t image_bytes) {
  p->image_bytes = image_bytes;
  cudaStreamCreateWithFlags(&p->load, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&p->compute, cudaStreamNonBlocking);
  cudaEventCreateWithFlags(&p->loaded, cudaEventDisableTiming);
  cudaMalloc(&p->d_image, image_bytes);
  cudaMalloc(&p->d_tensor, image_bytes * sizeof(float));
}

void stage_load(Pipeline* p, const unsigned char* pinned_image) {
  cudaMemcpyAsync(p->d_image, pinned_image, p->image_bytes, cudaMemcpyHostToDevice, p->load);
#ifdef FIXED
  cudaEventRecord(p->loaded, p->load);
#endif
}

void stage_compute(Pipeline* p) {
#ifdef FIXED
  cudaStreamWaitEvent(p->compute, p->loaded, 0);
#endif
  // expect: streamrace-unsynchronized-cross-stream
  augment<<<1, 256, 0, p->compute>>>(p->d_image, p->d_tensor);
}

void process_image(const unsigned char* pinned_image, size_t bytes) {
  Pipeline pipeline;
  pipeline_init(&pipeline, bytes);
  stage_load(&pipeline, pinned_image);
  stage_compute(&pipeline);
  cudaStreamSynchronize(pipeline.compute);
}
