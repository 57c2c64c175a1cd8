// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "explain_command.h"

#include "arguments.h"
#include "usage_error.h"

#include "streamrace/replay/replay.h"
#include "streamrace/report/explain.h"
#include "streamrace/report/finding_id.h"

#include <cstdio>

namespace streamrace::cli {

namespace {

constexpr const char* kHelp =
    "usage: streamrace explain [options] <finding id> <trace files or directories>...\n"
    "\n"
    "Replays the traces and tells why the finding's two ops are unordered: the latest point of\n"
    "the first op's stream that the second op is ordered after, the chain of happens-before\n"
    "edges (event waits, host synchronizations, collectives, ...) that orders it there, and the\n"
    "edge that is missing. The id is the [SR-xxxxxxxx] of a report's header, or the finding's\n"
    "number in the report.\n"
    "\n"
    "options:\n"
    "  --options=K=V:...    settings, over those of $STREAMRACE_OPTIONS\n"
    "  -h, --help           this text\n";

} // namespace

int explain_command(const std::vector<std::string>& args) {
  const Arguments arguments = Arguments::parse(args, "explain", {"options"});
  if (arguments.help) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  const Settings settings = command_settings(arguments);
  if (arguments.positional.size() < 2)
    throw UsageError("'streamrace explain' needs a finding id and trace files or directories");
  std::optional<Suppressions> suppressions = load_suppressions(settings);
  const std::vector<std::string> inputs(arguments.positional.begin() + 1,
                                        arguments.positional.end());
  const Replay replay = replay_traces(inputs, settings, Recording::Graph);
  const std::vector<Finding> findings = unsuppressed_findings(replay, suppressions).findings;
  const Finding& finding =
      finding_by_id(findings, *replay.engine, replay.symbols, arguments.positional[0]);
  std::fputs(explain_finding(replay.recorded(), finding).c_str(), stdout);
  return 0;
}

} // namespace streamrace::cli
