// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Graphs whose nodes get new buffers after they were added, for the tracer's lit tests. A graph's
// one node first writes `old_buffer`; the scenario re-points it to `new_buffer`, launches the
// executable on one stream, and a copy on another stream reads both buffers. Only the read of
// `new_buffer` races with the launch: the executable no longer writes `old_buffer`. Built by nvcc
// (the kernel node needs a real kernel, annotated as writing its first argument's bytes).
//
//   graph_updates <scenario> [ordered]
//   exec-kernel      cudaGraphExecKernelNodeSetParams on a kernel node
//   exec-copy        cudaGraphExecMemcpyNodeSetParams1D on a 1D copy node
//   exec-copy-3d     cudaGraphExecMemcpyNodeSetParams on a copy node
//   exec-memset      cudaGraphExecMemsetNodeSetParams on a memset node
//   exec-update      cudaGraphExecUpdate from a second hand-built graph of the same shape
//   exec-update-captured   cudaGraphExecUpdate between two captured graphs (memsets)
//   exec-captured-memset   cudaGraphExecMemsetNodeSetParams on the node of a captured graph
//                    (found with cudaGraphGetNodes): not followed by the tracer, which says so
//   graph-kernel     cudaGraphKernelNodeSetParams, before the graph is instantiated
//   graph-copy       cudaGraphMemcpyNodeSetParams1D, before the graph is instantiated
//   graph-memset     cudaGraphMemsetNodeSetParams, before the graph is instantiated
//   graph-after      cudaGraphMemsetNodeSetParams after the graph was instantiated: the
//                    executable keeps writing `old_buffer`, so the old buffer's read races instead
//   exec-destroyed   cudaGraphExecMemsetNodeSetParams, then the executable is destroyed and the
//                    graph instantiated again: the new executable writes `old_buffer`, as the
//                    graph says, whatever the destroyed one was changed to
//   With `ordered`, the reading stream waits on an event recorded after the launch.
#include <streamrace/annotations.h>
#include <streamrace_emulator/kernel_registry.h>

#include <cstdio>
#include <cstring>
#include <string_view>

#include "../../Inputs/check_call.h"

__global__ void fill(int* out, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = i;
}

namespace {

constexpr int kCount = 1024;
constexpr size_t kBytes = kCount * sizeof(int);

void fillOnCpu(const StreamraceEmuLaunch&, int* out, int count) {
  for (int i = 0; i < count; ++i)
    out[i] = i;
}

struct Buffers {
  int* source = nullptr;
  int* old_buffer = nullptr;
  int* new_buffer = nullptr;
  int* copy = nullptr;
};

// What a kernel node's parameters point into must outlive the call that takes them.
struct KernelArguments {
  int* out = nullptr;
  int count = kCount;
  void* pointers[2] = {&out, &count};
};

cudaKernelNodeParams kernel_params(KernelArguments& arguments) {
  cudaKernelNodeParams params{};
  params.func = reinterpret_cast<void*>(fill);
  params.gridDim = dim3(kCount / 256);
  params.blockDim = dim3(256);
  params.kernelParams = arguments.pointers;
  return params;
}

cudaMemsetParams memset_params(int* buffer) {
  cudaMemsetParams params{};
  params.dst = buffer;
  params.value = 7;
  params.elementSize = 4;
  params.width = kCount;
  params.height = 1;
  return params;
}

cudaMemcpy3DParms copy_params(int* destination, int* source) {
  cudaMemcpy3DParms params{};
  params.srcPtr = make_cudaPitchedPtr(source, kBytes, kBytes, 1);
  params.dstPtr = make_cudaPitchedPtr(destination, kBytes, kBytes, 1);
  params.extent = make_cudaExtent(kBytes, 1, 1);
  params.kind = cudaMemcpyDeviceToDevice;
  return params;
}

// A graph of one memset node writing `buffer`, captured from a stream.
int capture_memset(cudaStream_t stream, int* buffer, cudaGraph_t& graph) {
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  CHECK(cudaMemsetAsync(buffer, 7, kBytes, stream));
  CHECK(cudaStreamEndCapture(stream, &graph));
  return 0;
}

int run(std::string_view scenario, bool ordered) {
  Buffers buffers;
  for (int** buffer : {&buffers.source, &buffers.old_buffer, &buffers.new_buffer, &buffers.copy}) {
    CHECK(cudaMalloc(buffer, kBytes));
  }
  CHECK(cudaMemset(buffers.source, 1, kBytes));
  CHECK(cudaMemset(buffers.old_buffer, 0, kBytes));
  CHECK(cudaMemset(buffers.new_buffer, 0, kBytes));
  CHECK(cudaDeviceSynchronize());
  std::printf("old buffer %p\nnew buffer %p\n", static_cast<void*>(buffers.old_buffer),
              static_cast<void*>(buffers.new_buffer));
  std::fflush(stdout);
  cudaStream_t launcher = nullptr;
  cudaStream_t reader = nullptr;
  CHECK(cudaStreamCreateWithFlags(&launcher, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&reader, cudaStreamNonBlocking));
  cudaEvent_t launched = nullptr;
  CHECK(cudaEventCreate(&launched));

  const bool kernel = scenario == "exec-kernel" || scenario == "graph-kernel";
  const bool copy =
      scenario == "exec-copy" || scenario == "exec-copy-3d" || scenario == "graph-copy";
  KernelArguments old_arguments{buffers.old_buffer};
  KernelArguments new_arguments{buffers.new_buffer};
  const cudaKernelNodeParams old_kernel = kernel_params(old_arguments);
  const cudaKernelNodeParams new_kernel = kernel_params(new_arguments);
  const cudaMemsetParams old_set = memset_params(buffers.old_buffer);
  const cudaMemsetParams new_set = memset_params(buffers.new_buffer);

  cudaGraph_t graph = nullptr;
  cudaGraphNode_t node = nullptr;
  if (scenario == "exec-update-captured" || scenario == "exec-captured-memset") {
    if (capture_memset(launcher, buffers.old_buffer, graph) != 0) return 1;
    std::size_t count = 1;
    CHECK(cudaGraphGetNodes(graph, &node, &count));
  } else {
    CHECK(cudaGraphCreate(&graph, 0));
    if (kernel)
      CHECK(cudaGraphAddKernelNode(&node, graph, nullptr, 0, &old_kernel));
    else if (copy)
      CHECK(cudaGraphAddMemcpyNode1D(&node, graph, nullptr, 0, buffers.old_buffer, buffers.source,
                                     kBytes, cudaMemcpyDeviceToDevice));
    else
      CHECK(cudaGraphAddMemsetNode(&node, graph, nullptr, 0, &old_set));
  }

  if (scenario == "graph-kernel") CHECK(cudaGraphKernelNodeSetParams(node, &new_kernel));
  if (scenario == "graph-copy")
    CHECK(cudaGraphMemcpyNodeSetParams1D(node, buffers.new_buffer, buffers.source, kBytes,
                                         cudaMemcpyDeviceToDevice));
  if (scenario == "graph-memset") CHECK(cudaGraphMemsetNodeSetParams(node, &new_set));
  cudaGraphExec_t executable = nullptr;
  CHECK(cudaGraphInstantiate(&executable, graph, 0));
  if (scenario == "graph-after") CHECK(cudaGraphMemsetNodeSetParams(node, &new_set));

  cudaGraph_t update = nullptr;
  if (scenario == "exec-kernel")
    CHECK(cudaGraphExecKernelNodeSetParams(executable, node, &new_kernel));
  if (scenario == "exec-copy")
    CHECK(cudaGraphExecMemcpyNodeSetParams1D(executable, node, buffers.new_buffer, buffers.source,
                                             kBytes, cudaMemcpyDeviceToDevice));
  if (scenario == "exec-copy-3d") {
    const cudaMemcpy3DParms params = copy_params(buffers.new_buffer, buffers.source);
    CHECK(cudaGraphExecMemcpyNodeSetParams(executable, node, &params));
  }
  if (scenario == "exec-memset" || scenario == "exec-captured-memset")
    CHECK(cudaGraphExecMemsetNodeSetParams(executable, node, &new_set));
  if (scenario == "exec-destroyed") {
    CHECK(cudaGraphExecMemsetNodeSetParams(executable, node, &new_set));
    CHECK(cudaGraphExecDestroy(executable));
    CHECK(cudaGraphInstantiate(&executable, graph, 0));
  }
  if (scenario == "exec-update") {
    CHECK(cudaGraphCreate(&update, 0));
    cudaGraphNode_t updated = nullptr;
    CHECK(cudaGraphAddMemsetNode(&updated, update, nullptr, 0, &new_set));
  }
  if (scenario == "exec-update-captured" &&
      capture_memset(launcher, buffers.new_buffer, update) != 0)
    return 1;
  if (update != nullptr) {
    cudaGraphExecUpdateResultInfo result{};
    CHECK(cudaGraphExecUpdate(executable, update, &result));
  }

  CHECK(cudaGraphLaunch(executable, launcher));
  if (ordered) {
    CHECK(cudaEventRecord(launched, launcher));
    CHECK(cudaStreamWaitEvent(reader, launched, 0));
  }
  CHECK(
      cudaMemcpyAsync(buffers.copy, buffers.old_buffer, kBytes, cudaMemcpyDeviceToDevice, reader));
  CHECK(
      cudaMemcpyAsync(buffers.copy, buffers.new_buffer, kBytes, cudaMemcpyDeviceToDevice, reader));
  CHECK(cudaDeviceSynchronize());
  // What the executable wrote, for the emulator to show it ran the new parameters.
  int written[2] = {};
  CHECK(cudaMemcpy(&written[0], buffers.old_buffer + 1, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&written[1], buffers.new_buffer + 1, sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("scenario %s: old buffer %s, new buffer %s\n", scenario.data(),
              written[0] != 0 ? "written" : "untouched", written[1] != 0 ? "written" : "untouched");
  CHECK(cudaGraphExecDestroy(executable));
  CHECK(cudaGraphDestroy(graph));
  if (update != nullptr) CHECK(cudaGraphDestroy(update));
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: graph_updates <scenario> [ordered]\n");
    return 2;
  }
  streamrace_emulator::registerKernel<&fillOnCpu>(fill);
  streamrace_annotate_kernel(reinterpret_cast<const void*>(fill), "w[p1*4],-");
  return run(argv[1], argc > 2 && std::strcmp(argv[2], "ordered") == 0);
}
