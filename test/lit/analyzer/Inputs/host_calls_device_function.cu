// A host function that calls a __device__ function: nvcc rejects it, and so does the analyzer.
#include <cuda_runtime.h>

__device__ float half_of(float x) { return x * 0.5f; }

float on_the_host(float x) { return half_of(x); }
