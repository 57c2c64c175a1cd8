// Fails to compile: the analyzer must print the compiler's errors and go on with other files.
#include "cuda_runtime.h"

void broken(float* buf, cudaStream_t s) {
  cudaMemsetAsync(buf, 0, 16, s)
  undeclared_function(buf);
}
