// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Every setting, generated from the one list options.inc so that the structs, the defaults, the
// parser and the help never disagree. Users write them as STREAMRACE_OPTIONS="key=value:..."
// (TSan style), `--options=` of the commands, or, for a few, an environment alias.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace streamrace {

// The engine's options: all the Engine is given.
struct Options {
#define STREAMRACE_ENGINE_OPTION(type, name, default_value, alias, help) type name = default_value;
#include "streamrace/engine/options.inc"
};

struct ReportOptions {
#define STREAMRACE_REPORT_OPTION(type, name, default_value, alias, help) type name = default_value;
#include "streamrace/engine/options.inc"
};

struct TracerOptions {
#define STREAMRACE_TRACER_OPTION(type, name, default_value, alias, help) type name = default_value;
#include "streamrace/engine/options.inc"
};

struct RunOptions {
#define STREAMRACE_RUN_OPTION(type, name, default_value, alias, help) type name = default_value;
#include "streamrace/engine/options.inc"
};

// Every setting, by the part it configures (the member names are options.inc's parts).
struct Settings {
  Options engine;
  ReportOptions report;
  TracerOptions tracer;
  RunOptions run;
};

// The variable users write settings in.
inline constexpr const char* kOptionsVariable = "STREAMRACE_OPTIONS";

// The one parser. Applies "key=value" pairs to `settings`, in order (a later pair wins). Pairs
// are separated by ':', ',' or whitespace; a value may be quoted with '...' or "..." to hold
// those characters (`launcher='mpirun -np 8'`). Returns an empty string on success, else a
// message naming the offending key or value; `settings` keeps every pair before the error.
std::string parse_settings(std::string_view text, Settings& settings);

// What the environment sets, applied to `settings`: STREAMRACE_OPTIONS, then each alias that
// is set and not empty. `lookup` reads one variable (getenv; tests pass their own). Returns an
// empty string, or the error, prefixed with the variable it came from.
using EnvironmentLookup = std::function<const char*(const char*)>;
std::string apply_environment(Settings& settings, const EnvironmentLookup& lookup);
// The same from this process's environment: the one place the settings' variables are read.
std::string apply_environment(Settings& settings);

// The settings that differ from the defaults, as parse_settings reads them back ("" for none);
// how `streamrace run` hands the settings it resolved to the traced processes. Throws
// std::invalid_argument for a string value holding both quote characters.
std::string settings_text(const Settings& settings);

// Every setting by part: a heading line per part, then one entry per setting:
// "  name (type, default value)", then its help indented, with its alias if it has one.
std::string options_help();

} // namespace streamrace
