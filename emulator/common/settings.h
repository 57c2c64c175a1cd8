// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Typed reads of the emulator's settings (settings.inc). A value that is set but malformed is a
// user error: one line names the variable, the value and the form expected, and the program
// exits with status 2, so a typo never changes what the emulator does silently.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace streamrace::emu {

enum class Setting {
#define STREAMRACE_EMU_SETTING(identifier, variable, kind, fallback, form, help) identifier,
#include "settings.inc"
#undef STREAMRACE_EMU_SETTING
};

// "STREAMRACE_EMU_<VARIABLE>".
const char* settingVariable(Setting setting);

// The value as given; unset and empty are both "not given".
std::optional<std::string> settingText(Setting setting);

// A Count or Whole setting's value, or `fallback` when it is not given.
std::int64_t settingInteger(Setting setting, std::int64_t fallback);

// A Number setting's value, or `fallback` when it is not given.
double settingNumber(Setting setting, double fallback);

// For the owners of Text settings, on a value they cannot parse.
[[noreturn]] void rejectSetting(Setting setting, std::string_view value);

// Every setting with its default, form and help, for --help.
std::string settingsHelp();

} // namespace streamrace::emu
