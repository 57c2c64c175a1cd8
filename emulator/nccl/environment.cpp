// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "environment.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace streamrace::emu::nccl {

std::optional<std::string> environmentString(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') {
    return std::nullopt;
  }
  return std::string(value);
}

double environmentDouble(const char* name, double fallback) {
  const std::optional<std::string> text = environmentString(name);
  if (!text) {
    return fallback;
  }
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text->c_str(), &end);
  if (errno != 0 || end == text->c_str() || *end != '\0' || value < 0) {
    std::fprintf(stderr, "streamrace-emu nccl: ignoring %s=%s (expected a non-negative number)\n",
                 name, text->c_str());
    return fallback;
  }
  return value;
}

std::int64_t environmentInteger(const char* name, std::int64_t fallback) {
  const std::optional<std::string> text = environmentString(name);
  if (!text) {
    return fallback;
  }
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text->c_str(), &end, 10);
  if (errno != 0 || end == text->c_str() || *end != '\0' || value < 0) {
    std::fprintf(stderr, "streamrace-emu nccl: ignoring %s=%s (expected a non-negative integer)\n",
                 name, text->c_str());
    return fallback;
  }
  return value;
}

} // namespace streamrace::emu::nccl
