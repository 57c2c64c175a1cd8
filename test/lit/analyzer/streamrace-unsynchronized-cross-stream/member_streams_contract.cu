// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The stream-argument contract (stream_argument_contract.cu) for streams kept in the analysed
// object's fields: a field that only the translation unit's stream creations fill (directly, or
// through a local pushed into a vector) and that no getter hands out holds the class's own
// streams, never the one a caller passes, as a stream the function created would be.
// RUN: %check_streamrace %s %t -- %real_cuda
#include <cuda_runtime.h>

#include <vector>

__global__ void scale(float* data) { data[threadIdx.x] *= 2.0f; }

// A method given the caller's stream is held to the contract for the class's own streams.
class OwnStreams {
public:
  OwnStreams() {
    for (int i = 0; i < 2; ++i) {
      cudaStream_t stream;
      cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
      send_.push_back(stream);
    }
    cudaStreamCreateWithFlags(&recv_, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming);
    cudaEventCreateWithFlags(&done_, cudaEventDisableTiming);
  }
  ~OwnStreams() {
    for (cudaStream_t stream : send_) cudaStreamDestroy(stream);
    cudaStreamDestroy(recv_);
    recv_ = nullptr;
  }

  // Waits for the caller's stream, but returns with the copy into `out` still running.
  void copy_out(float* out, const float* in, size_t bytes, cudaStream_t main_stream) {
    cudaEventRecord(ready_, main_stream);
    cudaStreamWaitEvent(send_[0], ready_, 0);
    cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, send_[0]);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'in' is read by cudaMemcpyAsync on stream 'this->send_[0]', which 'copy_out' does not join back into stream 'main_stream' before returning; the caller's later work on stream 'main_stream' may run while it is still reading it [streamrace-unsynchronized-cross-stream]
    // CHECK-MESSAGES: :[[@LINE+4]]:3: note: 'copy_out' returns here: an event recorded on stream 'this->send_[0]' after that work and waited on by stream 'main_stream' (cudaStreamWaitEvent), or a synchronization of stream 'this->send_[0]', before returning would order the caller's later work
    // CHECK-MESSAGES: :[[@LINE-3]]:5: warning: 'out' is written by cudaMemcpyAsync on stream 'this->send_[0]', which 'copy_out' does not join back into stream 'main_stream' before returning; the caller's later work on stream 'main_stream' may run while it is still writing it [streamrace-unsynchronized-cross-stream]
    // CHECK-MESSAGES: :[[@LINE+2]]:3: note: 'copy_out' returns here: an event recorded on stream 'this->send_[0]' after that work and waited on by stream 'main_stream' (cudaStreamWaitEvent), or a synchronization of stream 'this->send_[0]', before returning would order the caller's later work
    cudaEventRecord(done_, send_[0]);
  }

  // Reads what the caller handed in before waiting for the caller's stream.
  void scale_in_place(float* data, cudaStream_t main_stream) {
    scale<<<1, 32, 0, recv_>>>(data);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'data' is read and written by kernel 'scale' on stream 'this->recv_' while the caller's work on stream 'main_stream' before the call may still be writing it; stream 'this->recv_' does not wait for stream 'main_stream' first [streamrace-unsynchronized-cross-stream]
    // CHECK-MESSAGES: :[[@LINE-3]]:8: note: 'scale_in_place' takes stream 'main_stream': the caller's work on it before the call may still be writing 'data'
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: an event recorded on stream 'main_stream' and waited on by stream 'this->recv_' (cudaStreamWaitEvent) here would order the two
    cudaStreamSynchronize(recv_);
  }

  // Waited for and joined back: silent.
  void copy_out_joined(float* out, const float* in, size_t bytes, cudaStream_t main_stream) {
    cudaEventRecord(ready_, main_stream);
    cudaStreamWaitEvent(send_[0], ready_, 0);
    cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, send_[0]);
    cudaEventRecord(done_, send_[0]);
    cudaStreamWaitEvent(main_stream, done_, 0);
  }

private:
  std::vector<cudaStream_t> send_;
  cudaStream_t recv_;
  cudaEvent_t ready_;
  cudaEvent_t done_;
};

// A class that also keeps a stream it was given may order its own streams after that one, which
// may be the caller's under another name: silent.
class KeepsTheComputeStream {
public:
  explicit KeepsTheComputeStream(cudaStream_t compute) : compute_(compute) {
    cudaStreamCreateWithFlags(&comm_, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming);
  }
  void reduce(float* data, cudaStream_t main_stream) {
    cudaEventRecord(ready_, compute_);
    cudaStreamWaitEvent(comm_, ready_, 0);
    scale<<<1, 32, 0, comm_>>>(data);
    cudaStreamSynchronize(comm_);
  }

private:
  cudaStream_t compute_;
  cudaStream_t comm_;
  cudaEvent_t ready_;
};

// A member stream a setter may replace with any stream is not known to be the class's own: silent.
class StreamFromSetter {
public:
  StreamFromSetter() { cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking); }
  void set_stream(cudaStream_t stream) { side_ = stream; }
  void run(float* data, cudaStream_t main_stream) {
    scale<<<1, 32, 0, side_>>>(data);
    cudaStreamSynchronize(side_);
  }

private:
  cudaStream_t side_;
};

// Another object's streams, given by reference: how it was built is not on the path (it may hold
// the caller's stream under another name), so only the analysed object's own streams count: silent.
void through_another_object(OwnStreams& streams, float* out, const float* in, size_t bytes,
                            cudaStream_t main_stream) {
  streams.copy_out_joined(out, in, bytes, main_stream);
}
