// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The benches' numeric arguments: atoi would read "--help" or "12x" as a number.
#pragma once

#include <charconv>
#include <optional>
#include <string_view>
#include <system_error>

// The whole of `text` as a decimal number of type Number, or nothing.
template <typename Number> std::optional<Number> whole_number(std::string_view text) {
  Number value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}
