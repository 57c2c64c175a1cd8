// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// streamrace: the command-line front door. Subcommands: run, report, export, explain. Exit
// status: 0 clean, 66 findings (configurable), 67 no findings but accesses left unchecked,
// 1 unreadable input, 2 a command line it cannot act on; `run` passes on a failed command's own
// status instead.
#include "explain_command.h"
#include "export_command.h"
#include "report_command.h"
#include "run_command.h"
#include "usage_error.h"

#include "streamrace/engine/options.h"

#include <sys/resource.h>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

namespace {

constexpr const char* kHelp =
    "usage: streamrace <command> [options] ...\n"
    "\n"
    "Finds races between GPU streams in CUDA/NCCL programs.\n"
    "\n"
    "commands:\n"
    "  run [options] -- <command> [args...]\n"
    "                       run a program with the tracer attached and report its races\n"
    "  report <traces>...   merge per-process trace files, replay them, print findings\n"
    "  export --format=perfetto|dot|json|sarif <traces>...\n"
    "                       write the replay as a timeline, graphs or findings\n"
    "  explain <finding id> <traces>...\n"
    "                       why a finding's two ops are unordered, and the missing edge\n"
    "  help options         every setting (STREAMRACE_OPTIONS key) with its default and\n"
    "                       environment variable\n"
    "\n"
    "`streamrace <command> --help` describes each command.\n";

// A replay holds every rank's trace file open at once, and the usual soft limit of 1,024 open
// files is below a large job's rank count: take what the hard limit allows. Not for `run`,
// whose job inherits the limits and must run as it would without us.
void allow_a_file_per_rank() {
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) != 0 || files.rlim_cur == files.rlim_max) return;
  files.rlim_cur = files.rlim_max;
  setrlimit(RLIMIT_NOFILE, &files);
}

} // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.empty() || args[0] == "-h" || args[0] == "--help" ||
        (args[0] == "help" && args.size() == 1)) {
      std::fputs(kHelp, args.empty() ? stderr : stdout);
      return args.empty() ? 2 : 0;
    }
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (args[0] == "report" || args[0] == "export" || args[0] == "explain") allow_a_file_per_rank();
    if (args[0] == "report") return streamrace::cli::report_command(rest);
    if (args[0] == "run") return streamrace::cli::run_command(rest);
    if (args[0] == "export") return streamrace::cli::export_command(rest);
    if (args[0] == "explain") return streamrace::cli::explain_command(rest);
    if (args[0] == "help") {
      if (args.size() != 2 || args[1] != "options")
        throw streamrace::cli::UsageError("'streamrace help' has one topic, 'options' (each "
                                          "command describes itself: streamrace <command> "
                                          "--help)");
      std::printf("Settings, as STREAMRACE_OPTIONS=\"key=value:key=value\" or --options= (pairs "
                  "separated by ':', ',' or whitespace; quote a value that holds them with '...' "
                  "or \"...\"), by the part they configure:\n%s",
                  streamrace::options_help().c_str());
      return 0;
    }
    throw streamrace::cli::UsageError("unknown command '" + args[0] + "' (see streamrace --help)");
  } catch (const streamrace::cli::UsageError& error) {
    std::fprintf(stderr, "streamrace: error: %s\n", error.what());
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "streamrace: error: %s\n", error.what());
    return 1;
  }
}
