// A `for` loop between two constants whose body changes nothing the analysis follows (streams
// created one by one, a printf loop) once ended the analysis of its function there: nothing after
// it was checked. The work after such a loop is checked; its ordered twin stays silent. A loop
// that synchronizes `streams[i]` by its counter waits for every stream of the array, whichever
// element the earlier work used; one synchronization through some other index does not.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

int printf(const char*, ...);

__global__ void consume(float* inout) { inout[threadIdx.x] *= 2.0f; }

void streams_made_in_a_loop(float* buffer, float* staging) {
  cudaStream_t streams[4];
  for (int i = 0; i < 4; i++)
    cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking);
  cudaMemcpyAsync(buffer, staging, 256, cudaMemcpyDeviceToDevice, streams[0]);
  consume<<<1, 64, 0, streams[1]>>>(buffer);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buffer' is read and written by kernel 'consume' on stream 'streams[1]' while cudaMemcpyAsync on stream 'streams[0]' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: cudaMemcpyAsync writes 'buffer' on stream 'streams[0]' here
  // CHECK-MESSAGES: :[[@LINE-4]]:79: note: an event recorded on stream 'streams[0]' here, and waited on before the later access, would order the two
}

void streams_made_in_a_loop_ordered(float* buffer, float* staging) {
  cudaStream_t streams[4];
  for (int i = 0; i < 4; i++)
    cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking);
  cudaMemcpyAsync(buffer, staging, 256, cudaMemcpyDeviceToDevice, streams[0]);
  cudaStreamSynchronize(streams[0]);
  consume<<<1, 64, 0, streams[1]>>>(buffer);
}

void after_a_printf_loop(float* buffer, float* staging, cudaStream_t copy, cudaStream_t compute) {
  cudaMemcpyAsync(buffer, staging, 256, cudaMemcpyDeviceToDevice, copy);
  for (int i = 0; i < 3; i++)
    printf("step %d\n", i);
  consume<<<1, 64, 0, compute>>>(buffer);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buffer' is read and written by kernel 'consume' on stream 'compute' while cudaMemcpyAsync on stream 'copy' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-5]]:3: note: cudaMemcpyAsync writes 'buffer' on stream 'copy' here
  // CHECK-MESSAGES: :[[@LINE-6]]:73: note: an event recorded on stream 'copy' here, and waited on before the later access, would order the two
}

void after_a_printf_loop_ordered(float* buffer, float* staging, cudaStream_t copy,
                                 cudaStream_t compute) {
  cudaMemcpyAsync(buffer, staging, 256, cudaMemcpyDeviceToDevice, copy);
  for (int i = 0; i < 3; i++)
    printf("step %d\n", i);
  cudaStreamSynchronize(copy);
  consume<<<1, 64, 0, compute>>>(buffer);
}

void every_stream_waited_in_a_loop(float* buffer, cudaStream_t streams[], cudaStream_t compute) {
  cudaMemcpyAsync(buffer, buffer + 64, 256, cudaMemcpyDeviceToDevice, streams[1]);
  for (int i = 0; i < 4; ++i)
    cudaStreamSynchronize(streams[i]);
  consume<<<1, 64, 0, compute>>>(buffer);
}

void another_array_waited_in_a_loop(float* buffer, cudaStream_t streams[], cudaStream_t others[],
                                    cudaStream_t compute) {
  cudaMemcpyAsync(buffer, buffer + 64, 256, cudaMemcpyDeviceToDevice, streams[1]);
  for (int i = 0; i < 4; ++i)
    cudaStreamSynchronize(others[i]);
  consume<<<1, 64, 0, compute>>>(buffer);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buffer' is read and written by kernel 'consume' on stream 'compute' while cudaMemcpyAsync on stream 'streams[1]' may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void one_stream_waited_by_some_index(float* buffer, cudaStream_t streams[], int which,
                                     cudaStream_t compute) {
  cudaMemcpyAsync(buffer, buffer + 64, 256, cudaMemcpyDeviceToDevice, streams[1]);
  cudaStreamSynchronize(streams[which]);
  consume<<<1, 64, 0, compute>>>(buffer);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buffer' is read and written by kernel 'consume' on stream 'compute' while cudaMemcpyAsync on stream 'streams[1]' may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}
