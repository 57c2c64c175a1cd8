// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "api_state.h"

#include "link_statistics.h"
#include "settings.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

namespace streamrace::emu::nccl {
namespace {

struct LastError {
  std::mutex mutex;
  std::string message;
};

LastError& lastError() {
  // Leaked on purpose: stream threads may still fail while static destructors run at exit.
  static LastError* instance = new LastError;
  return *instance;
}

} // namespace

void InFlightWork::started() {
  std::lock_guard lock(mutex_);
  ++count_;
}

void InFlightWork::finished() {
  std::lock_guard lock(mutex_);
  if (--count_ == 0) {
    drained_.notify_all();
  }
}

bool InFlightWork::waitUntilDrained(std::int64_t timeoutMs) {
  std::unique_lock lock(mutex_);
  return drained_.wait_for(lock, std::chrono::milliseconds(timeoutMs), [&] { return count_ == 0; });
}

ncclResult_t recordError(ncclResult_t result, const std::string& message) {
  LastError& last = lastError();
  std::lock_guard lock(last.mutex);
  last.message = message;
  return result;
}

std::string lastErrorMessage() {
  LastError& last = lastError();
  std::lock_guard lock(last.mutex);
  return last.message;
}

void reportAsynchronousFailure(const Communicator& communicator) {
  const std::string message = communicator.lastError();
  recordError(communicator.asyncError(), message);
  const std::optional<std::string> policy = settingText(Setting::NcclOnError);
  if (policy && *policy != "exit" && *policy != "continue") {
    rejectSetting(Setting::NcclOnError, *policy);
  }
  const bool keepRunning = policy && *policy == "continue";
  std::fprintf(stderr, "streamrace-emu nccl: error on rank %d: %s\n", communicator.rank(),
               message.c_str());
  if (!keepRunning) {
    std::fprintf(stderr, "streamrace-emu nccl: exiting with status 1 "
                         "(STREAMRACE_EMU_NCCL_ON_ERROR=continue keeps the process running)\n");
    std::fflush(stdout);
    std::fflush(stderr);
    writeStatisticsFile();
    // Other threads may be blocked inside the emulator: skip exit handlers that would wait.
    _exit(1);
  }
}

int nodeOfDevice(int device) {
  const std::int64_t base = settingInteger(Setting::NodeRank, 0);
  const std::int64_t gpusPerNode = settingInteger(Setting::GpusPerNode, 0);
  return static_cast<int>(base + (gpusPerNode > 0 ? device / gpusPerNode : 0));
}

} // namespace streamrace::emu::nccl
