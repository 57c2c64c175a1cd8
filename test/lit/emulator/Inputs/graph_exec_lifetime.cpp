// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Destroys a graph executable and uses its handle again, for
// test/lit/emulator/graph_exec_lifetime.test: as on CUDA, the dead handle is refused.
#include <cuda_runtime.h>

#include <cstdio>

#include "../../Inputs/check_call.h"

int main() {
  cudaStream_t stream = nullptr;
  CHECK(cudaStreamCreate(&stream));
  cudaGraph_t graph = nullptr;
  CHECK(cudaGraphCreate(&graph, 0));
  cudaGraphNode_t set = nullptr;
  CHECK(cudaGraphAddEmptyNode(&set, graph, nullptr, 0));
  cudaGraphExec_t exec = nullptr;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphLaunch(exec, stream));
  CHECK(cudaStreamSynchronize(stream));
  std::printf("destroy: %s\n", cudaGetErrorName(cudaGraphExecDestroy(exec)));
  std::printf("launch after destroy: %s\n", cudaGetErrorName(cudaGraphLaunch(exec, stream)));
  cudaGetLastError();
  std::printf("destroy again: %s\n", cudaGetErrorName(cudaGraphExecDestroy(exec)));
  cudaGetLastError();
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaStreamDestroy(stream));
  return 0;
}
