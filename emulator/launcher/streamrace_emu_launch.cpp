// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// streamrace-emu-launch: runs one process per rank of an emulated multi-node job on this machine
// (see launchUsage()). The ranks meet through the emulated NCCL's shared-memory rendezvous.
#include "launch_options.h"
#include "prefixed_output.h"
#include "settings.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

using namespace streamrace::emu;
using namespace streamrace::emu::launcher;

namespace {

volatile sig_atomic_t interruptedBy = 0;

void onInterrupt(int signal) {
  interruptedBy = signal;
}

struct Rank {
  int rank = 0;
  pid_t pid = -1;
  bool running = false;
  std::unique_ptr<PrefixedOutput> stdoutPipe;
  std::unique_ptr<PrefixedOutput> stderrPipe;
};

[[noreturn]] void failStartup(const std::string& message) {
  std::fprintf(stderr, "streamrace-emu-launch: %s\n", message.c_str());
  std::exit(2);
}

void setEnvironment(const char* name, const std::string& value) {
  setenv(name, value.c_str(), 1);
}

// The variables torchrun sets, plus the emulator's own; runs in the child before exec.
void setRankEnvironment(const LaunchOptions& options, int rank, const std::string& ncclId,
                        const std::string& rendezvousDir, int masterPort) {
  const int node = rank / options.gpusPerNode;
  setEnvironment("RANK", std::to_string(rank));
  setEnvironment("WORLD_SIZE", std::to_string(options.worldSize()));
  setEnvironment("LOCAL_RANK", std::to_string(rank % options.gpusPerNode));
  setEnvironment("LOCAL_WORLD_SIZE", std::to_string(options.gpusPerNode));
  setEnvironment("NODE_RANK", std::to_string(node));
  setEnvironment("GROUP_RANK", std::to_string(node));
  setEnvironment("MASTER_ADDR", "127.0.0.1");
  setEnvironment("MASTER_PORT", std::to_string(masterPort));
  if (options.sharedNcclIds) {
    setEnvironment(settingVariable(Setting::NcclId), ncclId);
  }
  setEnvironment(settingVariable(Setting::RendezvousDir), rendezvousDir);
  setEnvironment(settingVariable(Setting::Nodes), std::to_string(options.nodes));
  setEnvironment(settingVariable(Setting::GpusPerNode), std::to_string(options.gpusPerNode));
  setEnvironment(settingVariable(Setting::NodeRank), std::to_string(node));
  // Each process sees its node's GPUs and drives the one at LOCAL_RANK, as on a real node.
  setenv(settingVariable(Setting::Devices), std::to_string(options.gpusPerNode).c_str(), 0);
}

Rank startRank(const LaunchOptions& options, int rank, const std::string& ncclId,
               const std::string& rendezvousDir, int masterPort) {
  int out[2];
  int err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    failStartup(std::string("pipe: ") + std::strerror(errno));
  }
  const pid_t pid = fork();
  if (pid < 0) {
    failStartup(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    setpgid(0, 0); // its own process group, so stopping a rank stops its children too
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    setRankEnvironment(options, rank, ncclId, rendezvousDir, masterPort);
    std::vector<char*> argv;
    argv.reserve(options.command.size() + 1);
    for (const std::string& argument : options.command) {
      argv.push_back(const_cast<char*>(argument.c_str()));
    }
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "streamrace-emu-launch: cannot run %s: %s\n", argv[0],
                 std::strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid);
  close(out[1]);
  close(err[1]);
  Rank started;
  started.rank = rank;
  started.pid = pid;
  started.running = true;
  const std::string prefix = options.prefixOutput ? "[rank " + std::to_string(rank) + "] " : "";
  started.stdoutPipe = std::make_unique<PrefixedOutput>(out[0], STDOUT_FILENO, prefix);
  started.stderrPipe = std::make_unique<PrefixedOutput>(err[0], STDERR_FILENO, prefix);
  return started;
}

int exitCodeOf(int status) {
  if (WIFEXITED(status)) {
    return WEXITSTATUS(status);
  }
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
}

void signalRunning(std::vector<Rank>& ranks, int signal) {
  for (const Rank& rank : ranks) {
    if (rank.running) {
      kill(-rank.pid, signal);
    }
  }
}

} // namespace

int main(int argc, char** argv) {
  LaunchOptions options;
  try {
    options = parseLaunchOptions(argc, argv);
  } catch (const std::invalid_argument& error) {
    std::fprintf(stderr, "streamrace-emu-launch: %s\n%s", error.what(), launchUsage());
    return 2;
  }
  if (options.help) {
    std::printf("%s\n%s", launchUsage(), settingsHelp().c_str());
    return 0;
  }
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  const std::string ncclId = "launch-" + std::to_string(getpid()) + "-" + std::to_string(now);
  std::string rendezvousTemplate =
      (std::filesystem::temp_directory_path() / "streamrace-emu-launch-XXXXXX").string();
  if (mkdtemp(rendezvousTemplate.data()) == nullptr) {
    failStartup(std::string("mkdtemp: ") + std::strerror(errno));
  }
  const std::string rendezvousDir = rendezvousTemplate;
  const int masterPort = 20000 + getpid() % 20000;

  struct sigaction interrupt{};
  interrupt.sa_handler = onInterrupt;
  sigaction(SIGINT, &interrupt, nullptr);
  sigaction(SIGTERM, &interrupt, nullptr);

  std::vector<Rank> ranks;
  ranks.reserve(static_cast<std::size_t>(options.worldSize()));
  for (int rank = 0; rank < options.worldSize(); ++rank) {
    ranks.push_back(startRank(options, rank, ncclId, rendezvousDir, masterPort));
  }

  std::optional<int> firstFailure;
  std::optional<std::chrono::steady_clock::time_point> stopDeadline;
  const auto started = std::chrono::steady_clock::now();
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<PrefixedOutput*> outputs;
    for (Rank& rank : ranks) {
      for (PrefixedOutput* output : {rank.stdoutPipe.get(), rank.stderrPipe.get()}) {
        if (output->open()) {
          fds.push_back(pollfd{output->fd(), POLLIN, 0});
          outputs.push_back(output);
        }
      }
    }
    bool anyRunning = false;
    for (const Rank& rank : ranks) {
      anyRunning = anyRunning || rank.running;
    }
    if (fds.empty() && !anyRunning) {
      break;
    }
    if (poll(fds.data(), fds.size(), 50) > 0) {
      for (std::size_t i = 0; i < fds.size(); ++i) {
        if (fds[i].revents != 0) {
          outputs[i]->pump();
        }
      }
    }
    for (Rank& rank : ranks) {
      int status = 0;
      if (!rank.running || waitpid(rank.pid, &status, WNOHANG) != rank.pid) {
        continue;
      }
      rank.running = false;
      const int code = exitCodeOf(status);
      if (code != 0 && !firstFailure) {
        firstFailure = code;
        std::fprintf(
            stderr,
            "streamrace-emu-launch: rank %d exited with status %d; stopping the other ranks\n",
            rank.rank, code);
        signalRunning(ranks, SIGTERM);
        stopDeadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
      }
    }
    if (options.timeoutSeconds > 0 && !stopDeadline &&
        std::chrono::steady_clock::now() - started > std::chrono::seconds(options.timeoutSeconds)) {
      std::fprintf(stderr,
                   "streamrace-emu-launch: the job ran longer than %d s; stopping all ranks\n",
                   options.timeoutSeconds);
      signalRunning(ranks, SIGTERM);
      firstFailure = firstFailure.value_or(124);
      stopDeadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    }
    if (interruptedBy != 0 && !stopDeadline) {
      signalRunning(ranks, interruptedBy);
      firstFailure = firstFailure.value_or(128 + interruptedBy);
      stopDeadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    }
    if (stopDeadline && std::chrono::steady_clock::now() > *stopDeadline) {
      signalRunning(ranks, SIGKILL);
      stopDeadline = std::chrono::steady_clock::time_point::max();
    }
    // Once every rank has exited, output still held open by their leftover children is not
    // worth waiting for: drain what is there and finish.
    if (!anyRunning) {
      for (PrefixedOutput* output : outputs) {
        pollfd ready{output->fd(), POLLIN, 0};
        while (output->open() && poll(&ready, 1, 0) > 0) {
          output->pump();
        }
      }
      break;
    }
  }
  std::error_code ignored;
  std::filesystem::remove_all(rendezvousDir, ignored);
  return firstFailure.value_or(0);
}
