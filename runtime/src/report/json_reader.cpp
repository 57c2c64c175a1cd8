// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/report/json_reader.h"

#include <cctype>
#include <cstdlib>

namespace streamrace {

namespace {

class Reader {
public:
  explicit Reader(std::string_view text) : text_(text) {}

  std::optional<JsonValue> document() {
    std::optional<JsonValue> value = parse_value(0);
    skip_space();
    if (value && at_ != text_.size()) return fail("trailing text");
    return value;
  }
  const std::string& error() const { return error_; }

private:
  static constexpr int kMaxDepth = 64;

  std::nullopt_t fail(const std::string& why) {
    if (error_.empty()) error_ = why + " at byte " + std::to_string(at_);
    return std::nullopt;
  }
  void skip_space() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_])))
      ++at_;
  }
  bool consume(char c) {
    skip_space();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }

  std::optional<std::string> parse_string() {
    if (!consume('"')) return fail("expected a string");
    std::string out;
    while (at_ < text_.size() && text_[at_] != '"') {
      char c = text_[at_++];
      if (c == '\\') {
        if (at_ >= text_.size()) break;
        const char escaped = text_[at_++];
        switch (escaped) {
        case 'n':
          c = '\n';
          break;
        case 't':
          c = '\t';
          break;
        case 'r':
          c = '\r';
          break;
        case 'b':
          c = '\b';
          break;
        case 'f':
          c = '\f';
          break;
        case 'u': // names in summaries are ASCII; other code points are kept as '?'
          if (at_ + 4 > text_.size()) return fail("short \\u escape");
          at_ += 4;
          c = '?';
          break;
        default:
          c = escaped;
        }
      }
      out.push_back(c);
    }
    if (at_ >= text_.size()) return fail("unterminated string");
    ++at_;
    return out;
  }

  std::optional<JsonValue> parse_value(int depth) {
    if (depth > kMaxDepth) return fail("nesting too deep");
    skip_space();
    if (at_ >= text_.size()) return fail("unexpected end");
    JsonValue value;
    const char c = text_[at_];
    if (c == '{') {
      ++at_;
      value.kind = JsonValue::Kind::Object;
      if (consume('}')) return value;
      do {
        std::optional<std::string> key = parse_string();
        if (!key || !consume(':')) return fail("expected 'name': value");
        std::optional<JsonValue> member = parse_value(depth + 1);
        if (!member) return std::nullopt;
        value.object.push_back(JsonMember{std::move(*key), std::move(*member)});
      } while (consume(','));
      if (!consume('}')) return fail("expected , or }");
    } else if (c == '[') {
      ++at_;
      value.kind = JsonValue::Kind::Array;
      if (consume(']')) return value;
      do {
        std::optional<JsonValue> element = parse_value(depth + 1);
        if (!element) return std::nullopt;
        value.array.push_back(std::move(*element));
      } while (consume(','));
      if (!consume(']')) return fail("expected , or ]");
    } else if (c == '"') {
      std::optional<std::string> text = parse_string();
      if (!text) return std::nullopt;
      value.kind = JsonValue::Kind::String;
      value.string = std::move(*text);
    } else if (text_.substr(at_).starts_with("true") || text_.substr(at_).starts_with("false")) {
      value.kind = JsonValue::Kind::Bool;
      value.number = c == 't' ? 1 : 0;
      at_ += c == 't' ? 4 : 5;
    } else if (text_.substr(at_).starts_with("null")) {
      at_ += 4;
    } else {
      const std::size_t start = at_;
      while (at_ < text_.size() &&
             (std::isdigit(static_cast<unsigned char>(text_[at_])) ||
              std::string_view("+-.eE").find(text_[at_]) != std::string_view::npos))
        ++at_;
      if (start == at_) return fail("unexpected character");
      value.kind = JsonValue::Kind::Number;
      value.number = std::strtod(std::string(text_.substr(start, at_ - start)).c_str(), nullptr);
    }
    return value;
  }

  std::string_view text_;
  std::size_t at_ = 0;
  std::string error_;
};

} // namespace

const JsonValue* JsonValue::member(std::string_view name) const {
  for (const JsonMember& entry : object)
    if (entry.name == name) return &entry.value;
  return nullptr;
}

std::optional<JsonValue> parse_json(std::string_view text, std::string& error) {
  Reader reader(text);
  std::optional<JsonValue> document = reader.document();
  if (!document) error = reader.error();
  return document;
}

} // namespace streamrace
