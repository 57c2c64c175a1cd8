// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Declarations of the host timer the CUDA samples' helper headers provide, so that programs
// written against them (Learn-CUDA-Programming's stream chapters) parse without the samples'
// Common folder. Analysis only: nothing here is ever linked or run.
#pragma once

class StopWatchInterface {
public:
  virtual ~StopWatchInterface() = default;
  virtual void start() = 0;
  virtual void stop() = 0;
  virtual void reset() = 0;
  virtual float getTime() = 0;
  virtual float getAverageTime() = 0;
};

bool sdkCreateTimer(StopWatchInterface** timer);
bool sdkDeleteTimer(StopWatchInterface** timer);
bool sdkStartTimer(StopWatchInterface** timer);
bool sdkStopTimer(StopWatchInterface** timer);
bool sdkResetTimer(StopWatchInterface** timer);
float sdkGetTimerValue(StopWatchInterface** timer);
float sdkGetAverageTimerValue(StopWatchInterface** timer);
