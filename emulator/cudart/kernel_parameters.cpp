// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "kernel_parameters.h"

#include <cxxabi.h>

#include <array>
#include <cstdlib>
#include <memory>
#include <string_view>

namespace streamrace::emu {

namespace {

struct FreeDeleter {
  // __cxa_demangle returns memory from malloc.
  void operator()(char* text) const { std::free(text); } // NOLINT(cppcoreguidelines-no-malloc)
};

std::string_view trim(std::string_view text) {
  while (!text.empty() && text.front() == ' ') {
    text.remove_prefix(1);
  }
  while (!text.empty() && text.back() == ' ') {
    text.remove_suffix(1);
  }
  return text;
}

// A demangled parameter type's size: pointers (including pointers to functions and arrays) are
// 8 bytes, the builtin scalars their own size; anything else is a class whose size the device
// code alone knows.
std::optional<std::size_t> sizeOfType(std::string_view type) {
  type = trim(type);
  if (type.ends_with(" const")) {
    type = trim(type.substr(0, type.size() - 6));
  }
  if (type.ends_with("*") || type.find("(*)") != std::string_view::npos) {
    return 8;
  }
  if (type.ends_with("&")) {
    return std::nullopt; // kernels cannot take references; a name saying so is not one we know
  }
  struct Scalar {
    std::string_view name;
    std::size_t size;
  };
  static constexpr std::array<Scalar, 15> scalars{{{"bool", 1},
                                                   {"char", 1},
                                                   {"signed char", 1},
                                                   {"unsigned char", 1},
                                                   {"short", 2},
                                                   {"unsigned short", 2},
                                                   {"int", 4},
                                                   {"unsigned int", 4},
                                                   {"float", 4},
                                                   {"long", 8},
                                                   {"unsigned long", 8},
                                                   {"long long", 8},
                                                   {"unsigned long long", 8},
                                                   {"double", 8},
                                                   {"decltype(nullptr)", 8}}};
  for (const Scalar& scalar : scalars) {
    if (type == scalar.name) {
      return scalar.size;
    }
  }
  return std::nullopt;
}

// The text between the parentheses that close the demangled name: its parameter list.
std::optional<std::string_view> parameterList(std::string_view demangled) {
  if (demangled.empty() || demangled.back() != ')') {
    return std::nullopt;
  }
  int depth = 0;
  for (std::size_t i = demangled.size(); i-- > 0;) {
    if (demangled[i] == ')') {
      ++depth;
    } else if (demangled[i] == '(' && --depth == 0) {
      return demangled.substr(i + 1, demangled.size() - i - 2);
    }
  }
  return std::nullopt;
}

} // namespace

std::vector<ParameterSlot> layoutFromSizes(const std::vector<std::size_t>& sizes) {
  std::vector<ParameterSlot> slots;
  std::size_t offset = 0;
  for (std::size_t size : sizes) {
    std::size_t alignment = 1;
    while (alignment < size && alignment < 8) {
      alignment *= 2;
    }
    offset = (offset + alignment - 1) / alignment * alignment;
    slots.push_back({offset, size});
    offset += size;
  }
  return slots;
}

std::optional<std::vector<ParameterSlot>> layoutFromMangledName(const std::string& mangledName) {
  int status = 0;
  const std::unique_ptr<char, FreeDeleter> demangled(
      abi::__cxa_demangle(mangledName.c_str(), nullptr, nullptr, &status));
  if (status != 0 || demangled == nullptr) {
    return std::nullopt;
  }
  const std::optional<std::string_view> list = parameterList(demangled.get());
  if (!list) {
    return std::nullopt;
  }
  std::vector<std::size_t> sizes;
  if (!trim(*list).empty()) {
    int depth = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= list->size(); ++i) {
      const char c = i < list->size() ? (*list)[i] : ',';
      if (c == '<' || c == '(' || c == '[') {
        ++depth;
      } else if (c == '>' || c == ')' || c == ']') {
        --depth;
      } else if (c == ',' && depth == 0) {
        const std::optional<std::size_t> size = sizeOfType(list->substr(start, i - start));
        if (!size) {
          return std::nullopt;
        }
        sizes.push_back(*size);
        start = i + 1;
      }
    }
  }
  return layoutFromSizes(sizes);
}

} // namespace streamrace::emu
