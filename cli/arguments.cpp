#include "arguments.h"

#include "usage_error.h"

#include <cstdlib>
#include <stdexcept>

namespace streamrace::cli {

Arguments Arguments::parse(const std::vector<std::string>& args, const std::string& command,
                           const std::set<std::string>& valued) {
  Arguments parsed;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      parsed.help = true;
      continue;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      parsed.positional.push_back(arg);
      continue;
    }
    const std::size_t equals = arg.find('=');
    const std::string name =
        arg.substr(2, equals == std::string::npos ? std::string::npos : equals - 2);
    if (arg.rfind("--", 0) != 0 || !valued.contains(name))
      throw UsageError("unknown option '" + arg.substr(0, equals) + "' for 'streamrace " + command +
                       "' (see --help)");
    if (equals != std::string::npos) {
      parsed.values[name] = arg.substr(equals + 1);
    } else {
      if (i + 1 == args.size()) throw UsageError("option '--" + name + "' needs a value");
      parsed.values[name] = args[++i];
    }
  }
  return parsed;
}

std::string Arguments::value(const std::string& name, const std::string& fallback) const {
  auto it = values.find(name);
  return it == values.end() ? fallback : it->second;
}

Options engine_options(const Arguments& arguments) {
  Options options;
  if (const char* env = std::getenv("STREAMRACE_OPTIONS")) {
    if (std::string error = parse_options(env, options); !error.empty())
      throw UsageError("STREAMRACE_OPTIONS: " + error);
  }
  if (auto it = arguments.values.find("options"); it != arguments.values.end())
    if (std::string error = parse_options(it->second, options); !error.empty())
      throw UsageError(error);
  return options;
}

std::optional<Suppressions> load_suppressions(const Options& options) {
  if (options.suppressions.empty()) return std::nullopt;
  try {
    return Suppressions::load(options.suppressions);
  } catch (const std::invalid_argument& error) {
    throw UsageError(error.what());
  }
}

} // namespace streamrace::cli
