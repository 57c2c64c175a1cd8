// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/engine/options.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <type_traits>

namespace streamrace {

namespace {

bool parse_value(std::string_view text, bool& out) {
  if (text == "1" || text == "true" || text == "yes") {
    out = true;
    return true;
  }
  if (text == "0" || text == "false" || text == "no") {
    out = false;
    return true;
  }
  return false;
}

bool parse_value(std::string_view text, std::uint64_t& out) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size() && !text.empty();
}

bool parse_value(std::string_view text, std::string& out) {
  out = std::string(text);
  return true;
}

std::string type_name(bool) {
  return "bool";
}
std::string type_name(const std::string&) {
  return "string";
}
std::string value_text(const std::string& value) {
  return value.empty() ? "none" : value;
}
std::string type_name(std::uint64_t) {
  return "uint";
}
std::string value_text(bool value) {
  return value ? "true" : "false";
}
std::string value_text(std::uint64_t value) {
  return std::to_string(value);
}

// A value as parse_value reads it back (value_text shows an empty string as "none").
std::string written_value(const std::string& value) {
  return value;
}
std::string written_value(bool value) {
  return value_text(value);
}
std::string written_value(std::uint64_t value) {
  return value_text(value);
}

// The values a uint setting accepts (options.inc's STREAMRACE_OPTION_RANGE).
struct ValueRange {
  std::uint64_t lowest = 0;
  std::uint64_t highest = std::numeric_limits<std::uint64_t>::max();
  bool powers_of_two = false;
};

struct BoundedOption {
  std::string_view name;
  ValueRange range;
};

constexpr BoundedOption kBoundedOptions[] = {
#define STREAMRACE_OPTION_RANGE(name, ...) {#name, ValueRange{__VA_ARGS__}},
#include "streamrace/engine/options.inc"
};

constexpr bool is_uint_option(std::string_view name) {
#define STREAMRACE_OPTION(part, type, option, default_value, alias, help)                          \
  if (name == #option) return std::is_same_v<type, std::uint64_t>;
#include "streamrace/engine/options.inc"
#undef STREAMRACE_OPTION
  return false;
}

// A range under a misspelled name would never be checked.
static_assert(std::ranges::all_of(kBoundedOptions, [](const BoundedOption& option) {
  return is_uint_option(option.name);
}));

const ValueRange* range_of(std::string_view name) {
  for (const BoundedOption& option : kBoundedOptions)
    if (option.name == name) return &option.range;
  return nullptr;
}

// "a power of two from 2 to 1048576", "at least 1": the range as the help and errors say it.
std::string accepted_values(const ValueRange& range) {
  const std::string bounds =
      range.highest == std::numeric_limits<std::uint64_t>::max()
          ? "at least " + std::to_string(range.lowest)
          : "from " + std::to_string(range.lowest) + " to " + std::to_string(range.highest);
  return range.powers_of_two ? "a power of two " + bounds : bounds;
}

// Why option `name` does not accept `value` ("" when it does).
std::string out_of_range(std::string_view name, std::uint64_t value) {
  const ValueRange* range = range_of(name);
  if (range == nullptr) return {};
  if (value >= range->lowest && value <= range->highest &&
      (!range->powers_of_two || std::has_single_bit(value)))
    return {};
  return "option '" + std::string(name) + "' accepts " + accepted_values(*range) + ", got '" +
         std::to_string(value) + "'";
}
std::string out_of_range(std::string_view, bool) {
  return {};
}
std::string out_of_range(std::string_view, const std::string&) {
  return {};
}

bool is_separator(char c) {
  return c == ':' || c == ' ' || c == '\t' || c == '\n' || c == ',';
}

bool is_quote(char c) {
  return c == '\'' || c == '"';
}

// `value` as parse_settings reads it back: quoted when it holds a separator or starts with a
// quote.
std::string quoted_value(std::string_view key, const std::string& value) {
  const bool plain = !value.empty() && !is_quote(value.front()) &&
                     std::none_of(value.begin(), value.end(), is_separator);
  if (plain) return value;
  for (const char quote : {'\'', '"'})
    if (value.find(quote) == std::string::npos) return quote + value + quote;
  throw std::invalid_argument("option '" + std::string(key) +
                              "' holds both quote characters; it cannot be passed on: " + value);
}

// What the help says before each part's settings.
std::string_view part_heading(std::string_view part) {
  if (part == "engine") return "engine (the happens-before engine: every command and the tracer)";
  if (part == "report") return "report (every report: the commands' and the tracer's own)";
  if (part == "tracer") return "tracer (libstreamrace.so, in the traced processes)";
  return "run (streamrace run)";
}

// Sets `key` to `value`; an error names the key or the value.
std::string apply(std::string_view key, std::string_view value, Settings& settings) {
#define STREAMRACE_OPTION(part, type, name, default_value, alias, help)                            \
  if (key == #name) {                                                                              \
    if (!parse_value(value, settings.part.name))                                                   \
      return "option '" #name "' expects a " + type_name(settings.part.name) + ", got '" +         \
             std::string(value) + "'";                                                             \
    return out_of_range(#name, settings.part.name);                                                \
  }
#include "streamrace/engine/options.inc"
#undef STREAMRACE_OPTION
  return "unknown option '" + std::string(key) + "' (see the options list in --help)";
}

} // namespace

std::string parse_settings(std::string_view text, Settings& settings) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    while (pos < text.size() && is_separator(text[pos]))
      ++pos;
    if (pos == text.size()) break;
    std::size_t end = pos;
    while (end < text.size() && !is_separator(text[end]) && text[end] != '=')
      ++end;
    const std::string_view key = text.substr(pos, end - pos);
    if (end == text.size() || text[end] != '=')
      return "option '" + std::string(key) + "' has no value (expected key=value)";
    std::size_t start = end + 1;
    std::string_view value;
    if (start < text.size() && is_quote(text[start])) {
      const std::size_t close = text.find(text[start], start + 1);
      if (close == std::string_view::npos)
        return "option '" + std::string(key) + "': the value's quote " + text[start] +
               " is never closed";
      value = text.substr(start + 1, close - start - 1);
      end = close + 1;
      if (end < text.size() && !is_separator(text[end]))
        return "option '" + std::string(key) + "': text right after the quoted value";
    } else {
      end = start;
      while (end < text.size() && !is_separator(text[end]))
        ++end;
      value = text.substr(start, end - start);
    }
    pos = end;
    if (std::string error = apply(key, value, settings); !error.empty()) return error;
  }
  return {};
}

std::string apply_environment(Settings& settings, const EnvironmentLookup& lookup) {
  if (const char* text = lookup(kOptionsVariable))
    if (std::string error = parse_settings(text, settings); !error.empty())
      return std::string(kOptionsVariable) + ": " + error;
  // An alias stands for its one setting: its whole value, separators and all.
#define STREAMRACE_OPTION(part, type, name, default_value, alias, help)                            \
  if constexpr (!std::string_view(alias).empty()) {                                                \
    if (const char* value = lookup(alias); value != nullptr && *value != '\0') {                   \
      if (!parse_value(value, settings.part.name))                                                 \
        return std::string(alias) + ": expects a " + type_name(settings.part.name) + ", got '" +   \
               value + "'";                                                                        \
      if (std::string error = out_of_range(#name, settings.part.name); !error.empty())             \
        return std::string(alias) + ": " + error;                                                  \
    }                                                                                              \
  }
#include "streamrace/engine/options.inc"
#undef STREAMRACE_OPTION
  return {};
}

std::string settings_text(const Settings& settings) {
  const Settings defaults;
  std::string text;
#define STREAMRACE_OPTION(part, type, name, default_value, alias, help)                            \
  if (settings.part.name != defaults.part.name)                                                    \
    text += (text.empty() ? "" : ":") + std::string(#name "=") +                                   \
            quoted_value(#name, written_value(settings.part.name));
#include "streamrace/engine/options.inc"
#undef STREAMRACE_OPTION
  return text;
}

std::string apply_environment(Settings& settings) {
  return apply_environment(settings, [](const char* name) { return std::getenv(name); });
}

std::string options_help() {
  std::ostringstream out;
  const Settings defaults;
  std::string_view current_part;
#define STREAMRACE_OPTION(part, type, name, default_value, alias, help)                            \
  if (current_part != #part) out << part_heading(current_part = #part) << ":\n";                   \
  out << "  " #name " (" << type_name(defaults.part.name) << ", default "                          \
      << value_text(defaults.part.name) << ")\n      " help;                                       \
  if (const ValueRange* range = range_of(#name))                                                   \
    out << " (values: " << accepted_values(*range) << ")";                                         \
  if constexpr (!std::string_view(alias).empty())                                                  \
    out << "; or the environment variable " alias ", which wins over STREAMRACE_OPTIONS";          \
  out << "\n";
#include "streamrace/engine/options.inc"
#undef STREAMRACE_OPTION
  return out.str();
}

} // namespace streamrace
