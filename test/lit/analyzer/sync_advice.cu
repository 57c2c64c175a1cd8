// streamrace-check --advise=sync: a host wait whose removal lets through only races between two
// streams, on device memory, is advised at note level with the event edge that would replace it.
// Each advised wait has a twin where the same wait is needed by the host, or its work is on
// memory the host may see, or it orders nothing the analysis sees: those stay silent. Advice is
// no finding: the exit status stays 0.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/sync_advice.cu
// RUN: streamrace-check --advise=sync %t/sync_advice.cu -- %mock_cuda > %t/text.txt 2>&1
// RUN: FileCheck %s --input-file=%t/text.txt --implicit-check-not=remark: --implicit-check-not=warning:
// RUN: streamrace-check --advise=sync --format=json %t/sync_advice.cu -- %mock_cuda > %t/advice.json
// RUN: FileCheck %s --check-prefix=JSON --input-file=%t/advice.json
// RUN: streamrace-check --advise=sync --format=sarif %t/sync_advice.cu -- %mock_cuda > %t/advice.sarif
// RUN: FileCheck %s --check-prefix=SARIF --input-file=%t/advice.sarif
// RUN: python3 %S/../report/Inputs/validate_json.py %S/../report/Inputs/sarif-2.1.0-subset.schema.json %t/advice.sarif | FileCheck %s --check-prefix=VALID
// --checks turns the advice off as it does a check.
// RUN: streamrace-check --advise=sync --checks=-streamrace-sync-over-strong %t/sync_advice.cu -- %mock_cuda 2>&1 | count 0
// The advice's fix-its applied, the file compiles and has neither finding nor advice left.
// RUN: python3 %S/apply_advice_fixes.py %t/advice.json | FileCheck %s --check-prefix=APPLIED
// RUN: streamrace-check --advise=sync %t/sync_advice.cu -- %mock_cuda > %t/applied.txt 2>&1
// RUN: count 0 < %t/applied.txt
// APPLIED: applied 4 advice to 1 file(s)
// Without the option, nothing is advised and the JSON has no advice member.
// RUN: streamrace-check --format=json %t/sync_advice.cu -- %mock_cuda > %t/plain.json
// RUN: FileCheck %s --check-prefix=PLAIN --input-file=%t/plain.json
// RUN: not streamrace-check --advise=everything %t/sync_advice.cu -- %mock_cuda 2>&1 | FileCheck %s --check-prefix=USAGE
#include "cuda_runtime.h"

__global__ void scale(const float* in, float* out) { out[threadIdx.x] = 2.0f * in[threadIdx.x]; }

// The copy's stream is waited for by the host, and only the kernel on another stream reads what
// the copy wrote.
void host_waits_for_a_stream(cudaStream_t copies, cudaStream_t compute, const float* source,
                             float* out, size_t bytes) {
  float* staged = nullptr;
  cudaMalloc(reinterpret_cast<void**>(&staged), bytes);
  cudaMemcpyAsync(staged, source, bytes, cudaMemcpyDeviceToDevice, copies);
  cudaStreamSynchronize(copies);
  scale<<<1, 32, 0, compute>>>(staged, out);
  cudaStreamSynchronize(compute);
  cudaFree(staged);
}
// CHECK: sync_advice.cu:[[@LINE-5]]:3: remark: 'cudaStreamSynchronize' makes the host wait, but only work on other streams needs what it waits for: an event edge orders that race without blocking the host [streamrace-sync-over-strong]
// CHECK: sync_advice.cu:[[@LINE-5]]:3: note: without it: 'staged' is read by kernel 'scale' on stream 'compute' while cudaMemcpyAsync on stream 'copies' may still be writing it; no event or synchronization orders the two streams
// CHECK: sync_advice.cu:[[@LINE-8]]:3: note: cudaMemcpyAsync writes 'staged' on stream 'copies' here
// CHECK: note: an event recorded on stream 'copies' here, and waited on before the later access, would order the two

// The whole device is waited for; the later kernel is the only reader.
void host_waits_for_the_device(cudaStream_t copies, cudaStream_t compute, const float* source,
                               float* out, size_t bytes) {
  float* staged = nullptr;
  cudaMalloc(reinterpret_cast<void**>(&staged), bytes);
  cudaMemcpyAsync(staged, source, bytes, cudaMemcpyDeviceToDevice, copies);
  cudaDeviceSynchronize();
  scale<<<1, 32, 0, compute>>>(staged, out);
  cudaStreamSynchronize(compute);
  cudaFree(staged);
}
// CHECK: sync_advice.cu:[[@LINE-5]]:3: remark: 'cudaDeviceSynchronize' makes the host wait, but only work on other streams needs what it waits for: an event edge orders that race without blocking the host [streamrace-sync-over-strong]
// CHECK: sync_advice.cu:[[@LINE-5]]:3: note: without it: 'staged' is read by kernel 'scale' on stream 'compute'

// An event's work waited for by the host, in a statement whose value is used: the edge is
// advised, the wait's removal is not (the reader decides what the error check becomes).
bool host_waits_for_an_event(cudaStream_t copies, cudaStream_t compute, const float* source,
                             float* out, size_t bytes) {
  float* staged = nullptr;
  cudaEvent_t copied;
  cudaMalloc(reinterpret_cast<void**>(&staged), bytes);
  cudaEventCreate(&copied);
  cudaMemcpyAsync(staged, source, bytes, cudaMemcpyDeviceToDevice, copies);
  cudaEventRecord(copied, copies);
  if (cudaEventSynchronize(copied) != cudaSuccess) return false;
  scale<<<1, 32, 0, compute>>>(staged, out);
  cudaStreamSynchronize(compute);
  cudaFree(staged);
  return true;
}
// CHECK: sync_advice.cu:[[@LINE-6]]:7: remark: 'cudaEventSynchronize' makes the host wait, but only work on other streams needs what it waits for

// Twin: the host reads what the copy wrote, into pinned memory: the wait is the host's.
float host_reads_after_the_wait(cudaStream_t copies, cudaStream_t compute, const float* source,
                                float* out, size_t bytes) {
  float* pinned = nullptr;
  cudaMallocHost(reinterpret_cast<void**>(&pinned), bytes);
  cudaMemcpyAsync(pinned, source, bytes, cudaMemcpyDeviceToHost, copies);
  cudaStreamSynchronize(copies);
  scale<<<1, 32, 0, compute>>>(source, out);
  const float first = pinned[0];
  cudaStreamSynchronize(compute);
  cudaFreeHost(pinned);
  return first;
}

// A buffer the caller gave, which the analysis cannot tell from pinned memory, is taken as
// device memory while the host touches it nowhere: the caller's later reads of it go through its
// streams.
void callers_buffer(cudaStream_t copies, cudaStream_t compute, const float* source, float* staged,
                    float* out, size_t bytes) {
  cudaMemcpyAsync(staged, source, bytes, cudaMemcpyDeviceToDevice, copies);
  cudaStreamSynchronize(copies);
  scale<<<1, 32, 0, compute>>>(staged, out);
  cudaStreamSynchronize(compute);
}
// CHECK: sync_advice.cu:[[@LINE-4]]:3: remark: 'cudaStreamSynchronize' makes the host wait, but only work on other streams needs what it waits for

// Twin: the copy reads the caller's host memory, which the caller may refill once the wait
// returns: the wait is the host's too.
void host_source(cudaStream_t copies, cudaStream_t compute, const float* host, float* out,
                 size_t bytes) {
  float* staged = nullptr;
  cudaMalloc(reinterpret_cast<void**>(&staged), bytes);
  cudaMemcpyAsync(staged, host, bytes, cudaMemcpyHostToDevice, copies);
  cudaStreamSynchronize(copies);
  scale<<<1, 32, 0, compute>>>(staged, out);
  cudaStreamSynchronize(compute);
  cudaFree(staged);
}

// Twin: the host reads the buffer itself after the wait.
float host_reads_it(cudaStream_t copies, cudaStream_t compute, const float* source, float* staged,
                    float* out, size_t bytes) {
  cudaMemcpyAsync(staged, source, bytes, cudaMemcpyDeviceToDevice, copies);
  cudaStreamSynchronize(copies);
  scale<<<1, 32, 0, compute>>>(staged, out);
  cudaStreamSynchronize(compute);
  return staged[0];
}

// Twin: the reader is a blocking copy into pageable memory, which makes the host wait for it
// anyway: an event edge would save the host nothing.
void blocking_reader(const float* source, float* out, size_t bytes) {
  cudaStream_t copies;
  cudaStreamCreateWithFlags(&copies, cudaStreamNonBlocking);
  float* staged = nullptr;
  cudaMalloc(reinterpret_cast<void**>(&staged), bytes);
  cudaMemcpyAsync(staged, source, bytes, cudaMemcpyDeviceToDevice, copies);
  cudaStreamSynchronize(copies);
  cudaMemcpy(out, staged, bytes, cudaMemcpyDeviceToHost);
  cudaFree(staged);
  cudaStreamDestroy(copies);
}

// Twin: the later kernel runs on the stream waited for, which orders it anyway; the wait orders
// nothing the analysis sees, which is not advice it gives (the host may need it in ways it does
// not see).
void same_stream_after(cudaStream_t copies, const float* source, float* out, size_t bytes) {
  float* staged = nullptr;
  cudaMalloc(reinterpret_cast<void**>(&staged), bytes);
  cudaMemcpyAsync(staged, source, bytes, cudaMemcpyDeviceToDevice, copies);
  cudaStreamSynchronize(copies);
  scale<<<1, 32, 0, copies>>>(staged, out);
  cudaStreamSynchronize(copies);
  cudaFree(staged);
}

// The wait's removal, and the event edge: record after the copy, wait before the kernel.
// JSON: "advice": [
// JSON: "check": "streamrace-sync-over-strong",
// JSON: "length": 33,
// JSON-NEXT: "line": [[SYNC:[0-9]+]],
// JSON: "replacement": ""
// JSON: "replacement": "\n  cudaEvent_t streamrace_ready_{{[0-9]+}};\n  cudaEventCreateWithFlags(&streamrace_ready_{{[0-9]+}}, cudaEventDisableTiming);\n  cudaEventRecord(streamrace_ready_{{[0-9]+}}, copies);"
// JSON: "replacement": "cudaStreamWaitEvent(compute, streamrace_ready_{{[0-9]+}}, 0);\n  cudaEventDestroy(streamrace_ready_{{[0-9]+}});\n  "
// JSON: "line": [[SYNC]],
// JSON: "findings": [],
// PLAIN-NOT: "advice"
// PLAIN: "findings": [],
// SARIF: "level": "note",
// SARIF-NEXT: "locations": [
// SARIF: "ruleId": "streamrace-sync-over-strong"
// SARIF: "id": "streamrace-sync-over-strong",
// VALID: advice.sarif: valid
// USAGE: Cannot find option named 'everything'
