// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The subcommands' shared command-line handling: options as `--name=value` or `--name value`,
// the rest positional (all of it after `--`); unknown, repeated or empty options are usage
// errors naming the command.
#pragma once

#include "streamrace/engine/options.h"
#include "streamrace/report/suppressions.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace streamrace::cli {

struct Arguments {
  bool help = false;
  std::map<std::string, std::string> values; // by option name without the dashes
  std::vector<std::string> positional;

  // `valued` lists the options that take a value (without dashes); `may_be_empty` those of
  // them for which an empty value means something (an empty option list, no launcher).
  static Arguments parse(const std::vector<std::string>& args, const std::string& command,
                         const std::set<std::string>& valued,
                         const std::set<std::string>& may_be_empty = {"options"});
  std::string value(const std::string& name, const std::string& fallback = "") const;
};

// The settings of a command: the environment's (STREAMRACE_OPTIONS, then the aliases), then
// --options, key by key, over `defaults` (a command's own defaults, which the user's settings
// override); bad keys or values are usage errors.
Settings command_settings(const Arguments& arguments, Settings defaults = {});
// The suppressions file the settings name, if any.
std::optional<Suppressions> load_suppressions(const Settings& settings);

} // namespace streamrace::cli
