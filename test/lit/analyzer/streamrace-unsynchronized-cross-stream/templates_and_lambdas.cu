// Templates and lambdas: instantiations are analyzed (a race is reported once, not per
// instantiation), dependent code is skipped, and lambdas called in place are followed.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "nccl.h"

template <class T>
void copy_then_gather(T* buf, const T* src, T* out, size_t n, cudaStream_t a, cudaStream_t b,
                      ncclComm_t c) {
  cudaMemcpyAsync(buf, src, n * sizeof(T), cudaMemcpyDeviceToDevice, a);
  ncclAllGather(buf, out, n, ncclFloat, c, b);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buf' is read by ncclAllGather on stream 'b' while cudaMemcpyAsync on stream 'a' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // Each instantiation reaches this race: one finding.
}

template <class T> struct Holder {
  T* data;
  template <class Stream> void clear(Stream s) { cudaMemsetAsync(data, 0, sizeof(T), s); }
  // `holder{f}` makes `data` the caller's `f`, which the gather on b still reads.
  // CHECK-MESSAGES: :[[@LINE-2]]:50: warning: 'f' is written by cudaMemsetAsync on stream 'a' while ncclAllGather on stream 'b' may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
};

template <class T> void never_instantiated(T* p, cudaStream_t s) {
  p->template launch<int>(s);
  cudaMemsetAsync(p->data(), 0, 4, s);
}

void instantiate(float* f, int* i, const float* fs, const int* is, size_t n, cudaStream_t a,
                 cudaStream_t b, ncclComm_t c) {
  copy_then_gather(f, fs, f + n, n, a, b, c);
  copy_then_gather(i, is, i + n, n, a, b, c);
  Holder<float> holder{f};
  holder.clear(a);
}

void lambda_gathers(float* buf, const float* src, float* out, size_t n, cudaStream_t compute,
                    cudaStream_t comm, ncclComm_t c) {
  auto gather = [&](cudaStream_t stream) { ncclAllGather(buf, out, n, ncclFloat, c, stream); };
  cudaMemcpyAsync(buf, src, n * 4, cudaMemcpyDeviceToDevice, compute);
  gather(comm);
  // CHECK-MESSAGES: :[[@LINE-3]]:44: warning: 'buf' is read by ncclAllGather on stream 'comm' while cudaMemcpyAsync on stream 'compute' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: the lambda is called here
  cudaStreamSynchronize(comm);
  gather(compute);
  auto generic = [](auto* p, auto s) { cudaMemsetAsync(p, 0, 4, s); };
  generic(out, compute);
}

void lambda_ordered(float* buf, const float* src, float* out, size_t n, cudaStream_t compute,
                    cudaStream_t comm, ncclComm_t c, cudaEvent_t e) {
  auto gather = [=] { ncclAllGather(buf, out, n, ncclFloat, c, comm); };
  cudaMemcpyAsync(buf, src, n * 4, cudaMemcpyDeviceToDevice, compute);
  cudaEventRecord(e, compute);
  cudaStreamWaitEvent(comm, e);
  gather();
}
