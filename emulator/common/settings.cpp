// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "settings.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace streamrace::emu {
namespace {

enum class Kind { Count, Whole, Number, Text };

struct Declaration {
  const char* variable;
  Kind kind;
  const char* fallback;
  const char* form;
  const char* help;
};

constexpr Declaration kDeclarations[] = {
#define STREAMRACE_EMU_SETTING(identifier, variable, kind, fallback, form, help)                   \
  {"STREAMRACE_EMU_" #variable, Kind::kind, fallback, form, help},
#include "settings.inc"
#undef STREAMRACE_EMU_SETTING
};

const Declaration& declaration(Setting setting) {
  return kDeclarations[static_cast<std::size_t>(setting)];
}

} // namespace

const char* settingVariable(Setting setting) {
  return declaration(setting).variable;
}

std::optional<std::string> settingText(Setting setting) {
  const char* value = std::getenv(declaration(setting).variable);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

void rejectSetting(Setting setting, std::string_view value) {
  const Declaration& declared = declaration(setting);
  std::fprintf(stderr, "streamrace emulator: %s=%.*s is invalid: expected %s\n", declared.variable,
               static_cast<int>(value.size()), value.data(), declared.form);
  std::exit(2);
}

std::int64_t settingInteger(Setting setting, std::int64_t fallback) {
  const std::optional<std::string> text = settingText(setting);
  if (!text) return fallback;
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text->c_str(), &end, 10);
  const long long lowest = declaration(setting).kind == Kind::Count ? 1 : 0;
  if (errno != 0 || end == text->c_str() || *end != '\0' || value < lowest)
    rejectSetting(setting, *text);
  return value;
}

double settingNumber(Setting setting, double fallback) {
  const std::optional<std::string> text = settingText(setting);
  if (!text) return fallback;
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text->c_str(), &end);
  if (errno != 0 || end == text->c_str() || *end != '\0' || !(value >= 0))
    rejectSetting(setting, *text);
  return value;
}

std::string settingsHelp() {
  std::string text = "Emulator settings (environment variables, read once per process):\n";
  for (const Declaration& declared : kDeclarations) {
    text += "  " + std::string(declared.variable) + " (default " + declared.fallback + ")\n";
    text += "      Expects " + std::string(declared.form) + ". " + declared.help + "\n";
  }
  return text;
}

} // namespace streamrace::emu
