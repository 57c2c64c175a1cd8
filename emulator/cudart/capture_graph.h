// Stream capture and graphs: while a stream captures, its work becomes graph nodes instead of
// running; an instantiated graph runs its nodes with exactly the captured dependencies (stream
// order and events recorded and waited inside the capture), so independent branches overlap.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <vector>

#include "operation.h"

namespace streamrace::emu {

struct GraphNode {
  Work work;
  std::vector<const GraphNode*> dependencies;
};

struct Graph {
  std::vector<std::unique_ptr<GraphNode>> nodes;
};

struct CaptureSession {
  unsigned long long id = 0;
  cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal;
  std::unique_ptr<Graph> graph = std::make_unique<Graph>();
  bool ended = false;
};

class GraphExec {
public:
  explicit GraphExec(const Graph& graph);
  // Runs every node, each after its dependencies, independent nodes concurrently. Blocks until
  // all are done.
  void run() const;

private:
  std::vector<Work> works_;
  std::vector<std::vector<std::size_t>> dependencies_;
};

} // namespace streamrace::emu
