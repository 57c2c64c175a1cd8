// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "export_command.h"

#include "arguments.h"
#include "output_file.h"
#include "usage_error.h"

#include "streamrace/replay/replay.h"
#include "streamrace/replay/sync_advice.h"
#include "streamrace/report/dot_export.h"
#include "streamrace/report/finding_id.h"
#include "streamrace/report/finding_json.h"
#include "streamrace/report/finding_sarif.h"
#include "streamrace/report/perfetto_export.h"

#include <cstdio>
#include <iostream>
#include <optional>

namespace streamrace::cli {

namespace {

constexpr const char* kHelp =
    "usage: streamrace export --format=perfetto|dot|json|sarif [options]\n"
    "                         <trace files or directories>...\n"
    "\n"
    "Replays the traces (as `streamrace report` does) and writes them in another format:\n"
    "  perfetto  Chrome trace-event JSON for ui.perfetto.dev and chrome://tracing: a process\n"
    "            per rank, a track per stream and host thread, ops as slices, the engine's\n"
    "            happens-before edges as flow arrows, each finding marked on both ops\n"
    "  dot       Graphviz: the happens-before graph around each finding, the missing edge\n"
    "            dashed red\n"
    "  json      the findings as `streamrace report --format=json` writes them\n"
    "  sarif     the findings as SARIF 2.1.0 (GitHub code scanning)\n"
    "\n"
    "options:\n"
    "  --format=FORMAT      one of the above (required)\n"
    "  --output=FILE        write to FILE instead of standard output\n"
    "  --finding=ID         only this finding (its SR-... id, or its number in the report)\n"
    "  --source-root=DIR    SARIF: name files under DIR relative to it (%SRCROOT%)\n"
    "  --advise=sync        add the verdict on each synchronization, as `streamrace report\n"
    "                       --advise=sync` gives it: Perfetto marks each execution, JSON and\n"
    "                       SARIF hold it as the report does (not for dot)\n"
    "  --options=K=V:...    settings, over those of $STREAMRACE_OPTIONS\n"
    "  -h, --help           this text\n"
    "\n"
    "Options take their value after '=' or as the next argument. Exit status 0 once written,\n"
    "whatever was found; 1 for unreadable input, 2 for a command line it cannot act on.\n";

} // namespace

int export_command(const std::vector<std::string>& args) {
  const Arguments arguments = Arguments::parse(
      args, "export", {"format", "output", "finding", "source-root", "options", "advise"});
  if (arguments.help) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  const std::string format = arguments.value("format");
  if (format.empty())
    throw UsageError("'streamrace export' needs --format=perfetto, dot, json or sarif");
  if (format != "perfetto" && format != "dot" && format != "json" && format != "sarif")
    throw UsageError("unknown export format '" + format +
                     "' (expected perfetto, dot, json or sarif)");
  const bool advise = arguments.values.contains("advise");
  if (advise && arguments.value("advise") != "sync")
    throw UsageError("unknown advice '" + arguments.value("advise") + "' (expected sync)");
  if (advise && format == "dot")
    throw UsageError("--advise=sync has no place in a dot graph (perfetto, json or sarif take it)");
  const Settings settings = command_settings(arguments);
  if (arguments.positional.empty())
    throw UsageError("'streamrace export' needs trace files or directories");
  std::optional<Suppressions> suppressions = load_suppressions(settings);
  std::optional<OutputFile> output;
  if (arguments.values.contains("output"))
    output.emplace(arguments.value("output"), arguments.positional);

  const Recording recording =
      format == "perfetto" || format == "dot" ? Recording::Graph : Recording::FindingsOnly;
  const Replay replay = replay_traces(arguments.positional, settings, recording);
  std::vector<Finding> findings = unsuppressed_findings(replay, suppressions).findings;
  if (arguments.values.contains("finding"))
    findings = {
        finding_by_id(findings, *replay.engine, replay.symbols, arguments.value("finding"))};
  std::optional<SyncAdvice> advice;
  if (advise) advice = advise_synchronizations(arguments.positional, settings, suppressions);

  std::string text;
  if (format == "perfetto") {
    // Far larger than anything the replay keeps: written as it is made.
    std::ostream& out = output ? output->stream() : std::cout;
    write_perfetto_trace(replay.recorded(), findings, out,
                         advice ? sync_advice_marks(*advice) : std::vector<PerfettoSiteMark>());
    out.flush();
  } else if (format == "dot") {
    for (const Finding& finding : findings)
      text += finding_dot(replay.recorded(), finding);
  } else if (format == "json") {
    text = findings_json(findings, *replay.engine, replay.symbols, replay.sources,
                         advice ? sync_advice_json(*advice) : std::string());
  } else {
    text = findings_sarif(findings, *replay.engine, replay.symbols,
                          SarifOptions{arguments.value("source-root")},
                          advice ? sync_advice_sarif(*advice) : SarifNotes{});
  }
  if (!output) {
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  if (format == "perfetto")
    output->finish();
  else
    output->write(text);
  std::printf("streamrace: wrote %s (%llu events, %zu finding%s) to %s\n", format.c_str(),
              static_cast<unsigned long long>(replay.events), findings.size(),
              findings.size() == 1 ? "" : "s", output->path().c_str());
  return 0;
}

} // namespace streamrace::cli
