// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// How a kernel uses its parameters — from an annotation (streamrace/annotations.h) or from the
// analyzer's kernel summaries, both read by the contract of api_model/kernel_access.h — and how
// one launch's argument values become the pointers it accesses. Pure: no CUDA headers, no
// process state.
#pragma once

#include "streamrace/engine/event.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace streamrace::tracer {

enum class ExtentRule : std::uint8_t {
  ToAllocationEnd, // from the pointer to the end of its allocation
  Bytes,           // a fixed number of bytes
  ParameterTimes,  // another parameter's value times a number of bytes
  MemberTimes,     // an integer member of a struct argument times a number of bytes
  ThreadsTimes,    // the launch's threads in x (gridDim.x * blockDim.x) times a number of bytes
};

// What a kernel does through one pointer, and how far.
struct AccessRule {
  bool accessed = true;
  AccessMode mode = AccessMode::ReadWrite;
  ExtentRule extent = ExtentRule::ToAllocationEnd;
  std::uint64_t bytes = 0;      // Bytes: the count; ParameterTimes, MemberTimes: bytes per unit
  std::size_t parameter = 0;    // ParameterTimes, MemberTimes: which parameter holds the count
  std::size_t count_offset = 0; // MemberTimes: where in that argument, and how wide
  std::size_t count_bytes = 0;
};

// A pointer a struct passed by value holds, `offset` bytes into it.
struct MemberRule {
  std::size_t offset = 0;
  AccessRule rule;
};

struct ParameterRule : AccessRule {
  // A struct passed by value, when its pointers are known (kernel summaries): only these words
  // are pointers. Empty: every word that points into memory is taken, as `accessed` says.
  std::vector<MemberRule> members;
};

struct KernelRules {
  std::vector<ParameterRule> parameters;
};

// An annotation specification ("rw[p2*4],-,-"), or the reason it is malformed.
struct ParsedAnnotation {
  std::optional<KernelRules> rules;
  std::string error;
};
ParsedAnnotation parse_annotation(std::string_view specification);

// An NVTX annotation mark's message, "[kernel name:] specification", split. Specifications hold no
// colon, so the name (which may: "ns::fill") ends at the last one; both parts are trimmed.
struct AnnotationMessage {
  std::string_view kernel_name; // empty without a colon
  std::string_view specification;
};
AnnotationMessage split_annotation_message(std::string_view message);

// The analyzer's `--kernel-summaries` file, by mangled device name.
class KernelSummaries {
public:
  // Reads the file; returns why it could not, or an empty string.
  std::string load(const std::string& path);
  // Same, from the file's text.
  std::string parse(std::string_view json);
  const KernelRules* find(std::string_view mangled_name) const;
  std::size_t size() const { return kernels_.size(); }

private:
  std::unordered_map<std::string, KernelRules> kernels_;
};

// A pointer a launch hands its kernel, with what the kernel does through it. The tracer thread
// turns it into an access once it knows the allocation the address falls in.
struct KernelPointer {
  Address address = 0;
  std::uint64_t bytes = 0; // 0: to the end of the allocation holding `address`
  AccessMode mode = AccessMode::ReadWrite;
  Extent extent = Extent::Approximate;
};

// One launch's arguments: argument i's size in bytes, its value zero-extended (0 when larger
// than 8 bytes), and its bytes; and the launch's threads in x (0 when not known).
struct LaunchArguments {
  std::span<const std::uint32_t> sizes;
  std::span<const std::uint64_t> values;
  void* const* bytes = nullptr;
  std::uint64_t threads_x = 0;
};

// The pointers among one launch's arguments: every 8-byte argument (a candidate pointer) that
// `rules` does not mark unused; exact when rules describe the parameter, approximate
// (read and write to the allocation's end) otherwise.
void kernel_pointers(const LaunchArguments& arguments, const KernelRules* rules,
                     std::vector<KernelPointer>& out);

// The most bytes of one by-value argument read for pointers: parameter packs and PyTorch's
// TensorIterator arguments put their pointers first; kernels may take up to 32 KB of arguments.
inline constexpr std::size_t kMaxScannedArgumentBytes = 4096;

// The pointers held inside argument `parameter`, a struct passed by value: the members `rules`
// name, as they say; without members, every 8-byte-aligned word (of its first
// kMaxScannedArgumentBytes) whose value could be a user-space address is a candidate, read-write
// to its block's end, approximate (the resolver keeps those inside a live allocation). None when
// `rules` mark the argument unused.
void by_value_pointers(std::size_t parameter, const LaunchArguments& arguments,
                       const KernelRules* rules, std::vector<KernelPointer>& out);

} // namespace streamrace::tracer
