// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "kernel_rules.h"

#include <cctype>
#include <charconv>
#include <fstream>
#include <sstream>

namespace streamrace::tracer {

namespace {

bool parse_number(std::string_view text, std::uint64_t& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

// "r", "w", "rw" or "-", then optionally "[N]" or "[pK*N]".
std::optional<ParameterRule> parse_entry(std::string_view entry, std::string& error) {
  ParameterRule rule;
  const std::size_t bracket = entry.find('[');
  const std::string_view mode = entry.substr(0, bracket);
  if (mode == "-") {
    rule.accessed = false;
  } else if (mode == "r") {
    rule.mode = AccessMode::Read;
  } else if (mode == "w") {
    rule.mode = AccessMode::Write;
  } else if (mode == "rw") {
    rule.mode = AccessMode::ReadWrite;
  } else {
    error = "'" + std::string(entry) + "' is not -, r, w or rw";
    return std::nullopt;
  }
  if (bracket == std::string_view::npos) return rule;
  if (!rule.accessed || entry.back() != ']') {
    error = "'" + std::string(entry) + "': an extent [N] or [pK*N] follows r, w or rw";
    return std::nullopt;
  }
  const std::string_view extent = entry.substr(bracket + 1, entry.size() - bracket - 2);
  if (extent.starts_with("p")) {
    const std::size_t star = extent.find('*');
    std::uint64_t parameter = 0;
    if (star == std::string_view::npos || !parse_number(extent.substr(1, star - 1), parameter) ||
        !parse_number(extent.substr(star + 1), rule.bytes)) {
      error = "'" + std::string(extent) + "' is not pK*N";
      return std::nullopt;
    }
    rule.extent = ExtentRule::ParameterTimes;
    rule.parameter = static_cast<std::size_t>(parameter);
  } else {
    if (!parse_number(extent, rule.bytes)) {
      error = "'" + std::string(extent) + "' is not a byte count";
      return std::nullopt;
    }
    rule.extent = ExtentRule::Bytes;
  }
  return rule;
}

// Just enough JSON for the summaries file: objects, arrays, strings, numbers, literals.
class JsonReader {
public:
  explicit JsonReader(std::string_view text) : text_(text) {}

  // A named member is its own struct, not a std::pair: a pair of an incomplete Value cannot be
  // a member of Value (libstdc++ checks completeness when clang instantiates it).
  struct Member;
  struct Value {
    enum class Kind { Null, Bool, Number, String, Array, Object } kind = Kind::Null;
    double number = 0;
    std::string string;
    std::vector<Value> array;
    std::vector<Member> object;
    const Value* member(std::string_view name) const;
  };
  struct Member {
    std::string name;
    Value value;
  };

  std::optional<Value> document() {
    std::optional<Value> value = parse_value(0);
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

  std::optional<Value> parse_value(int depth) {
    if (depth > kMaxDepth) return fail("nesting too deep");
    skip_space();
    if (at_ >= text_.size()) return fail("unexpected end");
    Value value;
    const char c = text_[at_];
    if (c == '{') {
      ++at_;
      value.kind = Value::Kind::Object;
      if (consume('}')) return value;
      do {
        std::optional<std::string> key = parse_string();
        if (!key || !consume(':')) return fail("expected 'name': value");
        std::optional<Value> member = parse_value(depth + 1);
        if (!member) return std::nullopt;
        value.object.push_back(Member{std::move(*key), std::move(*member)});
      } while (consume(','));
      if (!consume('}')) return fail("expected , or }");
    } else if (c == '[') {
      ++at_;
      value.kind = Value::Kind::Array;
      if (consume(']')) return value;
      do {
        std::optional<Value> element = parse_value(depth + 1);
        if (!element) return std::nullopt;
        value.array.push_back(std::move(*element));
      } while (consume(','));
      if (!consume(']')) return fail("expected , or ]");
    } else if (c == '"') {
      std::optional<std::string> text = parse_string();
      if (!text) return std::nullopt;
      value.kind = Value::Kind::String;
      value.string = std::move(*text);
    } else if (text_.substr(at_).starts_with("true") || text_.substr(at_).starts_with("false")) {
      value.kind = Value::Kind::Bool;
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
      value.kind = Value::Kind::Number;
      value.number = std::strtod(std::string(text_.substr(start, at_ - start)).c_str(), nullptr);
    }
    return value;
  }

  std::string_view text_;
  std::size_t at_ = 0;
  std::string error_;
};

const JsonReader::Value* JsonReader::Value::member(std::string_view name) const {
  for (const Member& entry : object)
    if (entry.name == name) return &entry.value;
  return nullptr;
}

std::optional<AccessMode> summary_mode(std::string_view access, bool& accessed) {
  accessed = access != "none";
  if (access == "none" || access == "read") return AccessMode::Read;
  if (access == "write") return AccessMode::Write;
  if (access == "read_write") return AccessMode::ReadWrite;
  return std::nullopt;
}

} // namespace

ParsedAnnotation parse_annotation(std::string_view specification) {
  ParsedAnnotation parsed;
  KernelRules rules;
  std::size_t start = 0;
  while (start <= specification.size()) {
    std::size_t comma = specification.find(',', start);
    if (comma == std::string_view::npos) comma = specification.size();
    std::string_view entry = specification.substr(start, comma - start);
    while (!entry.empty() && entry.front() == ' ')
      entry.remove_prefix(1);
    while (!entry.empty() && entry.back() == ' ')
      entry.remove_suffix(1);
    std::optional<ParameterRule> rule = parse_entry(entry, parsed.error);
    if (!rule) {
      parsed.error = "parameter " + std::to_string(rules.parameters.size()) + ": " + parsed.error;
      return parsed;
    }
    rules.parameters.push_back(*rule);
    start = comma + 1;
  }
  for (const ParameterRule& rule : rules.parameters) {
    if (rule.extent == ExtentRule::ParameterTimes && rule.parameter >= rules.parameters.size()) {
      parsed.error = "extent names parameter " + std::to_string(rule.parameter) + " of " +
                     std::to_string(rules.parameters.size());
      return parsed;
    }
  }
  parsed.rules = std::move(rules);
  return parsed;
}

AnnotationMessage split_annotation_message(std::string_view message) {
  const auto trimmed = [](std::string_view text) {
    while (!text.empty() && text.front() == ' ')
      text.remove_prefix(1);
    while (!text.empty() && text.back() == ' ')
      text.remove_suffix(1);
    return text;
  };
  const std::size_t colon = message.rfind(':');
  if (colon == std::string_view::npos) return {{}, trimmed(message)};
  return {trimmed(message.substr(0, colon)), trimmed(message.substr(colon + 1))};
}

std::string KernelSummaries::load(const std::string& path) {
  std::ifstream file(path);
  if (!file) return "cannot open kernel summaries file " + path;
  std::ostringstream text;
  text << file.rdbuf();
  if (std::string error = parse(text.str()); !error.empty()) return path + ": " + error;
  return {};
}

std::string KernelSummaries::parse(std::string_view json) {
  using Kind = JsonReader::Value::Kind;
  JsonReader reader(json);
  const std::optional<JsonReader::Value> document = reader.document();
  if (!document) return "not JSON: " + reader.error();
  const JsonReader::Value* kernels = document->member("kernels");
  if (kernels == nullptr || kernels->kind != Kind::Array)
    return "expected {\"version\": 1, \"kernels\": [...]} (streamrace-check --kernel-summaries)";
  for (const JsonReader::Value& kernel : kernels->array) {
    const JsonReader::Value* name = kernel.member("mangled_name");
    const JsonReader::Value* params = kernel.member("params");
    if (name == nullptr || name->kind != Kind::String || params == nullptr ||
        params->kind != Kind::Array)
      return "a kernel without mangled_name or params";
    KernelRules rules;
    rules.parameters.resize(params->array.size());
    for (const JsonReader::Value& param : params->array) {
      const JsonReader::Value* index = param.member("index");
      const JsonReader::Value* access = param.member("access");
      if (index == nullptr || index->kind != Kind::Number || index->number < 0 ||
          index->number >= static_cast<double>(rules.parameters.size()) || access == nullptr ||
          access->kind != Kind::String)
        return "kernel " + name->string + ": a parameter without a valid index or access";
      ParameterRule& rule = rules.parameters[static_cast<std::size_t>(index->number)];
      const std::optional<AccessMode> mode = summary_mode(access->string, rule.accessed);
      if (!mode)
        return "kernel " + name->string + ": access '" + access->string +
               "' is not none, read, write or read_write";
      rule.mode = *mode;
    }
    kernels_[name->string] = std::move(rules);
  }
  return {};
}

const KernelRules* KernelSummaries::find(std::string_view mangled_name) const {
  const auto it = kernels_.find(std::string(mangled_name));
  return it == kernels_.end() ? nullptr : &it->second;
}

void kernel_pointers(std::span<const std::uint8_t> sizes, std::span<const std::uint64_t> values,
                     const KernelRules* rules, std::vector<KernelPointer>& out) {
  const std::size_t count = std::min(sizes.size(), values.size());
  for (std::size_t i = 0; i < count; ++i) {
    if (sizes[i] != 8 || values[i] == 0) continue;
    KernelPointer pointer{values[i], 0, AccessMode::ReadWrite, Extent::Approximate};
    if (rules != nullptr && i < rules->parameters.size()) {
      const ParameterRule& rule = rules->parameters[i];
      if (!rule.accessed) continue;
      pointer.mode = rule.mode;
      pointer.extent = Extent::Exact;
      if (rule.extent == ExtentRule::Bytes) {
        pointer.bytes = rule.bytes;
      } else if (rule.extent == ExtentRule::ParameterTimes && rule.parameter < count) {
        pointer.bytes = values[rule.parameter] * rule.bytes;
      }
      if (rule.extent != ExtentRule::ToAllocationEnd && pointer.bytes == 0) continue;
    }
    out.push_back(pointer);
  }
}

} // namespace streamrace::tracer
