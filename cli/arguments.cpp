// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "arguments.h"

#include "usage_error.h"

#include <stdexcept>

namespace streamrace::cli {
namespace {

UsageError given_twice(const std::string& name, const std::string& first,
                       const std::string& second) {
  return UsageError("option '--" + name + "' given twice ('" + first + "' and '" + second + "')");
}

} // namespace

Arguments Arguments::parse(const std::vector<std::string>& args, const std::string& command,
                           const std::set<std::string>& valued,
                           const std::set<std::string>& may_be_empty) {
  Arguments parsed;
  bool options_ended = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (options_ended || arg.size() < 2 || arg[0] != '-') {
      parsed.positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      options_ended = true; // what follows is input, even when it starts with a dash
      continue;
    }
    if (arg == "-h" || arg == "--help") {
      parsed.help = true;
      continue;
    }
    const std::size_t equals = arg.find('=');
    const std::string name =
        arg.substr(2, equals == std::string::npos ? std::string::npos : equals - 2);
    if (arg.rfind("--", 0) != 0 || !valued.contains(name))
      throw UsageError("unknown option '" + arg.substr(0, equals) + "' for 'streamrace " + command +
                       "' (see --help)");
    std::string value;
    if (equals != std::string::npos) {
      value = arg.substr(equals + 1);
    } else {
      if (i + 1 == args.size()) throw UsageError("option '--" + name + "' needs a value");
      value = args[++i];
    }
    // An empty file name or format is a slip (an unset shell variable, most often) that would
    // otherwise surface as a stranger error further on.
    if (value.empty() && !may_be_empty.contains(name))
      throw UsageError("option '--" + name + "' needs a value, got an empty one");
    // A repeated option would silently drop one of the two values: say which were given.
    if (auto [it, inserted] = parsed.values.emplace(name, value); !inserted)
      throw given_twice(name, it->second, value);
  }
  return parsed;
}

std::string Arguments::value(const std::string& name, const std::string& fallback) const {
  auto it = values.find(name);
  return it == values.end() ? fallback : it->second;
}

Settings command_settings(const Arguments& arguments, Settings settings) {
  if (std::string error = apply_environment(settings); !error.empty()) throw UsageError(error);
  if (auto it = arguments.values.find("options"); it != arguments.values.end())
    if (std::string error = parse_settings(it->second, settings); !error.empty())
      throw UsageError(error);
  return settings;
}

std::optional<Suppressions> load_suppressions(const Settings& settings) {
  if (settings.report.suppressions.empty()) return std::nullopt;
  try {
    return Suppressions::load(settings.report.suppressions);
  } catch (const std::invalid_argument& error) {
    throw UsageError(error.what());
  }
}

} // namespace streamrace::cli
