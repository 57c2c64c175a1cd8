// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The default memory pool of each device, behind cudaMallocAsync: its handle, its attributes and
// access. The emulated pool keeps no freed memory for later (cudaFreeAsync gives the range back
// when the free runs), so trimming has nothing to release and the reserved figures equal the
// used ones: the bytes of the device's live stream-ordered allocations.
#include <cuda_runtime_api.h>
// cupti.h brings the parameter structs and callback ids; they must not be included twice.
#include <cupti.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "api_tracing.h"
#include "runtime_state.h"

using namespace streamrace::emu;

namespace {

struct DefaultPool {
  int device = 0;
  std::atomic<std::uint64_t> releaseThreshold{0};
  std::atomic<int> followEventDependencies{1};
  std::atomic<int> allowOpportunistic{1};
  std::atomic<int> allowInternalDependencies{1};
  // The most ever seen in use, as of the last question (the pool is asked, not told).
  std::atomic<std::uint64_t> usedHigh{0};
};

std::vector<std::unique_ptr<DefaultPool>>& defaultPools() {
  // One per device, never freed: handles stay valid for the whole process.
  static std::vector<std::unique_ptr<DefaultPool>> pools = [] {
    std::vector<std::unique_ptr<DefaultPool>> all;
    for (int ordinal = 0; ordinal < Runtime::instance().deviceCount(); ++ordinal) {
      all.push_back(std::make_unique<DefaultPool>());
      all.back()->device = ordinal;
    }
    return all;
  }();
  return pools;
}

DefaultPool* resolvePool(cudaMemPool_t handle) {
  for (const auto& pool : defaultPools()) {
    if (reinterpret_cast<cudaMemPool_t>(pool.get()) == handle) {
      return pool.get();
    }
  }
  return nullptr;
}

cudaError_t defaultMemPool(cudaMemPool_t* memPool, int device) {
  if (memPool == nullptr) {
    return cudaErrorInvalidValue;
  }
  if (!Runtime::instance().validDevice(device)) {
    return cudaErrorInvalidDevice;
  }
  *memPool =
      reinterpret_cast<cudaMemPool_t>(defaultPools()[static_cast<std::size_t>(device)].get());
  return cudaSuccess;
}

std::uint64_t bytesInUse(DefaultPool& pool) {
  const std::uint64_t used =
      Runtime::instance().memory.bytesOf(MemoryKind::PoolDevice, pool.device);
  std::uint64_t high = pool.usedHigh.load();
  while (used > high && !pool.usedHigh.compare_exchange_weak(high, used)) {
  }
  return used;
}

cudaError_t poolAttribute(cudaMemPool_t handle, cudaMemPoolAttr attribute, void* value, bool set) {
  DefaultPool* pool = resolvePool(handle);
  if (pool == nullptr || value == nullptr) {
    return cudaErrorInvalidValue;
  }
  auto* flag = static_cast<int*>(value);
  auto* bytes = static_cast<std::uint64_t*>(value);
  auto flagAttribute = [&](std::atomic<int>& stored) {
    if (set) {
      stored.store(*flag != 0 ? 1 : 0);
    } else {
      *flag = stored.load();
    }
    return cudaSuccess;
  };
  switch (attribute) {
  case cudaMemPoolReuseFollowEventDependencies:
    return flagAttribute(pool->followEventDependencies);
  case cudaMemPoolReuseAllowOpportunistic:
    return flagAttribute(pool->allowOpportunistic);
  case cudaMemPoolReuseAllowInternalDependencies:
    return flagAttribute(pool->allowInternalDependencies);
  case cudaMemPoolAttrReleaseThreshold:
    if (set) {
      pool->releaseThreshold.store(*bytes);
    } else {
      *bytes = pool->releaseThreshold.load();
    }
    return cudaSuccess;
  case cudaMemPoolAttrReservedMemCurrent:
  case cudaMemPoolAttrUsedMemCurrent:
    if (set) {
      return cudaErrorInvalidValue;
    }
    *bytes = bytesInUse(*pool);
    return cudaSuccess;
  case cudaMemPoolAttrReservedMemHigh:
  case cudaMemPoolAttrUsedMemHigh:
    // Only a reset to zero may be set: the watermark restarts from what is in use now.
    if (set) {
      if (*bytes != 0) {
        return cudaErrorInvalidValue;
      }
      pool->usedHigh.store(0);
      bytesInUse(*pool);
      return cudaSuccess;
    }
    bytesInUse(*pool);
    *bytes = pool->usedHigh.load();
    return cudaSuccess;
  default:
    return cudaErrorInvalidValue;
  }
}

// Every emulated device can read every other's memory, so any access a program asks for holds.
cudaError_t setPoolAccess(cudaMemPool_t handle, const cudaMemAccessDesc* descriptions,
                          std::size_t count) {
  if (resolvePool(handle) == nullptr || (count > 0 && descriptions == nullptr)) {
    return cudaErrorInvalidValue;
  }
  const bool valid =
      std::all_of(descriptions, descriptions + count, [](const cudaMemAccessDesc& d) {
        return d.location.type == cudaMemLocationTypeDevice &&
               Runtime::instance().validDevice(d.location.id);
      });
  return valid ? cudaSuccess : cudaErrorInvalidDevice;
}

cudaError_t trimPool(cudaMemPool_t handle) {
  return resolvePool(handle) != nullptr ? cudaSuccess : cudaErrorInvalidValue;
}

} // namespace

extern "C" {

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* memPool, int device) {
  STREAMRACE_EMU_TRACED(cudaDeviceGetDefaultMemPool, v11020, defaultMemPool(memPool, device),
                        memPool, device);
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void* value) {
  STREAMRACE_EMU_TRACED(cudaMemPoolGetAttribute, v11020, poolAttribute(memPool, attr, value, false),
                        memPool, attr, value);
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void* value) {
  STREAMRACE_EMU_TRACED(cudaMemPoolSetAttribute, v11020, poolAttribute(memPool, attr, value, true),
                        memPool, attr, value);
}

cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool, const struct cudaMemAccessDesc* descList,
                                 size_t count) {
  STREAMRACE_EMU_TRACED(cudaMemPoolSetAccess, v11020, setPoolAccess(memPool, descList, count),
                        memPool, descList, count);
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep) {
  STREAMRACE_EMU_TRACED(cudaMemPoolTrimTo, v11020, trimPool(memPool), memPool, minBytesToKeep);
}

} // extern "C"
