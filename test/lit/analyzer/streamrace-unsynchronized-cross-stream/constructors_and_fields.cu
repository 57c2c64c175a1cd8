// An object's constructor runs where the object is declared: its member initializers bind the
// fields to what the caller passed, the work it enqueues is pending after the declaration, and a
// getter names the field it returns.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

__global__ void produce(float* out) { out[threadIdx.x] = 1.0f; }
__global__ void consume(const float* in, float* out) { out[threadIdx.x] = in[threadIdx.x]; }

class Producer {
public:
  Producer(float* buffer, cudaStream_t stream) : buffer_(buffer), stream_(stream) {
    produce<<<1, 32, 0, stream_>>>(buffer_);
  }
  float* buffer() const { return buffer_; }
  cudaStream_t stream() const { return stream_; }

private:
  float* buffer_;
  cudaStream_t stream_;
};

void produced_in_the_constructor(float* buffer, float* out, cudaStream_t a, cudaStream_t b) {
  Producer producer(buffer, a);
  consume<<<1, 32, 0, b>>>(buffer, out);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buffer' is read by kernel 'consume' on stream 'b' while kernel 'produce' on stream 'a' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-14]]:5: note: kernel 'produce' writes 'buffer' on stream 'a' here
  // CHECK-MESSAGES: :[[@LINE-4]]:12: note: the constructor 'Producer' is called here
  // CHECK-FIXES: Producer producer(buffer, a);
  // CHECK-FIXES-NEXT: cudaEvent_t streamrace_ready_[[LINE:[0-9]+]];
  // CHECK-FIXES-NEXT: cudaEventCreateWithFlags(&streamrace_ready_[[LINE]], cudaEventDisableTiming);
  // CHECK-FIXES-NEXT: cudaEventRecord(streamrace_ready_[[LINE]], a);
  // CHECK-FIXES-NEXT: cudaStreamWaitEvent(b, streamrace_ready_[[LINE]], 0);
}

void on_the_constructors_stream(float* buffer, float* out, cudaStream_t a) {
  Producer producer(buffer, a);
  consume<<<1, 32, 0, a>>>(buffer, out);
}

void ordered_through_getters(float* buffer, float* out, cudaStream_t a, cudaStream_t b) {
  Producer producer(buffer, a);
  cudaEvent_t produced;
  cudaEventCreateWithFlags(&produced, cudaEventDisableTiming);
  cudaEventRecord(produced, producer.stream());
  cudaStreamWaitEvent(b, produced, 0);
  consume<<<1, 32, 0, b>>>(producer.buffer(), out);
}

void read_through_a_getter(float* buffer, float* out, cudaStream_t a, cudaStream_t side) {
  Producer producer(buffer, a);
  consume<<<1, 32, 0, side>>>(producer.buffer(), out);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'buffer' is read by kernel 'consume' on stream 'side' while kernel 'produce' on stream 'a' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

// The stream is a private field of the object without a getter: the function that declares the
// object cannot name it, so no fix-it is offered there.
class Broadcaster {
public:
  explicit Broadcaster(float* weights) : weights_(weights) {
    cudaStreamCreateWithFlags(&own_stream_, cudaStreamNonBlocking);
    produce<<<1, 32, 0, own_stream_>>>(weights_);
  }
  void forward(float* out, cudaStream_t compute) { consume<<<1, 32, 0, compute>>>(weights_, out); }

private:
  float* weights_;
  cudaStream_t own_stream_;
};

void first_step(float* weights, float* out, cudaStream_t compute) {
  Broadcaster model(weights);
  model.forward(out, compute);
  // The object's own stream also breaks the stream-argument contract of 'first_step' both ways.
  // CHECK-MESSAGES: :[[@LINE-13]]:5: warning: 'weights' is written by kernel 'produce' on stream 'model.own_stream_' while the caller's work on stream 'compute' before the call may still be writing it; stream 'model.own_stream_' does not wait for stream 'compute' first [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-14]]:5: warning: 'weights' is written by kernel 'produce' on stream 'model.own_stream_', which 'first_step' does not join back into stream 'compute' before returning; the caller's later work on stream 'compute' may run while it is still writing it [streamrace-unsynchronized-cross-stream]
  // CHECK-MESSAGES: :[[@LINE-13]]:52: warning: 'weights' is read by kernel 'consume' on stream 'compute' while kernel 'produce' on stream 'model.own_stream_' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
  // CHECK-FIXES: Broadcaster model(weights);
  // CHECK-FIXES-NEXT: model.forward(out, compute);
}
