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
  std::vector<std::string> command;

  int worldSize() const { return nodes * gpusPerNode; }
};

// Throws std::invalid_argument with a message fit for the user.
LaunchOptions parseLaunchOptions(int argc, char** argv);
const char* launchUsage();

} // namespace streamrace::emu::launcher
