// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "options.h"

#include <stdexcept>

namespace hpz {

namespace {

struct ModeSpelling {
  Mode mode;
  const char* name;
};

constexpr ModeSpelling kModeSpellings[] = {{Mode::Zero3, "zero3"},
                                           {Mode::HpzBuggy, "hpz-buggy"},
                                           {Mode::HpzFixHostSync, "hpz-fix-hostsync"},
                                           {Mode::HpzFixEvent, "hpz-fix-event"}};

Mode parseMode(const std::string& text) {
  for (const ModeSpelling& spelling : kModeSpellings) {
    if (text == spelling.name) {
      return spelling.mode;
    }
  }
  throw std::invalid_argument("--mode expects zero3, hpz-buggy, hpz-fix-hostsync or "
                              "hpz-fix-event, got '" +
                              text + "'");
}

std::uint64_t parseUnsigned(const std::string& option, const std::string& text) {
  std::size_t consumed = 0;
  unsigned long long value = 0;
  try {
    value = std::stoull(text, &consumed);
  } catch (const std::exception&) {
    consumed = 0;
  }
  if (consumed == 0 || consumed != text.size() || text.front() == '-') {
    throw std::invalid_argument(option + " expects a non-negative integer, got '" + text + "'");
  }
  return value;
}

} // namespace

const char* modeName(Mode mode) {
  for (const ModeSpelling& spelling : kModeSpellings) {
    if (spelling.mode == mode) {
      return spelling.name;
    }
  }
  return "?";
}

Options parseOptions(const std::vector<std::string>& arguments) {
  Options options;
  for (std::size_t index = 0; index < arguments.size(); ++index) {
    const std::string& argument = arguments[index];
    auto value = [&]() -> const std::string& {
      if (index + 1 >= arguments.size()) {
        throw std::invalid_argument(argument + " expects a value");
      }
      return arguments[++index];
    };
    if (argument == "--help" || argument == "-h") {
      options.showHelp = true;
    } else if (argument == "--mode") {
      options.mode = parseMode(value());
    } else if (argument == "--steps") {
      const std::uint64_t steps = parseUnsigned(argument, value());
      if (steps == 0 || steps > 1000000) {
        throw std::invalid_argument("--steps expects 1..1000000");
      }
      options.steps = static_cast<int>(steps);
    } else if (argument == "--seed") {
      options.seed = parseUnsigned(argument, value());
    } else if (argument == "--loss-csv") {
      options.lossCsvPath = value();
    } else if (argument == "--cost-csv") {
      options.costCsvPath = value();
    } else if (argument == "--qwz") {
      options.quantizeWeights = true;
    } else if (argument == "--qgz") {
      options.quantizeGradients = true;
    } else if (argument == "--poison") {
      options.poisonSecondaryShards = true;
    } else {
      throw std::invalid_argument("unknown argument '" + argument + "'");
    }
  }
  return options;
}

std::string usage() {
  return "usage: hpz_train [--mode zero3|hpz-buggy|hpz-fix-hostsync|hpz-fix-event] [--steps N]\n"
         "                 [--seed S] [--loss-csv FILE] [--cost-csv FILE] [--poison] [--qwz]\n"
         "                 [--qgz]\n"
         "Data-parallel ZeRO-3 / hpZ training of a small MLP, one process per GPU; ranks come\n"
         "from RANK, WORLD_SIZE, LOCAL_RANK and LOCAL_WORLD_SIZE (torchrun/mpirun style).\n"
         "  --mode       zero3 (default): backward gathers the primary shards over all ranks;\n"
         "               hpz-buggy: backward gathers secondary shards inside the node, with no\n"
         "               ordering between the copy that creates them and the gather;\n"
         "               hpz-fix-hostsync: the host synchronizes stream C after each copy;\n"
         "               hpz-fix-event: stream A waits on an event recorded after each copy\n"
         "  --steps      training steps (default 50)\n"
         "  --seed       seed of the weights and the synthetic task (default 1)\n"
         "  --loss-csv   rank 0 writes step,loss lines to FILE\n"
         "  --cost-csv   rank 0 writes step,bytes_across_nodes,bytes_inside_nodes,\n"
         "               host_stall_ms,step_ms lines to FILE (bytes of all ranks, ring model)\n"
         "  --poison     fill every fresh secondary shard with NaN before its copy\n"
         "  --qwz        ZeRO++ qwZ: weights cross the world all-gathers as int8 blocks of 64\n"
         "               values with one scale each, and are dequantized after the gather\n"
         "  --qgz        ZeRO++ qgZ: gradients are reduced in two int8 all-to-all hops, inside\n"
         "               the node, then across nodes, instead of an fp32 reduce-scatter\n";
}

} // namespace hpz
