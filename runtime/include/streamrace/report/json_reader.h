// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// JSON read back: the one reader for the JSON files streamrace takes as input (the analyzer's
// kernel summaries). Objects, arrays, strings, numbers and literals; \u escapes outside ASCII
// are read as '?'. json_text.h writes JSON.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace streamrace {

// A named member is its own struct, not a std::pair: a pair of an incomplete JsonValue cannot be
// a member of JsonValue (libstdc++ checks completeness when clang instantiates it).
struct JsonMember;
struct JsonValue {
  enum class Kind { Null, Bool, Number, String, Array, Object } kind = Kind::Null;
  double number = 0; // Number; Bool as 1 or 0
  std::string string;
  std::vector<JsonValue> array;
  std::vector<JsonMember> object; // in document order
  // The first member of that name, or null.
  const JsonValue* member(std::string_view name) const;
};
struct JsonMember {
  std::string name;
  JsonValue value;
};

// The document `text` holds, or nullopt with `error` saying what is wrong and at which byte.
std::optional<JsonValue> parse_json(std::string_view text, std::string& error);

} // namespace streamrace
