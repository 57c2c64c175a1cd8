// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Engine options (STREAMRACE_OPTIONS="key=value:key=value", TSan style), generated from
// options.inc so that the struct, the defaults, the parser and the help never disagree.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace streamrace {

struct Options {
#define STREAMRACE_OPTION(type, name, default_value, help) type name = default_value;
#include "streamrace/engine/options.inc"
#undef STREAMRACE_OPTION
};

// Applies "key=value" pairs separated by ':' (or whitespace) to `options`. Returns an empty
// string on success, else a message naming the offending key or value; `options` keeps every
// pair before the error.
std::string parse_options(std::string_view text, Options& options);

// One line per option: name, type, default, help.
std::string options_help();

} // namespace streamrace
