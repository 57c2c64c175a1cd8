// nvcc takes a braced list in a launch configuration (`<<<g, {32, 8, 1}>>>`) where clang's parser
// takes only an expression. The clang-tidy module reads it as streamrace-check does, in the main
// file and in included headers alike, and reports the same race on the same columns.
// RUN: %check_streamrace --tool=tidy %s %t -- %mock_cuda -I%inputs/braced_launch
// RUN: %check_streamrace %s %t.cli -- %mock_cuda -I%inputs/braced_launch
#include "tile_launch.h"

__global__ void scale(float* out) { out[threadIdx.x] *= 2.0f; }

void racy(float* buf, float* host, cudaStream_t a, cudaStream_t b) {
  scale<<<4, {32, 8, 1}, 0, a>>>(buf); cudaMemcpyAsync(host, buf, 1024, cudaMemcpyDeviceToHost, b);
  // CHECK-MESSAGES: :[[@LINE-1]]:40: warning: 'buf' is read by cudaMemcpyAsync on stream 'b' while kernel 'scale' on stream 'a' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: kernel 'scale' reads and writes 'buf' on stream 'a' here
  // CHECK-MESSAGES: :[[@LINE-3]]:39: note: an event recorded on stream 'a' here, and waited on before the later access, would order the two
}

void racy_through_header(float* buf, float* host, cudaStream_t a, cudaStream_t b) {
  launch_tile(buf, a);
  cudaMemcpyAsync(host, buf, 1024, cudaMemcpyDeviceToHost, b);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is read by cudaMemcpyAsync on stream 'b' while kernel 'tile' on stream 'a' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: tile_launch.h:7:60: note: kernel 'tile' writes 'buf' on stream 'a' here
  // CHECK-MESSAGES: :[[@LINE-4]]:3: note: 'launch_tile' is called here
}

void ordered(float* buf, float* host, cudaStream_t a, cudaStream_t b, cudaEvent_t done) {
  scale<<<4, {32, 8, 1}, 0, a>>>(buf);
  launch_tile(buf, a);
  cudaEventRecord(done, a);
  cudaStreamWaitEvent(b, done, 0);
  cudaMemcpyAsync(host, buf, 1024, cudaMemcpyDeviceToHost, b);
}
