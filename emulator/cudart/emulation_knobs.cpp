// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "emulation_knobs.h"

#include "settings.h"

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

// STREAMRACE_EMU_DELAY="stream=<label>:<ms>,kind=<kind>:<ms>,..."
void parseDelays(std::string_view rest, EmulationKnobs& knobs) {
  while (!rest.empty()) {
    std::size_t comma = rest.find(',');
    std::string_view entry = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    std::size_t equals = entry.find('=');
    std::size_t colon = entry.rfind(':');
    if (equals == std::string_view::npos || colon == std::string_view::npos || colon < equals) {
      rejectSetting(Setting::Delay, entry);
    }
    std::string_view selector = entry.substr(0, equals);
    std::string target(entry.substr(equals + 1, colon - equals - 1));
    std::string millisText(entry.substr(colon + 1));
    char* end = nullptr;
    double millis = std::strtod(millisText.c_str(), &end);
    if (millisText.empty() || *end != '\0' || millis < 0) {
      rejectSetting(Setting::Delay, entry);
    }
    if (selector == "stream") {
      knobs.streamDelayMs[target] = millis;
    } else if (selector == "kind") {
      knobs.kindDelayMs[target] = millis;
    } else {
      rejectSetting(Setting::Delay, entry);
    }
  }
}

EmulationKnobs readEnvironment() {
  EmulationKnobs knobs;
  knobs.deviceCount = static_cast<int>(settingInteger(Setting::Devices, knobs.deviceCount));
  knobs.deviceMemoryBytes =
      static_cast<std::size_t>(settingInteger(
          Setting::DeviceMemoryMb, static_cast<std::int64_t>(knobs.deviceMemoryBytes >> 20)))
      << 20;
  if (const std::optional<std::string> delays = settingText(Setting::Delay)) {
    parseDelays(*delays, knobs);
  }
  if (settingText(Setting::JitterSeed)) {
    knobs.jitterSeed = static_cast<std::uint64_t>(settingInteger(Setting::JitterSeed, 0));
    knobs.jitterMaxMicroseconds = 1000;
  }
  knobs.jitterMaxMicroseconds =
      static_cast<std::uint32_t>(settingInteger(Setting::JitterMaxUs, knobs.jitterMaxMicroseconds));
  if (const std::optional<std::string> order = settingText(Setting::Dispatch)) {
    if (*order != "in-order" && *order != "any-order") {
      rejectSetting(Setting::Dispatch, *order);
    }
    knobs.dispatchInSubmissionOrder = *order == "in-order";
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
