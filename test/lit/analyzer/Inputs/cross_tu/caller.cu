#include "helpers.h"

void racy_other_file(float* buf, const float* src, float* out, size_t n, cudaStream_t side,
                     cudaStream_t main_stream) {
  fill_on(buf, src, n, side);
  cudaMemcpyAsync(out, buf, n * 4, cudaMemcpyDeviceToDevice, main_stream);
}

void ordered_other_file(float* buf, const float* src, float* out, size_t n, cudaStream_t side,
                        cudaStream_t main_stream) {
  fill_and_wait(buf, src, n, side);
  cudaMemcpyAsync(out, buf, n * 4, cudaMemcpyDeviceToDevice, main_stream);
}

void racy_header(float* buf, const float* src, float* out, size_t n, cudaStream_t side,
                 cudaStream_t main_stream) {
  header_fill(buf, src, n, side);
  cudaMemcpyAsync(out, buf, n * 4, cudaMemcpyDeviceToDevice, main_stream);
}

void ordered_header(float* buf, const float* src, float* out, size_t n, cudaStream_t side,
                    cudaStream_t main_stream) {
  header_fill(buf, src, n, side);
  cudaStreamSynchronize(side);
  cudaMemcpyAsync(out, buf, n * 4, cudaMemcpyDeviceToDevice, main_stream);
}

void calls_broken(float* buf, const float* src, float* out, size_t n, cudaStream_t side,
                  cudaStream_t main_stream) {
  broken_fill(buf, src, n, side);
  cudaMemcpyAsync(out, buf, n * 4, cudaMemcpyDeviceToDevice, main_stream);
}
