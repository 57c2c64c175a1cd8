// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Stream capture and graphs: while a stream captures, its work becomes graph nodes instead of
// running; an instantiated graph runs its nodes with exactly the captured dependencies (stream
// order and events recorded and waited inside the capture), so independent branches overlap.
#pragma once

#include <cuda_runtime_api.h>

#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "operation.h"
#include "user_object.h"

namespace streamrace::emu {

struct GraphNode {
  Work work;
  std::vector<const GraphNode*> dependencies;
  // In a clone, the node it copies (cudaGraphNodeFindInClone); never dereferenced.
  const GraphNode* clonedFrom = nullptr;
};

struct Graph {
  std::vector<std::unique_ptr<GraphNode>> nodes;
  std::vector<HeldUserObject> userObjects;
};

struct CaptureSession {
  unsigned long long id = 0;
  // The stream that began the capture: only it may end it.
  const void* origin = nullptr;
  cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal;
  std::unique_ptr<Graph> graph = std::make_unique<Graph>();
  bool ended = false;
};

// Whether every node in `frontier` is `join` or one of its ancestors: the test for a forked
// stream having been joined back before the capture ends.
bool joinedInto(const std::vector<const GraphNode*>& frontier,
                const std::vector<const GraphNode*>& join);

class GraphExec {
public:
  explicit GraphExec(const Graph& graph);
  // Runs every node, each after its dependencies, independent nodes concurrently. Blocks until
  // all are done.
  void run() const;
  // Makes the executable's copy of node `node` run `work` from its next launch on; false when
  // `node` is no node of the graphs this executable was made or updated from, or not one of
  // `work`'s kind (a node's type cannot change).
  bool setWork(const GraphNode* node, Work work);
  // Takes the parameters of `graph`'s nodes, paired with this executable's in the order they were
  // added (cudaGraphExecUpdate): the graph must have the same nodes, of the same types, with the
  // same edges. On a mismatch, changes nothing and says why, naming the node of `graph` at fault.
  struct UpdateFailure {
    cudaGraphExecUpdateResult result = cudaGraphExecUpdateErrorTopologyChanged;
    const GraphNode* node = nullptr;
  };
  std::optional<UpdateFailure> update(const Graph& graph);

private:
  std::vector<Work> works_;
  // The nodes of every graph this executable was made or updated from, by index into works_.
  std::map<const GraphNode*, std::size_t> indexOf_;
  // works_'s index of each node of the graph this was made from, in the order they were added.
  std::vector<std::size_t> addedOrder_;
  // The graph's user objects stay alive as long as the executable does.
  std::vector<HeldUserObject> userObjects_;
  std::vector<std::vector<std::size_t>> dependencies_;
};

} // namespace streamrace::emu
