// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Command line of streamrace-emu-launch.
#pragma once

#include <string>
#include <vector>

namespace streamrace::emu::launcher {

struct LaunchOptions {
  int nodes = 1;
  int gpusPerNode = 1;
  bool prefixOutput = true;
  int timeoutSeconds = 0; // 0: no limit
  bool sharedNcclIds = false;
  bool help = false; // --help: print the usage and run nothing
  std::vector<std::string> command;

  int worldSize() const { return nodes * gpusPerNode; }
};

// Options as `--name value` or `--name=value`, then `--` and the command. Throws
// std::invalid_argument with a message fit for the user.
LaunchOptions parseLaunchOptions(int argc, char** argv);
const char* launchUsage();

} // namespace streamrace::emu::launcher
