// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/report/symbolizer.h"

#include "streamrace/report/exec_arguments.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <sstream>
#include <string_view>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace streamrace {

namespace {

// The child must not be traced (from a traced program, it would load the tracer again and
// write a trace of its own into the program's output folder).
std::vector<std::string> child_environment() {
  std::vector<std::string> variables;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view variable(*entry);
    if (variable.starts_with("LD_PRELOAD=") || variable.starts_with("CUDA_INJECTION64_PATH=") ||
        variable.starts_with("STREAMRACE_OUTPUT_DIR="))
      continue;
    variables.emplace_back(variable);
  }
  return variables;
}

// Runs `arguments` and returns its standard output, or nothing when it could not be started.
bool run_capturing_output(std::vector<std::string> arguments, std::string& output) {
  int pipe_ends[2];
  if (pipe(pipe_ends) != 0) return false;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_ends[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_ends[0]);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::vector<std::string> environment = child_environment();
  std::vector<char*> argv = exec_arguments(arguments);
  std::vector<char*> envp = exec_arguments(environment);
  pid_t child = 0;
  const int spawned = posix_spawnp(&child, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_ends[1]);
  if (spawned != 0) {
    close(pipe_ends[0]);
    return false;
  }
  char buffer[4096];
  ssize_t n = 0;
  while ((n = read(pipe_ends[0], buffer, sizeof buffer)) > 0)
    output.append(buffer, static_cast<std::size_t>(n));
  close(pipe_ends[0]);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::vector<std::string> symbolizer_candidates() {
  if (const char* chosen = std::getenv("STREAMRACE_SYMBOLIZER"); chosen && *chosen) return {chosen};
  return {"llvm-symbolizer-22", "llvm-symbolizer"};
}

} // namespace

std::vector<StackFrame> symbolize(const std::string& object_file,
                                  const std::vector<std::uint64_t>& addresses) {
  for (const std::string& symbolizer : symbolizer_candidates()) {
    std::vector<std::string> arguments{symbolizer, "--obj=" + object_file, "--no-inlines"};
    for (std::uint64_t address : addresses) {
      char hex[32];
      std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(address));
      arguments.emplace_back(hex);
    }
    std::string output;
    if (!run_capturing_output(std::move(arguments), output)) continue;
    // Per address: the function, then file:line:column, then an empty line.
    std::vector<StackFrame> frames;
    std::istringstream lines(output);
    std::string function;
    std::string location;
    std::string separator;
    while (frames.size() < addresses.size() && std::getline(lines, function) &&
           std::getline(lines, location)) {
      std::getline(lines, separator);
      StackFrame frame;
      if (function != "??") frame.function = function;
      // file:line:column; the file itself may contain ':'.
      const std::size_t column_colon = location.rfind(':');
      const std::size_t line_colon = column_colon == std::string::npos
                                         ? std::string::npos
                                         : location.rfind(':', column_colon - 1);
      if (line_colon != std::string::npos) {
        const std::string file = location.substr(0, line_colon);
        if (file != "??") {
          frame.file = file;
          frame.line = static_cast<std::uint32_t>(
              std::strtoul(location.c_str() + line_colon + 1, nullptr, 10));
        }
      }
      frames.push_back(std::move(frame));
    }
    if (frames.size() == addresses.size()) return frames;
  }
  return {};
}

} // namespace streamrace
