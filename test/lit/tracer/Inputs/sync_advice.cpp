// Synchronizations that carry the load and some that do not, for `streamrace report
// --advise=sync`. Built with -g against the real CUDA runtime; run on the emulator under the
// tracer. A copy on the writer stream fills `middle`; a copy on the reader stream reads it.
//
//   sync_advice <scenario>
//   event-wait   the reader waits on an event recorded after the write: load-bearing
//   double-wait  the reader waits on that event twice: either wait alone is redundant, not both
//   host-sync    the host synchronizes the writer before the reader's copy is enqueued: an
//                event edge would do (over-strong)
//   ordered-twice the reader waits on the event, and the host synchronizes the writer: either
//                alone orders the copies, so neither is needed alone, but one of them is
//   early-wait   event-wait, after the reader waited on an event recorded before the write:
//                that wait orders nothing the copies touch (redundant, no partner)
//   host-through-wait  the reader waits on the event and the host synchronizes the reader, with
//                no copy on the reader: no traced access needs the wait, but the host's wait
//                for the copy goes through it (host-unseen, not redundant)
//   steps        host-sync once, then three times inside an NVTX range "step" each, as training
//                loops mark their steps: the advice gives each host wait's time a step
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <string_view>

#include "../../Inputs/check_call.h"

namespace {

constexpr std::size_t kBytes = 1 << 16;

int run(std::string_view scenario) {
  void* source = nullptr;
  void* middle = nullptr;
  void* target = nullptr;
  CHECK(cudaMalloc(&source, kBytes));
  CHECK(cudaMalloc(&middle, kBytes));
  CHECK(cudaMalloc(&target, kBytes));
  cudaStream_t writer = nullptr;
  cudaStream_t reader = nullptr;
  CHECK(cudaStreamCreateWithFlags(&writer, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&reader, cudaStreamNonBlocking));
  cudaEvent_t written = nullptr;
  CHECK(cudaEventCreateWithFlags(&written, cudaEventDisableTiming));
  cudaEvent_t early = nullptr;
  CHECK(cudaEventCreateWithFlags(&early, cudaEventDisableTiming));
  if (scenario == "early-wait") {
    // Recorded before the write: a wait on it orders nothing the copies touch.
    CHECK(cudaEventRecord(early, writer));
    CHECK(cudaStreamWaitEvent(reader, early, 0));
  }

  CHECK(cudaMemcpyAsync(middle, source, kBytes, cudaMemcpyDeviceToDevice, writer));
  CHECK(cudaEventRecord(written, writer));
  if (scenario == "host-sync") {
    CHECK(cudaStreamSynchronize(writer));
  } else {
    CHECK(cudaStreamWaitEvent(reader, written, 0));
    if (scenario == "double-wait") CHECK(cudaStreamWaitEvent(reader, written, 0));
    if (scenario == "ordered-twice") CHECK(cudaStreamSynchronize(writer));
  }
  if (scenario != "host-through-wait")
    CHECK(cudaMemcpyAsync(target, middle, kBytes, cudaMemcpyDeviceToDevice, reader));
  CHECK(cudaStreamSynchronize(reader));

  CHECK(cudaEventDestroy(early));
  CHECK(cudaEventDestroy(written));
  CHECK(cudaStreamDestroy(reader));
  CHECK(cudaStreamDestroy(writer));
  CHECK(cudaFree(target));
  CHECK(cudaFree(middle));
  CHECK(cudaFree(source));
  std::printf("scenario %.*s: copies done\n", static_cast<int>(scenario.size()), scenario.data());
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr,
                 "usage: sync_advice event-wait|double-wait|host-sync|ordered-twice|early-wait|"
                 "host-through-wait|steps\n");
    return 2;
  }
  if (std::string_view(argv[1]) != "steps") return run(argv[1]);
  int status = run("host-sync");
  for (int step = 0; step < 3 && status == 0; ++step) {
    nvtxRangePushA("step");
    status = run("host-sync");
    nvtxRangePop();
  }
  return status;
}
