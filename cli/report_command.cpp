// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "report_command.h"

#include "arguments.h"
#include "exit_status.h"
#include "output_file.h"
#include "usage_error.h"

#include "streamrace/replay/settle.h"
#include "streamrace/replay/sync_advice.h"
#include "streamrace/report/finding_json.h"
#include "streamrace/report/finding_sarif.h"

#include <charconv>
#include <cstdio>
#include <optional>

namespace streamrace::cli {

namespace {

constexpr const char* kHelp =
    "usage: streamrace report [options] <trace files or directories>...\n"
    "\n"
    "Merges the per-process trace files (a directory stands for its *.srtrace files), replays\n"
    "them through the happens-before engine and prints every finding. From settle_from\n"
    "processes on (512), the job is settled: every process replayed alone on every core, then\n"
    "one pass that checks one process per finding against the whole job (docs/scaling.md).\n"
    "\n"
    "options:\n"
    "  --format=text|json|sarif\n"
    "                       report format on standard output (default text)\n"
    "  --output=FILE        also write the report to FILE: JSON for text and json, SARIF for\n"
    "                       sarif\n"
    "  --source-root=DIR    SARIF: name files under DIR relative to it (%SRCROOT%)\n"
    "  --options=K=V:...    settings, over those of $STREAMRACE_OPTIONS; see\n"
    "                       `streamrace help options`\n"
    "  --exitcode=N         exit status when findings remain (default 66); with none, 67\n"
    "                       when access checking paused in the run (block_on_full=0)\n"
    "  --advise=sync        judge every synchronization the run executed by replaying the\n"
    "                       run without it, one call site at a time: a Synchronization\n"
    "                       section in text, a \"synchronization\" member in JSON, a note\n"
    "                       per site in SARIF; suppressions' sync: lines hide sites\n"
    "  -h, --help           this text\n"
    "\n"
    "Each finding's header ends with its id ([SR-xxxxxxxx]), which `streamrace explain` and\n"
    "`streamrace export --finding` take.\n";

} // namespace

int report_command(const std::vector<std::string>& args) {
  const Arguments arguments = Arguments::parse(
      args, "report", {"format", "output", "options", "exitcode", "source-root", "advise"});
  if (arguments.help) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  const std::string format = arguments.value("format", "text");
  if (format != "text" && format != "json" && format != "sarif")
    throw UsageError("unknown report format '" + format + "' (expected text, json or sarif)");
  int exitcode = kFindingsStatus;
  if (arguments.values.contains("exitcode")) {
    // A process exit status is one byte: 300 would reach the shell as 44, -1 as 255.
    const std::string text = arguments.value("exitcode");
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), exitcode);
    if (error != std::errc() || end != text.data() + text.size() || exitcode < 0 || exitcode > 255)
      throw UsageError("--exitcode needs a number from 0 to 255, got '" + text + "'");
  }
  const bool advise = arguments.values.contains("advise");
  if (advise && arguments.value("advise") != "sync")
    throw UsageError("unknown advice '" + arguments.value("advise") + "' (expected sync)");
  const Settings settings = command_settings(arguments);
  if (arguments.positional.empty())
    throw UsageError("'streamrace report' needs trace files or directories");
  std::optional<Suppressions> suppressions = load_suppressions(settings);
  std::optional<OutputFile> output;
  if (arguments.values.contains("output"))
    output.emplace(arguments.value("output"), arguments.positional);

  const Replay replay = replay_for_report(arguments.positional, settings);
  const ReportedFindings reported = unsuppressed_findings(replay, suppressions);
  const std::vector<Finding>& findings = reported.findings;
  std::optional<SyncAdvice> advice;
  if (advise) advice = advise_synchronizations(arguments.positional, settings, suppressions);
  const std::string file_report =
      format == "sarif" ? findings_sarif(findings, *replay.engine, replay.symbols,
                                         SarifOptions{arguments.value("source-root")},
                                         advice ? sync_advice_sarif(*advice) : SarifNotes{})
                        : findings_json(findings, *replay.engine, replay.symbols, replay.sources,
                                        advice ? sync_advice_json(*advice) : std::string());
  if (format != "text") {
    std::fputs(file_report.c_str(), stdout);
  } else {
    std::fputs(report_text(replay, reported, suppressions).c_str(), stdout);
    if (advice) std::fputs(sync_advice_text(*advice).c_str(), stdout);
  }
  if (output) output->write(file_report);
  return replay_status(!findings.empty(), *replay.engine, exitcode);
}

} // namespace streamrace::cli
