// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "run_command.h"

#include "arguments.h"
#include "exit_status.h"
#include "usage_error.h"

#include "streamrace/replay/settle.h"
#include "streamrace/report/exec_arguments.h"
#include "streamrace/trace/trace_format.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <pthread.h>
#include <spawn.h>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace streamrace::cli {

namespace {

namespace fs = std::filesystem;

constexpr const char* kHelp =
    "usage: streamrace run [options] -- <command> [args...]\n"
    "\n"
    "Runs the command with the tracer (libstreamrace.so) attached through LD_PRELOAD,\n"
    "CUDA_INJECTION64_PATH and NVTX_INJECTION64_PATH, then merges the trace files every\n"
    "process wrote and prints the report on standard error (the program's own output is left\n"
    "as it is). SIGTERM and SIGHUP sent to this command are passed on to the command.\n"
    "Exit status: the command's own (128 + signal when it was killed); 66 when it exited 0 but\n"
    "findings remain; 67 when it exited 0 and nothing was found, but access checking paused\n"
    "(block_on_full=0) and some accesses went unchecked; 126 when it cannot be executed, 127\n"
    "when it cannot be found.\n"
    "\n"
    "options:\n"
    "  --output=DIR         folder for the trace files (default ./streamrace-out; trace files\n"
    "                       already there are removed first)\n"
    "  --options=K=V:...    settings, over those of $STREAMRACE_OPTIONS (the traced\n"
    "                       processes get the same); see `streamrace help options`\n"
    "  --launcher=COMMAND   start the command through a multi-process launcher, run as\n"
    "                       `COMMAND -- <command> [args...]` (default: the launcher setting,\n"
    "                       or $STREAMRACE_LAUNCHER); COMMAND is split at spaces\n"
    "  -h, --help           this text\n"
    "Options take their value after '=' or as the next argument.\n";

struct RunRequest {
  std::string output = "streamrace-out";
  Settings settings;
  std::string launcher;
  std::vector<std::string> command;
};

RunRequest parse(const std::vector<std::string>& args, bool& help) {
  const auto dashes = std::find(args.begin(), args.end(), "--");
  const Arguments arguments = Arguments::parse(
      {args.begin(), dashes}, "run", {"output", "options", "launcher"}, {"options", "launcher"});
  if (arguments.help) {
    help = true;
    return {};
  }
  if (!arguments.positional.empty())
    throw UsageError("'" + arguments.positional.front() + "' before '--': the command to run " +
                     "goes after '--' (see --help)");
  if (dashes == args.end())
    throw UsageError("'streamrace run' needs '--' before the command to run");
  RunRequest request;
  request.command.assign(dashes + 1, args.end());
  if (request.command.empty()) throw UsageError("'streamrace run' needs a command after '--'");
  request.output = arguments.value("output", request.output);
  // This command checks the merged traces: by default the processes only record, as checking
  // their own calls too would repeat the work (halt_on_error, or online_detection=1, keeps it).
  Settings defaults;
  defaults.tracer.online_detection = false;
  request.settings = command_settings(arguments, defaults);
  request.launcher = arguments.value("launcher", request.settings.run.launcher);
  return request;
}

// libstreamrace.so sits in ../lib next to the bin folder holding this program.
fs::path tracer_library() {
  const fs::path library =
      fs::read_symlink("/proc/self/exe").parent_path().parent_path() / "lib" / "libstreamrace.so";
  if (!fs::exists(library))
    throw std::runtime_error("the tracer library is missing: expected " + library.string());
  return library;
}

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string word; in >> word;)
    out.push_back(word);
  return out;
}

// The Python package sits next to the tracer (<prefix>/lib/streamrace/python); its
// sitecustomize enables streamrace.torch in every Python process of the job that imports torch.
// Without it the job still runs: a process that then runs PyTorch says so itself (the tracer
// notices torch without the package), and one that never imports torch loses nothing.
std::optional<std::string> python_path(const fs::path& library) {
  const fs::path package = library.parent_path() / "streamrace" / "python";
  if (!fs::exists(package / "sitecustomize.py")) return std::nullopt;
  std::string path = package.string();
  if (const char* existing = std::getenv("PYTHONPATH"); existing != nullptr && *existing != '\0')
    path += std::string(":") + existing;
  return path;
}

// The CUDA libraries of `folder` the job preloads (the cuda_libraries setting): the runtime and
// what PyTorch's wheels carry beside it. Preloaded, a library answers for its soname before any
// DT_RPATH is searched.
std::string cuda_library_preload(const std::string& folder) {
  static constexpr const char* sonames[] = {"libcudart.so.13", "libcupti.so.13",
                                            "libnccl.so.2",    "libcuda.so.1",
                                            "libcublas.so.13", "libcublasLt.so.13"};
  std::error_code error;
  const fs::path root = fs::absolute(folder, error);
  if (!fs::is_directory(root, error))
    throw std::runtime_error("cuda_libraries=" + folder + ": not a folder");
  std::string preload, looked_for;
  for (const char* soname : sonames) {
    if (fs::exists(root / soname, error)) preload += ":" + (root / soname).string();
    looked_for += (looked_for.empty() ? "" : ", ") + std::string(soname);
  }
  if (preload.empty())
    throw std::runtime_error("cuda_libraries=" + folder + ": holds none of " + looked_for);
  return preload;
}

// The processes get the settings this command resolved (its environment's, then --options), with
// its own on top: the trace folder (also as STREAMRACE_OUTPUT_DIR, the variable launchers are
// told to pass on), the observer's cache folder (cache_dir, as STREAMRACE_CACHE_DIR), and no
// report at exit, since this command prints the report merged from every process's trace.
std::vector<std::string> traced_environment(const RunRequest& request, const fs::path& library,
                                            const fs::path& output) {
  Settings traced = request.settings;
  const std::optional<std::string> package_path =
      traced.run.torch_ops ? python_path(library) : std::nullopt;
  traced.tracer.output_dir = output.string();
  traced.tracer.report_at_exit = false;
  // The tracer comes first, so that its NCCL entry points stand before the library's.
  std::string preload = library.string();
  if (!traced.run.cuda_libraries.empty())
    preload += cuda_library_preload(traced.run.cuda_libraries);
  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string variable(*entry);
    if (variable.rfind("LD_PRELOAD=", 0) == 0) {
      if (variable.size() > 11) preload += ":" + variable.substr(11);
      continue;
    }
    if (variable.rfind("CUDA_INJECTION64_PATH=", 0) == 0 ||
        variable.rfind("NVTX_INJECTION64_PATH=", 0) == 0 ||
        variable.rfind("STREAMRACE_OUTPUT_DIR=", 0) == 0 ||
        variable.rfind("STREAMRACE_CACHE_DIR=", 0) == 0 ||
        variable.rfind(std::string(kOptionsVariable) + "=", 0) == 0 ||
        (package_path && variable.rfind("PYTHONPATH=", 0) == 0))
      continue;
    environment.push_back(variable);
  }
  if (package_path) environment.push_back("PYTHONPATH=" + *package_path);
  environment.push_back("LD_PRELOAD=" + preload);
  environment.push_back("CUDA_INJECTION64_PATH=" + library.string());
  environment.push_back("NVTX_INJECTION64_PATH=" + library.string());
  environment.push_back("STREAMRACE_OUTPUT_DIR=" + output.string());
  // The Python side reads the observer's cache folder from the option's own variable.
  if (!traced.run.cache_dir.empty())
    environment.push_back("STREAMRACE_CACHE_DIR=" + traced.run.cache_dir);
  environment.push_back(std::string(kOptionsVariable) + "=" + settings_text(traced));
  return environment;
}

// The command's status as a shell reports it: 128 + signal when killed, 126 when it exists but
// cannot be executed, 127 when it cannot be found.
struct CommandStatus {
  bool started = false;
  int status = 0;
};

// The file `command` names as execvp finds it: itself when it has a slash, else the first
// executable regular file of that name on $PATH.
std::optional<std::string> executable_file(const std::string& command) {
  if (command.find('/') != std::string::npos) return command;
  const char* path = std::getenv("PATH");
  std::istringstream folders(path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string folder; std::getline(folders, folder, ':');) {
    std::string candidate = (folder.empty() ? "." : folder) + "/" + command;
    std::error_code error;
    if (fs::is_regular_file(candidate, error) && access(candidate.c_str(), X_OK) == 0)
      return candidate;
  }
  return std::nullopt;
}

// A shell (and execvp) runs an executable text file without a '#!' line as a /bin/sh script;
// posix_spawnp refuses it (ENOEXEC). The same file is run the same way here, unless it looks
// binary (a NUL byte near its start), which a shell refuses too.
std::optional<std::vector<std::string>> as_shell_script(const std::vector<std::string>& argv) {
  const std::optional<std::string> file = executable_file(argv[0]);
  if (!file) return std::nullopt;
  std::string start(256, '\0');
  std::ifstream in(*file, std::ios::binary);
  in.read(start.data(), static_cast<std::streamsize>(start.size()));
  start.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  if (start.find('\0') != std::string::npos) return std::nullopt;
  std::vector<std::string> shell{"/bin/sh", *file};
  shell.insert(shell.end(), argv.begin() + 1, argv.end());
  return shell;
}

// The command being traced, for the forwarding handler (0 while there is none).
volatile sig_atomic_t traced_child = 0;

void forward_to_child(int signal) {
  if (traced_child != 0) kill(static_cast<pid_t>(traced_child), signal);
}

CommandStatus run_traced(std::vector<std::string> argv, std::vector<std::string> environment) {
  std::vector<char*> arguments = exec_arguments(argv);
  std::vector<char*> variables = exec_arguments(environment);
  // A termination request sent to this command (a scheduler's or `timeout`'s SIGTERM, a closed
  // terminal's SIGHUP) is passed on to the program, so the program is not left running
  // untraced and this command still reports what it traced. The signals stay blocked until the
  // handlers know the child; the child starts with the mask this command had.
  sigset_t forwarded{}, previous_mask{};
  sigemptyset(&forwarded);
  sigaddset(&forwarded, SIGTERM);
  sigaddset(&forwarded, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &forwarded, &previous_mask);
  posix_spawnattr_t attributes{};
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setsigmask(&attributes, &previous_mask);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK);
  pid_t child = 0;
  int error =
      posix_spawnp(&child, arguments[0], nullptr, &attributes, arguments.data(), variables.data());
  if (error == ENOEXEC) {
    if (std::optional<std::vector<std::string>> script = as_shell_script(argv)) {
      std::vector<char*> script_arguments = exec_arguments(*script);
      error = posix_spawn(&child, script_arguments[0], nullptr, &attributes,
                          script_arguments.data(), variables.data());
    }
  }
  posix_spawnattr_destroy(&attributes);
  if (error != 0) {
    pthread_sigmask(SIG_SETMASK, &previous_mask, nullptr);
    std::fprintf(stderr, "streamrace: error: cannot run '%s': %s\n", argv[0].c_str(),
                 std::strerror(error));
    return {false, error == ENOENT || error == ENOTDIR ? 127 : 126};
  }
  traced_child = child;
  // An interrupt from the terminal reaches the program too (same process group); this command
  // outlives it to report what was traced.
  struct sigaction ignore{}, forward{}, previous_interrupt{}, previous_quit{}, previous_terminate{},
      previous_hangup{};
  ignore.sa_handler = SIG_IGN;
  forward.sa_handler = forward_to_child;
  sigaction(SIGINT, &ignore, &previous_interrupt);
  sigaction(SIGQUIT, &ignore, &previous_quit);
  sigaction(SIGTERM, &forward, &previous_terminate);
  sigaction(SIGHUP, &forward, &previous_hangup);
  pthread_sigmask(SIG_SETMASK, &previous_mask, nullptr);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  traced_child = 0;
  sigaction(SIGINT, &previous_interrupt, nullptr);
  sigaction(SIGQUIT, &previous_quit, nullptr);
  sigaction(SIGTERM, &previous_terminate, nullptr);
  sigaction(SIGHUP, &previous_hangup, nullptr);
  if (WIFEXITED(status)) return {true, WEXITSTATUS(status)};
  if (WIFSIGNALED(status)) return {true, 128 + WTERMSIG(status)};
  return {true, 1};
}

// Made (if need be) and emptied of earlier traces, so the report covers this run alone.
void prepare_trace_folder(const fs::path& output) {
  try {
    fs::create_directories(output);
    for (const fs::directory_entry& entry : fs::directory_iterator(output))
      if (entry.path().extension() == trace::kTraceFileExtension) fs::remove(entry.path());
  } catch (const fs::filesystem_error& error) {
    throw std::runtime_error("cannot use '" + output.string() +
                             "' as the trace folder (--output): " + error.code().message());
  }
}

// A CUDA or NVTX injection library the caller had set, which the traced command does not get:
// each variable names one library, and CUPTI takes one subscriber, so two tools cannot share a
// process. Said, so that a profiler that stays silent under `streamrace run` is not a mystery.
void say_replaced_injections(const fs::path& library) {
  for (const char* variable : {"CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH"}) {
    const char* value = std::getenv(variable);
    if (value == nullptr || *value == '\0') continue;
    std::error_code error;
    if (fs::equivalent(value, library, error)) continue;
    std::fprintf(stderr,
                 "streamrace: %s was '%s'; the command gets streamrace's tracer there instead "
                 "(a process loads one injection library): run that tool apart from streamrace\n",
                 variable, value);
  }
}

bool holds_traces(const fs::path& output) {
  for (const fs::directory_entry& entry : fs::directory_iterator(output))
    if (entry.path().extension() == trace::kTraceFileExtension) return true;
  return false;
}

} // namespace

int run_command(const std::vector<std::string>& args) {
  bool help = false;
  const RunRequest request = parse(args, help);
  if (help) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  // Read before the command runs, so a mistyped suppressions file does not cost a whole job.
  std::optional<Suppressions> suppressions = load_suppressions(request.settings);
  const fs::path library = tracer_library();
  const fs::path output = fs::absolute(request.output);
  prepare_trace_folder(output);

  std::vector<std::string> argv = words(request.launcher);
  if (!argv.empty()) argv.push_back("--");
  argv.insert(argv.end(), request.command.begin(), request.command.end());
  say_replaced_injections(library);
  const auto [started, status] = run_traced(argv, traced_environment(request, library, output));
  if (!started) return status;

  if (!holds_traces(output)) {
    std::fprintf(stderr,
                 "streamrace: no process wrote a trace to %s (did the command use CUDA "
                 "or NCCL?)\n",
                 output.c_str());
    return status;
  }
  Replay replay = replay_for_report({output.string()}, request.settings);
  const ReportedFindings reported = unsuppressed_findings(replay, suppressions);
  std::fputs(report_text(replay, reported, suppressions).c_str(), stderr);
  // A failed command keeps its own status, so a crash is never mistaken for a finished run
  // that merely has findings; 66 (or 67) marks findings (or unchecked accesses) only in a run
  // that otherwise succeeded.
  return status != 0 ? status : replay_status(!reported.findings.empty(), *replay.engine);
}

} // namespace streamrace::cli
