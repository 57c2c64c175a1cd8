#include "report_command.h"

#include "replay.h"
#include "usage_error.h"

#include "streamrace/report/finding_json.h"
#include "streamrace/report/finding_text.h"
#include "streamrace/report/suppressions.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <stdexcept>

namespace streamrace::cli {

namespace {

constexpr const char* kHelp =
    "usage: streamrace report [options] <trace files or directories>...\n"
    "\n"
    "Merges the per-process trace files (a directory stands for its *.srtrace files), replays\n"
    "them through the happens-before engine and prints every finding.\n"
    "\n"
    "options:\n"
    "  --format=text|json   report format on standard output (default text)\n"
    "  --output=FILE        also write the JSON report to FILE\n"
    "  --options=K=V:...    engine options (default: $STREAMRACE_OPTIONS); see\n"
    "                       `streamrace help options`\n"
    "  --exitcode=N         exit status when findings remain (default 66)\n"
    "  -h, --help           this text\n";

} // namespace

int report_command(const std::vector<std::string>& args) {
  std::string format = "text";
  std::string output;
  int exitcode = 66;
  Options options;
  if (const char* env = std::getenv("STREAMRACE_OPTIONS")) {
    if (std::string error = parse_options(env, options); !error.empty())
      throw UsageError("STREAMRACE_OPTIONS: " + error);
  }
  std::vector<std::string> inputs;
  for (const std::string& arg : args) {
    if (arg == "-h" || arg == "--help") {
      std::fputs(kHelp, stdout);
      return 0;
    }
    if (arg.rfind("--format=", 0) == 0) {
      format = arg.substr(9);
      if (format != "text" && format != "json")
        throw UsageError("unknown report format '" + format + "' (expected text or json)");
    } else if (arg.rfind("--output=", 0) == 0) {
      output = arg.substr(9);
    } else if (arg.rfind("--options=", 0) == 0) {
      if (std::string error = parse_options(arg.substr(10), options); !error.empty())
        throw UsageError(error);
    } else if (arg.rfind("--exitcode=", 0) == 0) {
      try {
        exitcode = std::stoi(arg.substr(11));
      } catch (const std::exception&) {
        throw UsageError("--exitcode needs a number, got '" + arg.substr(11) + "'");
      }
    } else if (arg.rfind("-", 0) == 0) {
      throw UsageError("unknown option '" + arg + "' for 'streamrace report' (see --help)");
    } else {
      inputs.push_back(arg);
    }
  }
  if (inputs.empty()) throw UsageError("'streamrace report' needs trace files or directories");

  std::optional<Suppressions> suppressions;
  if (!options.suppressions.empty()) {
    try {
      suppressions = Suppressions::load(options.suppressions);
    } catch (const std::invalid_argument& error) {
      throw UsageError(error.what());
    }
  }
  Replay replay = replay_traces(inputs, options);
  std::vector<Finding> findings;
  std::uint64_t suppressed = 0;
  for (const Finding& finding : replay.engine->findings().all()) {
    if (suppressions && suppressions->suppresses(finding, *replay.engine, replay.symbols))
      ++suppressed;
    else
      findings.push_back(finding);
  }
  const std::string json = findings_json(findings, *replay.engine, replay.symbols, replay.sources);
  if (format == "json") {
    std::fputs(json.c_str(), stdout);
  } else {
    std::printf("streamrace: replayed %llu events from %zu trace file%s\n",
                static_cast<unsigned long long>(replay.events), replay.sources.size(),
                replay.sources.size() == 1 ? "" : "s");
    for (const Finding& finding : findings)
      std::fputs(describe_finding(finding, *replay.engine, replay.symbols).c_str(), stdout);
    std::printf("%s\n", summary_line(findings).c_str());
    if (suppressed) {
      std::printf("streamrace: %llu finding%s suppressed:", static_cast<unsigned long long>(suppressed),
                  suppressed == 1 ? "" : "s");
      for (const Suppressions::Rule& rule : suppressions->rules())
        if (rule.hits) std::printf(" %llu %s:%s;", static_cast<unsigned long long>(rule.hits),
                                   rule.type.c_str(), rule.pattern.c_str());
      std::printf("\n");
    }
  }
  if (!output.empty()) {
    std::ofstream file(output);
    if (!(file << json)) throw std::runtime_error("cannot write report file '" + output + "'");
  }
  return findings.empty() ? 0 : exitcode;
}

} // namespace streamrace::cli
