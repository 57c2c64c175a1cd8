// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RAII stream and event wrappers (at::cuda::CUDAEvent style, record()/block() methods): the event
// is recorded on the producer stream but nothing blocks the consumer stream on it before the read.
// Fixed: ready.block(consumer) before the consumer's copy.
#include <cuda_runtime.h>

__global__ void quantize(const float* in, signed char* out) {
  out[threadIdx.x] = static_cast<signed char>(in[threadIdx.x] * 127.0f);
}

class Stream {
public:
  Stream() { cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking); }
  ~Stream() { cudaStreamDestroy(stream_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }

private:
  cudaStream_t stream_;
};

class Event {
public:
  Event() { cudaEventCreateWithFlags(&event_, cudaEventDisableTiming); }
  ~Event() { cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record(const Stream& stream) { cudaEventRecord(event_, stream.get()); }
  void block(const Stream& stream) { cudaStreamWaitEvent(stream.get(), event_, 0); }

private:
  cudaEvent_t event_;
};

void quantize_and_send(const float* weights, signed char* q_weights, signed char* send_buffer,
                       size_t n) {
  Stream producer, consumer;
  Event ready;
  quantize<<<1, 256, 0, producer.get()>>>(weights, q_weights);
  ready.record(producer);
#ifdef FIXED
  ready.block(consumer);
#endif
  // expect: streamrace-unsynchronized-cross-stream
  cudaMemcpyAsync(send_buffer, q_weights, n, cudaMemcpyDeviceToDevice, consumer.get());
  cudaStreamSynchronize(consumer.get());
}
