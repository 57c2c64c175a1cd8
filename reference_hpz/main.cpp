// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// hpz_train: the reference ZeRO-3 / hpZ trainer (reference_hpz/README.md), one process per GPU.
#include "kernels.h"
#include "options.h"
#include "process_group.h"
#include "trainer.h"

#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <stdexcept>

namespace {

// One NVTX range a step, as training loops mark their steps for profilers: a tool attached to
// the job counts steps by it (`streamrace report --advise=sync` gives each host wait's time a
// step). Without a tool, NVTX does nothing.
class StepRange {
public:
  StepRange() { nvtxRangePushA("step"); }
  ~StepRange() { nvtxRangePop(); }
  StepRange(const StepRange&) = delete;
  StepRange& operator=(const StepRange&) = delete;
};

std::ofstream openCsv(const std::string& path, const char* header) {
  std::ofstream file(path);
  if (!file) {
    throw std::runtime_error("cannot write " + path);
  }
  file << header << '\n';
  return file;
}

int run(const hpz::Options& options) {
  const hpz::RankLayout layout = hpz::RankLayout::fromEnvironment();
  const int rank = layout.rank;
  CUDA_CHECK(cudaSetDevice(layout.localRank));
  const bool cpuKernels = hpz::registerCpuKernels();
  hpz::Trainer trainer(options, layout,
                       hpz::createCommunicators(layout, options.quantizeGradients));

  const bool writesCsv = rank == 0;
  std::ofstream lossCsv;
  std::ofstream costCsv;
  if (writesCsv && !options.lossCsvPath.empty()) {
    lossCsv = openCsv(options.lossCsvPath, "step,loss");
  }
  if (writesCsv && !options.costCsvPath.empty()) {
    costCsv = openCsv(options.costCsvPath,
                      "step,bytes_across_nodes,bytes_inside_nodes,host_stall_ms,step_ms,"
                      "weight_mismatches,cross_rank_mismatches");
  }
  std::printf("rank %d: hpz_train mode=%s world=%d ranks_per_node=%d steps=%d seed=%llu "
              "kernels=%s\n",
              rank, hpz::modeName(options.mode), layout.worldSize, layout.ranksPerNode,
              options.steps, static_cast<unsigned long long>(options.seed),
              cpuKernels ? "cpu" : "device");

  int mismatchingLayerSteps = 0;
  int crossRankMismatchingLayerSteps = 0;
  double stepMilliseconds = 0.0;
  double hostStallMilliseconds = 0.0;
  hpz::RingTraffic traffic;
  hpz::RingTraffic lastStepTraffic;
  float loss = 0.0f;
  for (int step = 0; step < options.steps; ++step) {
    const hpz::StepReport report = [&] {
      const StepRange range;
      return trainer.step(step);
    }();
    mismatchingLayerSteps += report.mismatchingLayers;
    crossRankMismatchingLayerSteps += report.crossRankMismatchingLayers;
    stepMilliseconds += report.stepMilliseconds;
    hostStallMilliseconds += report.hostStallMilliseconds;
    traffic += report.traffic;
    lastStepTraffic = report.traffic;
    loss = report.loss;
    char line[64];
    std::snprintf(line, sizeof(line), "%d,%.9g", step, static_cast<double>(report.loss));
    if (lossCsv.is_open()) {
      lossCsv << line << '\n';
    }
    if (costCsv.is_open()) {
      costCsv << step << ',' << report.traffic.acrossNodes << ',' << report.traffic.insideNodes
              << ',' << report.hostStallMilliseconds << ',' << report.stepMilliseconds << ','
              << report.mismatchingLayers << ',' << report.crossRankMismatchingLayers << '\n';
    }
  }
  traffic += trainer.setupTraffic();
  traffic += trainer.checkTraffic();

  std::printf("rank %d: weight mismatches: %d layer-steps\n", rank, mismatchingLayerSteps);
  std::printf("rank %d: cross-rank mismatches: %d layer-steps\n", rank,
              crossRankMismatchingLayerSteps);
  std::printf("rank %d: final loss %.9g\n", rank, static_cast<double>(loss));
  std::printf("rank %d: bytes per step (all ranks): across nodes %llu, inside nodes %llu\n", rank,
              static_cast<unsigned long long>(lastStepTraffic.acrossNodes),
              static_cast<unsigned long long>(lastStepTraffic.insideNodes));
  std::printf("rank %d: bytes of the run (all ranks, with set-up and weight checks): across nodes "
              "%llu, inside nodes %llu\n",
              rank, static_cast<unsigned long long>(traffic.acrossNodes),
              static_cast<unsigned long long>(traffic.insideNodes));
  std::printf("rank %d: host stall %.3f ms, step time %.3f ms (means per step)\n", rank,
              hostStallMilliseconds / options.steps, stepMilliseconds / options.steps);
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  try {
    const hpz::Options options = hpz::parseOptions(std::vector<std::string>(argv + 1, argv + argc));
    if (options.showHelp) {
      std::cout << hpz::usage();
      return 0;
    }
    return run(options);
  } catch (const std::invalid_argument& error) {
    std::cerr << "hpz_train: " << error.what() << '\n' << hpz::usage();
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "hpz_train: " << error.what() << '\n';
    return 1;
  }
}
