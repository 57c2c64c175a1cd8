// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "kernels/kernel_rules.h"

#include "streamrace/api_model/kernel_access.h"
#include "streamrace/report/json_reader.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

namespace streamrace::tracer {

namespace {

namespace ka = api_model::kernel_access;
using ka::ParameterAccess;

bool parse_number(std::string_view text, std::uint64_t& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

// A parameter's mode (None has none: such a parameter yields no access).
AccessMode access_mode(ParameterAccess access) {
  switch (access) {
  case ParameterAccess::Read:
    return AccessMode::Read;
  case ParameterAccess::Write:
    return AccessMode::Write;
  case ParameterAccess::None:
  case ParameterAccess::ReadWrite:
    break;
  }
  return AccessMode::ReadWrite;
}

// "r", "w", "rw" or "-", then optionally "[N]" or "[pK*N]".
std::optional<ParameterRule> parse_entry(std::string_view entry, std::string& error) {
  ParameterRule rule;
  const std::size_t bracket = entry.find(ka::kExtentOpen);
  const std::optional<ParameterAccess> access = ka::accessOfAnnotation(entry.substr(0, bracket));
  if (!access) {
    error = "'" + std::string(entry) + "' is not -, r, w or rw";
    return std::nullopt;
  }
  rule.accessed = *access != ParameterAccess::None;
  rule.mode = access_mode(*access);
  if (bracket == std::string_view::npos) return rule;
  if (!rule.accessed || entry.back() != ka::kExtentClose) {
    error = "'" + std::string(entry) + "': an extent [N] or [pK*N] follows r, w or rw";
    return std::nullopt;
  }
  const std::string_view extent = entry.substr(bracket + 1, entry.size() - bracket - 2);
  if (extent.starts_with(ka::kParameterExtentPrefix)) {
    const std::size_t star = extent.find(ka::kParameterExtentTimes);
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

// The access and extent keys a parameter and a struct member share; returns what is wrong.
std::string parse_access(const JsonValue& entry, std::size_t parameter_count, AccessRule& rule) {
  using Kind = JsonValue::Kind;
  const JsonValue* access = entry.member(ka::kParamAccessKey);
  if (access == nullptr || access->kind != Kind::String) return "an entry without an access";
  const std::optional<ParameterAccess> mode = ka::accessOfSummary(access->string);
  if (!mode) return "access '" + access->string + "' is not none, read, write or read_write";
  rule.accessed = *mode != ParameterAccess::None;
  rule.mode = access_mode(*mode);
  const JsonValue* count = entry.member(ka::kParamCountParamKey);
  const JsonValue* element = entry.member(ka::kParamElementBytesKey);
  const JsonValue* count_offset = entry.member(ka::kCountOffsetKey);
  const JsonValue* count_bytes = entry.member(ka::kCountBytesKey);
  if (const JsonValue* bytes = entry.member(ka::kParamBytesKey)) {
    if (bytes->kind != Kind::Number || bytes->number < 1 || count != nullptr)
      return std::string("a ") + ka::kParamBytesKey + " that is not a byte count alone";
    rule.extent = ExtentRule::Bytes;
    rule.bytes = static_cast<std::uint64_t>(bytes->number);
    return {};
  }
  if (const JsonValue* threads = entry.member(ka::kParamThreadsKey)) {
    if (threads->kind != Kind::Bool || threads->number != 1 || count != nullptr ||
        element == nullptr || element->kind != Kind::Number || element->number < 1)
      return std::string("a ") + ka::kParamThreadsKey + " without a valid " +
             ka::kParamElementBytesKey;
    rule.extent = ExtentRule::ThreadsTimes;
    rule.bytes = static_cast<std::uint64_t>(element->number);
    return {};
  }
  if (count == nullptr && element == nullptr && count_offset == nullptr && count_bytes == nullptr)
    return {};
  if (count == nullptr || element == nullptr || count->kind != Kind::Number ||
      element->kind != Kind::Number || count->number < 0 ||
      count->number >= static_cast<double>(parameter_count) || element->number < 1)
    return std::string("an extent without a valid ") + ka::kParamCountParamKey + " and " +
           ka::kParamElementBytesKey;
  rule.extent = ExtentRule::ParameterTimes;
  rule.parameter = static_cast<std::size_t>(count->number);
  rule.bytes = static_cast<std::uint64_t>(element->number);
  if (count_offset == nullptr && count_bytes == nullptr) return {};
  if (count_offset == nullptr || count_bytes == nullptr || count_offset->kind != Kind::Number ||
      count_bytes->kind != Kind::Number || count_offset->number < 0 ||
      (count_bytes->number != 1 && count_bytes->number != 2 && count_bytes->number != 4 &&
       count_bytes->number != 8))
    return std::string("a member count without a valid ") + ka::kCountOffsetKey + " and " +
           ka::kCountBytesKey + " (1, 2, 4 or 8)";
  rule.extent = ExtentRule::MemberTimes;
  rule.count_offset = static_cast<std::size_t>(count_offset->number);
  rule.count_bytes = static_cast<std::size_t>(count_bytes->number);
  return {};
}

// The integer `width` bytes wide at `offset` into argument `parameter` (0 where there is none).
std::uint64_t member_value(const LaunchArguments& arguments, std::size_t parameter,
                           std::size_t offset, std::size_t width) {
  if (parameter >= arguments.sizes.size() || arguments.bytes == nullptr ||
      arguments.bytes[parameter] == nullptr || width > sizeof(std::uint64_t) ||
      offset + width > arguments.sizes[parameter])
    return 0;
  std::uint64_t value = 0; // little-endian, as every target CUDA runs on
  std::memcpy(&value, static_cast<const std::byte*>(arguments.bytes[parameter]) + offset, width);
  return value;
}

// The pointer `address` as `rule` states it: none when the rule marks it unused or its length
// is 0. The mode is known; the bytes only where a length is.
std::optional<KernelPointer> stated_pointer(Address address, const AccessRule& rule,
                                            const LaunchArguments& arguments) {
  if (!rule.accessed) return std::nullopt;
  KernelPointer pointer{address, 0, rule.mode, Extent::Exact};
  switch (rule.extent) {
  case ExtentRule::ToAllocationEnd:
    pointer.extent = Extent::Approximate;
    return pointer;
  case ExtentRule::Bytes:
    pointer.bytes = rule.bytes;
    break;
  case ExtentRule::ParameterTimes:
    if (rule.parameter < arguments.values.size())
      pointer.bytes = arguments.values[rule.parameter] * rule.bytes;
    break;
  case ExtentRule::MemberTimes:
    pointer.bytes =
        member_value(arguments, rule.parameter, rule.count_offset, rule.count_bytes) * rule.bytes;
    break;
  case ExtentRule::ThreadsTimes:
    // A launch whose configuration was not read: the mode stays, the bytes are a guess.
    if (arguments.threads_x == 0) {
      pointer.extent = Extent::Approximate;
      return pointer;
    }
    pointer.bytes = arguments.threads_x * rule.bytes;
    break;
  }
  if (pointer.bytes == 0) return std::nullopt;
  return pointer;
}

std::uint64_t word_at(std::span<const std::byte> bytes, std::size_t at) {
  std::uint64_t word = 0;
  std::memcpy(&word, bytes.data() + at, sizeof word);
  return word;
}

} // namespace

ParsedAnnotation parse_annotation(std::string_view specification) {
  ParsedAnnotation parsed;
  KernelRules rules;
  std::size_t start = 0;
  while (start <= specification.size()) {
    std::size_t comma = specification.find(ka::kEntrySeparator, start);
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
  using Kind = JsonValue::Kind;
  std::string error;
  const std::optional<JsonValue> document = parse_json(json, error);
  if (!document) return "not JSON: " + error;
  const JsonValue* kernels = document->member(ka::kKernelsKey);
  if (kernels == nullptr || kernels->kind != Kind::Array)
    return "expected {\"version\": 1, \"kernels\": [...]} (streamrace-check --kernel-summaries)";
  for (const JsonValue& kernel : kernels->array) {
    const JsonValue* name = kernel.member(ka::kMangledNameKey);
    const JsonValue* params = kernel.member(ka::kParamsKey);
    if (name == nullptr || name->kind != Kind::String || params == nullptr ||
        params->kind != Kind::Array)
      return "a kernel without mangled_name or params";
    KernelRules rules;
    const std::size_t count = params->array.size();
    rules.parameters.resize(count);
    for (const JsonValue& param : params->array) {
      const JsonValue* index = param.member(ka::kParamIndexKey);
      if (index == nullptr || index->kind != Kind::Number || index->number < 0 ||
          index->number >= static_cast<double>(count))
        return "kernel " + name->string + ": a parameter without a valid index";
      const auto position = static_cast<std::size_t>(index->number);
      ParameterRule& rule = rules.parameters[position];
      if (std::string wrong = parse_access(param, count, rule); !wrong.empty())
        return "kernel " + name->string + ", parameter " + std::to_string(position) + ": " + wrong;
      const JsonValue* members = param.member(ka::kParamFieldsKey);
      if (members == nullptr) continue;
      if (members->kind != Kind::Array)
        return "kernel " + name->string + ", parameter " + std::to_string(position) + ": " +
               ka::kParamFieldsKey + " is not an array";
      for (const JsonValue& field : members->array) {
        const JsonValue* offset = field.member(ka::kFieldOffsetKey);
        MemberRule member;
        std::string wrong;
        if (offset == nullptr || offset->kind != Kind::Number || offset->number < 0)
          wrong = std::string("a member without a valid ") + ka::kFieldOffsetKey;
        else
          wrong = parse_access(field, count, member.rule);
        if (!wrong.empty())
          return "kernel " + name->string + ", parameter " + std::to_string(position) + ": " +
                 wrong;
        member.offset = static_cast<std::size_t>(offset->number);
        rule.members.push_back(member);
      }
    }
    kernels_[name->string] = std::move(rules);
  }
  return {};
}

const KernelRules* KernelSummaries::find(std::string_view mangled_name) const {
  const auto it = kernels_.find(std::string(mangled_name));
  return it == kernels_.end() ? nullptr : &it->second;
}

void kernel_pointers(const LaunchArguments& arguments, const KernelRules* rules,
                     std::vector<KernelPointer>& out) {
  const std::size_t count = std::min(arguments.sizes.size(), arguments.values.size());
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t value = arguments.values[i];
    if (arguments.sizes[i] != 8 || value == 0) continue;
    if (rules == nullptr || i >= rules->parameters.size()) {
      out.push_back(KernelPointer{value, 0, AccessMode::ReadWrite, Extent::Approximate});
      continue;
    }
    const ParameterRule& rule = rules->parameters[i];
    const AccessRule* stated = &rule;
    // An 8-byte struct holding one pointer: its member's rule.
    if (!rule.members.empty()) {
      const auto first = std::find_if(rule.members.begin(), rule.members.end(),
                                      [](const MemberRule& member) { return member.offset == 0; });
      if (first == rule.members.end()) continue;
      stated = &first->rule;
    }
    if (auto pointer = stated_pointer(value, *stated, arguments)) out.push_back(*pointer);
  }
}

void by_value_pointers(std::size_t parameter, const LaunchArguments& arguments,
                       const KernelRules* rules, std::vector<KernelPointer>& out) {
  if (parameter >= arguments.sizes.size() || arguments.bytes == nullptr ||
      arguments.bytes[parameter] == nullptr)
    return;
  const std::span bytes(static_cast<const std::byte*>(arguments.bytes[parameter]),
                        arguments.sizes[parameter]);
  const ParameterRule* rule = rules != nullptr && parameter < rules->parameters.size()
                                  ? &rules->parameters[parameter]
                                  : nullptr;
  if (rule != nullptr && !rule->accessed) return;
  if (rule != nullptr && !rule->members.empty()) {
    for (const MemberRule& member : rule->members) {
      if (member.offset + sizeof(std::uint64_t) > bytes.size()) continue;
      const std::uint64_t word = word_at(bytes, member.offset);
      if (word == 0) continue;
      if (auto pointer = stated_pointer(word, member.rule, arguments)) out.push_back(*pointer);
    }
    return;
  }
  // Below the first 64 KiB nothing is mapped; x86-64 and AArch64 user space ends at 2^47 (2^48),
  // where unified addressing puts device memory too. Small counts, strides and floating-point
  // values fall outside.
  constexpr std::uint64_t k_lowest = 0x10000;
  constexpr std::uint64_t k_beyond_user_space = std::uint64_t{1} << 48;
  const std::size_t scanned = std::min(bytes.size(), kMaxScannedArgumentBytes);
  for (std::size_t at = 0; at + 8 <= scanned; at += 8) {
    const std::uint64_t word = word_at(bytes, at);
    if (word < k_lowest || word >= k_beyond_user_space) continue;
    out.push_back(KernelPointer{word, 0, AccessMode::ReadWrite, Extent::Approximate});
  }
}

} // namespace streamrace::tracer
