// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "library_handles.h"

namespace streamrace::analyzer {
namespace {

// The member holding a handle's stream.
constexpr llvm::StringLiteral kBoundStream = ".<stream>";

void setMember(const std::string& member, const std::optional<std::string>& value,
               FlowState& state) {
  if (value)
    setEntry(state.fieldAliases, member, *value);
  else
    eraseEntry(state.fieldAliases, member);
}

} // namespace

void bindStream(llvm::StringRef handle, const std::optional<std::string>& element,
                FlowState& state) {
  setMember((handle + kBoundStream).str(), element, state);
}

std::optional<std::string> boundStream(llvm::StringRef handle, const FlowState& state) {
  auto found = state.fieldAliases->find((handle + kBoundStream).str());
  if (found == state.fieldAliases->end()) return std::nullopt;
  return found->second;
}

void describe(llvm::StringRef descriptor, llvm::StringRef member,
              const std::optional<std::string>& buffer, FlowState& state) {
  setMember((descriptor + member).str(), buffer, state);
}

} // namespace streamrace::analyzer
