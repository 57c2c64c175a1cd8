// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/engine/options.h"

#include <charconv>
#include <sstream>

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

bool is_separator(char c) {
  return c == ':' || c == ' ' || c == '\t' || c == '\n' || c == ',';
}

} // namespace

std::string parse_options(std::string_view text, Options& options) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    while (pos < text.size() && is_separator(text[pos]))
      ++pos;
    std::size_t end = pos;
    while (end < text.size() && !is_separator(text[end]))
      ++end;
    if (end == pos) break;
    const std::string_view pair = text.substr(pos, end - pos);
    pos = end;
    const std::size_t eq = pair.find('=');
    if (eq == std::string_view::npos)
      return "option '" + std::string(pair) + "' has no value (expected key=value)";
    const std::string_view key = pair.substr(0, eq);
    const std::string_view value = pair.substr(eq + 1);
    bool known = false;
#define STREAMRACE_OPTION(type, name, default_value, help)                                         \
  if (key == #name) {                                                                              \
    known = true;                                                                                  \
    if (!parse_value(value, options.name))                                                         \
      return "option '" #name "' expects a " + type_name(options.name) + ", got '" +               \
             std::string(value) + "'";                                                             \
  }
#include "streamrace/engine/options.inc"
#undef STREAMRACE_OPTION
    if (!known) return "unknown option '" + std::string(key) + "' (see the options list in --help)";
  }
  return {};
}

std::string options_help() {
  std::ostringstream out;
  const Options defaults;
#define STREAMRACE_OPTION(type, name, default_value, help)                                         \
  out << "  " #name " (" << type_name(defaults.name) << ", default " << value_text(defaults.name)  \
      << ")\n      " help "\n";
#include "streamrace/engine/options.inc"
#undef STREAMRACE_OPTION
  return out.str();
}

} // namespace streamrace
