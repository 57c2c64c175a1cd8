// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A call's arguments as the API model numbers them (position in the parameter list), widened to
// 64 bits. Front ends fill it from whatever they intercept (a CUPTI *_params struct, an NCCL
// wrapper's own parameters); the decoder reads it through the model's argument meanings alone.
#pragma once

#include "streamrace/api_model/api_model.h"

#include <array>
#include <cstdint>
#include <optional>

namespace streamrace::tracer {

inline constexpr std::size_t kMaxArguments = 12;

struct CallArguments {
  // Output parameters (AllocatedPointerOut, StreamOut, EventOut, GraphOut, GraphExecOut, PitchOut,
  // GraphNodeOut)
  // hold the value the call stored through the pointer, not the pointer: the decoder never
  // dereferences.
  std::array<std::uint64_t, kMaxArguments> values{};

  // Meanings carried by the members of a struct parameter (a launch configuration's stream, a 3D
  // copy's pointers and extents), filled by the front end that can read the struct. A meaning no
  // parameter has is looked up here.
  void set_member(api_model::ArgMeaning meaning, std::uint64_t value) {
    const auto index = static_cast<std::size_t>(meaning);
    members[index] = value;
    member_present[index] = true;
  }

  std::optional<std::uint64_t> get(const api_model::ApiFunction& function,
                                   api_model::ArgMeaning meaning) const {
    const std::optional<std::size_t> index = function.argIndex(meaning);
    if (index && *index < kMaxArguments) return values[*index];
    const auto member = static_cast<std::size_t>(meaning);
    if (member < members.size() && member_present[member]) return members[member];
    return std::nullopt;
  }
  std::uint64_t get_or(const api_model::ApiFunction& function, api_model::ArgMeaning meaning,
                       std::uint64_t fallback) const {
    return get(function, meaning).value_or(fallback);
  }

  // Set through set_member (public only so that front ends can brace-initialize `values`).
  static constexpr std::size_t kMeanings = 80;
  static_assert(static_cast<std::size_t>(api_model::ArgMeaning::NodeType) < kMeanings);
  std::array<std::uint64_t, kMeanings> members{};
  std::array<bool, kMeanings> member_present{};
};

// Whether an output parameter is what the call returns through a pointer.
constexpr bool is_output_parameter(api_model::ArgMeaning meaning) {
  using api_model::ArgMeaning;
  return meaning == ArgMeaning::AllocatedPointerOut || meaning == ArgMeaning::StreamOut ||
         meaning == ArgMeaning::EventOut || meaning == ArgMeaning::GraphOut ||
         meaning == ArgMeaning::GraphExecOut || meaning == ArgMeaning::PitchOut ||
         meaning == ArgMeaning::PitchedAllocationOut || meaning == ArgMeaning::GraphNodeOut ||
         meaning == ArgMeaning::ContextOut;
}

} // namespace streamrace::tracer
