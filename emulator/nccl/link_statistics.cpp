// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "link_statistics.h"

#include "settings.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

namespace streamrace::emu::nccl {
namespace {

struct OperationCounters {
  std::uint64_t calls = 0;
  std::uint64_t intraNodeBytes = 0;
  std::uint64_t interNodeBytes = 0;
};

struct Statistics {
  std::mutex mutex;
  OperationCounters total;
  std::map<std::string, OperationCounters> byOperation;
  std::atomic<bool> written{false};
};

Statistics& statistics() {
  // Leaked on purpose: host functions may still record while static destructors run.
  static Statistics* instance = new Statistics;
  return *instance;
}

struct WriteAtExit {
  ~WriteAtExit() { writeStatisticsFile(); }
} writeAtExit;

// The RANK a launcher gave the process (torchrun's variable, not an emulator setting), or -1.
long long launcherRank() {
  const char* text = std::getenv("RANK");
  if (text == nullptr) return -1;
  char* end = nullptr;
  const long long rank = std::strtoll(text, &end, 10);
  return end == text || *end != '\0' ? -1 : rank;
}

} // namespace

void recordTraffic(const char* operationName, const LinkTraffic& traffic) {
  Statistics& stats = statistics();
  std::lock_guard lock(stats.mutex);
  for (OperationCounters* counters : {&stats.total, &stats.byOperation[operationName]}) {
    counters->calls += 1;
    counters->intraNodeBytes += traffic.intraNodeBytes;
    counters->interNodeBytes += traffic.interNodeBytes;
  }
}

std::string statisticsJson() {
  Statistics& stats = statistics();
  std::lock_guard lock(stats.mutex);
  const long long rank = launcherRank();
  std::string json = "{\"pid\":" + std::to_string(getpid()) + ",\"rank\":" + std::to_string(rank) +
                     ",\"intra_node_bytes\":" + std::to_string(stats.total.intraNodeBytes) +
                     ",\"inter_node_bytes\":" + std::to_string(stats.total.interNodeBytes) +
                     ",\"operations\":{";
  bool first = true;
  for (const auto& [name, counters] : stats.byOperation) {
    json += (first ? "\"" : ",\"") + name + "\":{\"calls\":" + std::to_string(counters.calls) +
            ",\"intra_node_bytes\":" + std::to_string(counters.intraNodeBytes) +
            ",\"inter_node_bytes\":" + std::to_string(counters.interNodeBytes) + "}";
    first = false;
  }
  json += "}}\n";
  return json;
}

void writeStatisticsFile() {
  const std::optional<std::string> path = settingText(Setting::NcclStats);
  if (!path || statistics().written.exchange(true)) {
    return;
  }
  const std::string json = statisticsJson();
  const int fd = open(path->c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  // One write() of a short line to an O_APPEND file keeps concurrent ranks' lines whole.
  if (fd < 0 || write(fd, json.data(), json.size()) != static_cast<ssize_t>(json.size())) {
    std::fprintf(stderr, "streamrace-emu nccl: cannot write statistics to %s\n", path->c_str());
  }
  if (fd >= 0) {
    close(fd);
  }
}

} // namespace streamrace::emu::nccl
