// The driver API's own calls, as a driver-API program writes them (cuda.h maps cuMemAlloc,
// cuMemcpyHtoDAsync, ... to their _v2 entry points): CUdeviceptr buffers, copies whose direction
// is the function's, events and stream waits. A racy use and each way of ordering it.
// RUN: %check_streamrace %s %t -- %real_cuda
#include <cuda.h>

void set_then_download(CUdeviceptr device, void* host, CUstream writer, CUstream reader) {
  cuMemsetD8Async(device, 0, 4096, writer);
  cuMemcpyDtoHAsync(host, device, 4096, reader);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'device' is read by cuMemcpyDtoHAsync on stream 'reader' while cuMemsetD8Async on stream 'writer' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
}

void event_orders(CUdeviceptr device, void* host, CUstream writer, CUstream reader, CUevent done) {
  cuMemsetD8Async(device, 0, 4096, writer);
  cuEventRecord(done, writer);
  cuStreamWaitEvent(reader, done, 0);
  cuMemcpyDtoHAsync(host, device, 4096, reader);
}

void host_waits(CUdeviceptr device, void* host, CUstream writer, CUstream reader) {
  cuMemcpyHtoDAsync(device, host, 4096, writer);
  cuStreamSynchronize(writer);
  cuMemsetD8Async(device, 0, 4096, reader);
}

void context_sync_orders(CUdeviceptr device, CUdeviceptr copy, CUstream writer, CUstream reader) {
  cuMemsetD8Async(device, 0, 4096, writer);
  cuCtxSynchronize();
  cuMemcpyDtoDAsync(copy, device, 4096, reader);
}

// A synchronous device-to-host copy makes the host wait for the legacy stream; a blocking
// stream's set before it is done when it returns.
void blocking_download_orders(CUdeviceptr device, void* host, CUstream reader) {
  cuMemsetD8(device, 0, 4096);
  cuMemcpyDtoH(host, device, 4096);
  cuMemsetD8Async(device, 1, 4096, reader);
}
