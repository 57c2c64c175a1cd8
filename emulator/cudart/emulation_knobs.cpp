// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "emulation_knobs.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace streamrace::emu {

std::string_view operationKindName(OperationKind kind) {
  switch (kind) {
  case OperationKind::Memcpy:
    return "memcpy";
  case OperationKind::Memset:
    return "memset";
  case OperationKind::Kernel:
    return "kernel";
  case OperationKind::HostFunction:
    return "host";
  case OperationKind::EventRecord:
    return "event";
  case OperationKind::EventWait:
    return "wait";
  case OperationKind::Allocation:
    return "alloc";
  case OperationKind::Free:
    return "free";
  case OperationKind::Graph:
    return "graph";
  case OperationKind::Marker:
    return "marker";
  }
  return "unknown";
}

namespace {

[[noreturn]] void rejectKnob(const char* variable, std::string_view value, const char* expected) {
  std::fprintf(stderr, "streamrace emulator: %s=%.*s is invalid: expected %s\n", variable,
               static_cast<int>(value.size()), value.data(), expected);
  std::exit(2);
}

long long parseInteger(const char* variable, const char* text, long long minimum) {
  char* end = nullptr;
  long long value = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || value < minimum) {
    std::string expected = "a whole number of at least " + std::to_string(minimum);
    rejectKnob(variable, text, expected.c_str());
  }
  return value;
}

// STREAMRACE_EMU_DELAY="stream=<label>:<ms>,kind=<kind>:<ms>,..."
void parseDelays(const char* text, EmulationKnobs& knobs) {
  static constexpr const char* expected =
      "comma-separated stream=<legacy|per-thread|N>:<ms> or "
      "kind=<memcpy|memset|kernel|host|event|wait|alloc|free|graph>:<ms>";
  std::string_view rest(text);
  while (!rest.empty()) {
    std::size_t comma = rest.find(',');
    std::string_view entry = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    std::size_t equals = entry.find('=');
    std::size_t colon = entry.rfind(':');
    if (equals == std::string_view::npos || colon == std::string_view::npos || colon < equals) {
      rejectKnob("STREAMRACE_EMU_DELAY", entry, expected);
    }
    std::string_view selector = entry.substr(0, equals);
    std::string target(entry.substr(equals + 1, colon - equals - 1));
    std::string millisText(entry.substr(colon + 1));
    char* end = nullptr;
    double millis = std::strtod(millisText.c_str(), &end);
    if (millisText.empty() || *end != '\0' || millis < 0) {
      rejectKnob("STREAMRACE_EMU_DELAY", entry, expected);
    }
    if (selector == "stream") {
      knobs.streamDelayMs[target] = millis;
    } else if (selector == "kind") {
      knobs.kindDelayMs[target] = millis;
    } else {
      rejectKnob("STREAMRACE_EMU_DELAY", entry, expected);
    }
  }
}

EmulationKnobs readEnvironment() {
  EmulationKnobs knobs;
  if (const char* devices = std::getenv("STREAMRACE_EMU_DEVICES")) {
    knobs.deviceCount = static_cast<int>(parseInteger("STREAMRACE_EMU_DEVICES", devices, 1));
  }
  if (const char* memory = std::getenv("STREAMRACE_EMU_DEVICE_MEMORY_MB")) {
    knobs.deviceMemoryBytes =
        static_cast<std::size_t>(parseInteger("STREAMRACE_EMU_DEVICE_MEMORY_MB", memory, 1)) << 20;
  }
  if (const char* delays = std::getenv("STREAMRACE_EMU_DELAY")) {
    parseDelays(delays, knobs);
  }
  if (const char* seed = std::getenv("STREAMRACE_EMU_JITTER_SEED")) {
    knobs.jitterSeed =
        static_cast<std::uint64_t>(parseInteger("STREAMRACE_EMU_JITTER_SEED", seed, 0));
    knobs.jitterMaxMicroseconds = 1000;
  }
  if (const char* maxMicros = std::getenv("STREAMRACE_EMU_JITTER_MAX_US")) {
    knobs.jitterMaxMicroseconds =
        static_cast<std::uint32_t>(parseInteger("STREAMRACE_EMU_JITTER_MAX_US", maxMicros, 0));
  }
  if (const char* dispatch = std::getenv("STREAMRACE_EMU_DISPATCH")) {
    std::string_view order(dispatch);
    if (order != "in-order" && order != "any-order") {
      rejectKnob("STREAMRACE_EMU_DISPATCH", order, "in-order or any-order");
    }
    knobs.dispatchInSubmissionOrder = order == "in-order";
  }
  return knobs;
}

} // namespace

double EmulationKnobs::delayMsFor(const std::string& streamLabel, OperationKind kind) const {
  double total = 0;
  if (auto it = streamDelayMs.find(streamLabel); it != streamDelayMs.end()) {
    total += it->second;
  }
  if (auto it = kindDelayMs.find(operationKindName(kind)); it != kindDelayMs.end()) {
    total += it->second;
  }
  return total;
}

const EmulationKnobs& EmulationKnobs::fromEnvironment() {
  static const EmulationKnobs knobs = readEnvironment();
  return knobs;
}

} // namespace streamrace::emu
