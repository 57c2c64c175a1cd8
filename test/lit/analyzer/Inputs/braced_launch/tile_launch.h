// A header with code: a braced launch configuration here is read as nvcc reads it too.
#pragma once
#include "cuda_runtime.h"

__global__ void tile(float* out) { out[threadIdx.x] = 1.0f; }

inline void launch_tile(float* out, cudaStream_t stream) { tile<<<1, {32, 8, 1}, 0, stream>>>(out); }
