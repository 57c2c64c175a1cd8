// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Typed reads of the STREAMRACE_EMU_* variables that configure the emulated NCCL. A malformed
// value is reported once on stderr and the default is used, so a typo never changes behaviour
// silently.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace streamrace::emu::nccl {

std::optional<std::string> environmentString(const char* name);
double environmentDouble(const char* name, double fallback);
std::int64_t environmentInteger(const char* name, std::int64_t fallback);

} // namespace streamrace::emu::nccl
