// A class that allocates pinned host memory into a field in one function (its constructor) and
// reads it in a method analyzed on its own: every allocation of the field in the translation
// unit is pinned, so the method knows an async copy into it does not make the host wait.
// RUN: %check_streamrace %s %t -- %mock_cuda
#include "cuda_runtime.h"

__global__ void check(const float* grads, int* flag) {
  if (grads[threadIdx.x] != grads[threadIdx.x]) flag[0] = 1;
}

class LossScaler {
public:
  LossScaler() {
    cudaMallocHost((void**)&flag_host_, sizeof(int));
    cudaMalloc((void**)&flag_, sizeof(int));
  }

  bool skip_without_sync(const float* grads, cudaStream_t stream) {
    check<<<1, 32, 0, stream>>>(grads, flag_);
    cudaMemcpyAsync(flag_host_, flag_, sizeof(int), cudaMemcpyDeviceToHost, stream);
    return *flag_host_ != 0;
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: the host reads 'this->flag_host_' while cudaMemcpyAsync on stream 'stream' may still be writing it; synchronize the stream before touching the buffer [streamrace-host-access-before-sync]
  }

  bool skip_after_sync(const float* grads, cudaStream_t stream) {
    check<<<1, 32, 0, stream>>>(grads, flag_);
    cudaMemcpyAsync(flag_host_, flag_, sizeof(int), cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    return *flag_host_ != 0;
  }

private:
  int* flag_host_;
  int* flag_;
};

// Allocated pinned in one place and on the device in another: its kind is not known, and a copy
// whose host side may be pageable makes the host wait, so nothing is reported.
class Staging {
public:
  void pinned() { cudaMallocHost((void**)&host_, 64); }
  void on_the_device() { cudaMalloc((void**)&host_, 64); }
  float first(const float* device, cudaStream_t stream) {
    cudaMemcpyAsync(host_, device, 64, cudaMemcpyDeviceToHost, stream);
    return host_[0];
  }

private:
  float* host_;
};

// The same through a struct a function is given (a C-style context): the field every allocation
// in the translation unit makes pinned is pinned behind a pointer or reference to the struct too.
struct ScalerState {
  int* flag_host;
  int* flag;
  cudaStream_t stream;
};

void scaler_init(ScalerState* state) {
  cudaMallocHost((void**)&state->flag_host, sizeof(int));
  cudaMalloc((void**)&state->flag, sizeof(int));
}

bool state_skip_without_sync(ScalerState* state, const float* grads) {
  check<<<1, 32, 0, state->stream>>>(grads, state->flag);
  cudaMemcpyAsync(state->flag_host, state->flag, sizeof(int), cudaMemcpyDeviceToHost,
                  state->stream);
  return *state->flag_host != 0;
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: the host reads 'state->flag_host' while cudaMemcpyAsync on stream 'state->stream' may still be writing it; synchronize the stream before touching the buffer [streamrace-host-access-before-sync]
}

bool state_skip_without_sync_by_reference(ScalerState& state, const float* grads) {
  check<<<1, 32, 0, state.stream>>>(grads, state.flag);
  cudaMemcpyAsync(state.flag_host, state.flag, sizeof(int), cudaMemcpyDeviceToHost, state.stream);
  return *state.flag_host != 0;
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: the host reads 'state.flag_host' while cudaMemcpyAsync on stream 'state.stream' may still be writing it; synchronize the stream before touching the buffer [streamrace-host-access-before-sync]
}

bool state_skip_after_sync(ScalerState* state, const float* grads) {
  check<<<1, 32, 0, state->stream>>>(grads, state->flag);
  cudaMemcpyAsync(state->flag_host, state->flag, sizeof(int), cudaMemcpyDeviceToHost,
                  state->stream);
  cudaStreamSynchronize(state->stream);
  return *state->flag_host != 0;
}

// A field pinned in its own class's method (`alloc()`), reached through another object's array
// of such stages: the field is pinned whatever object holds it.
struct HostStage {
  unsigned char* host = nullptr;
  cudaError_t alloc(size_t bytes) {
    return cudaHostAlloc(reinterpret_cast<void**>(&host), bytes, cudaHostAllocPortable);
  }
};

struct StagedPipeline {
  HostStage stages[2];
  cudaStream_t streams[2];
};

int staged_first_without_sync(StagedPipeline* p, const unsigned char* device, size_t offset) {
  cudaMemcpyAsync(p->stages[1].host + offset, device + offset, 64, cudaMemcpyDeviceToHost,
                  p->streams[1]);
  return p->stages[1].host[offset];
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: the host reads 'p->stages[1].host' while cudaMemcpyAsync on stream 'p->streams[1]' may still be writing it; synchronize the stream before touching the buffer [streamrace-host-access-before-sync]
  // CHECK-MESSAGES: :[[@LINE-4]]:3: note: cudaMemcpyAsync writes 'p->stages[1].host' on stream 'p->streams[1]' here
  // CHECK-MESSAGES: :[[@LINE-4]]:34: note: an event recorded on stream 'p->streams[1]' here, and synchronized (cudaEventSynchronize) before the host's access, would order the two
}

int staged_first_after_sync(StagedPipeline* p, const unsigned char* device, size_t offset) {
  cudaMemcpyAsync(p->stages[1].host + offset, device + offset, 64, cudaMemcpyDeviceToHost,
                  p->streams[1]);
  cudaStreamSynchronize(p->streams[1]);
  return p->stages[1].host[offset];
}
