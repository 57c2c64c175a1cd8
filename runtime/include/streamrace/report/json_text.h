// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// JSON string literals for the report writers (JSON, SARIF, Perfetto): one escaping routine.
#pragma once

#include <string>
#include <string_view>

namespace streamrace {

// `text` as a JSON string literal, quotes included.
std::string json_quote(std::string_view text);

} // namespace streamrace
