// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "launch_options.h"

#include <set>
#include <stdexcept>

namespace streamrace::emu::launcher {
namespace {

int positiveInteger(const std::string& option, const std::string& text) {
  std::size_t parsed = 0;
  int value = 0;
  try {
    value = std::stoi(text, &parsed);
  } catch (const std::exception&) {
    parsed = 0;
  }
  if (parsed != text.size() || value < 1) {
    throw std::invalid_argument(option + " expects a positive integer, got '" + text + "'");
  }
  return value;
}

} // namespace

const char* launchUsage() {
  return "usage: streamrace-emu-launch [--nodes N] [--gpus-per-node G] [--timeout SECONDS]\n"
         "                             [--shared-nccl-ids] [--no-prefix] -- cmd args...\n"
         "Runs N*G copies of cmd, one per rank, on this machine, as if on N nodes of G GPUs.\n"
         "Each rank gets RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, NODE_RANK (and\n"
         "GROUP_RANK, MASTER_ADDR, MASTER_PORT) and STREAMRACE_EMU_RENDEZVOUS_DIR, a scratch\n"
         "folder shared by the ranks (e.g. for rank 0 to hand its ncclUniqueId to the others).\n"
         "--shared-nccl-ids makes the n-th ncclGetUniqueId call return the same id in every rank,\n"
         "for programs where every rank asks instead of receiving one; it breaks programs whose\n"
         "subgroups get ids from different ranks. Output lines are prefixed with \"[rank R] \".\n"
         "When a rank fails the others are stopped; the exit status is the first failing rank's.\n"
         "--timeout stops every rank after SECONDS and exits with status 124.\n";
}

LaunchOptions parseLaunchOptions(int argc, char** argv) {
  LaunchOptions options;
  std::set<std::string> given; // a repeated option would silently drop one of its values
  int index = 1;
  for (; index < argc; ++index) {
    const std::string argument = argv[index];
    if (argument == "--") {
      ++index;
      break;
    }
    if (argument == "--help" || argument == "-h") {
      options.help = true;
      return options;
    }
    if (argument.empty() || argument[0] != '-') {
      throw std::invalid_argument("'" + argument +
                                  "' before '--': the command to run goes after '--'");
    }
    const std::size_t equals = argument.find('=');
    const std::string name = argument.substr(0, equals);
    if (!given.insert(name).second) {
      throw std::invalid_argument(name + " given twice");
    }
    const auto value = [&]() -> std::string {
      if (equals != std::string::npos) {
        return argument.substr(equals + 1);
      }
      if (index + 1 >= argc) {
        throw std::invalid_argument(name + " needs a value");
      }
      return argv[++index];
    };
    const auto noValue = [&] {
      if (equals != std::string::npos) {
        throw std::invalid_argument(name + " takes no value");
      }
    };
    if (name == "--nodes") {
      options.nodes = positiveInteger(name, value());
    } else if (name == "--gpus-per-node") {
      options.gpusPerNode = positiveInteger(name, value());
    } else if (name == "--timeout") {
      options.timeoutSeconds = positiveInteger(name, value());
    } else if (name == "--shared-nccl-ids") {
      noValue();
      options.sharedNcclIds = true;
    } else if (name == "--no-prefix") {
      noValue();
      options.prefixOutput = false;
    } else {
      throw std::invalid_argument("unknown option '" + name + "'");
    }
  }
  for (; index < argc; ++index) {
    options.command.emplace_back(argv[index]);
  }
  if (options.command.empty()) {
    throw std::invalid_argument("no command given after --");
  }
  return options;
}

} // namespace streamrace::emu::launcher
