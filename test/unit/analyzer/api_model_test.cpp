// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Consistency of the shared CUDA/NCCL API model: the tables are data that both the analyzer and
// the tracer trust, so a missing stream or a misnamed parameter must fail here first.
#include "streamrace/api_model/api_model.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace streamrace::api_model {
namespace {

bool isBuffer(ArgMeaning meaning) {
  return meaning == ArgMeaning::ReadBuffer || meaning == ArgMeaning::WrittenBuffer ||
         meaning == ArgMeaning::ReadWrittenBuffer;
}

static_assert(findApiFunction("cudaMemcpyAsync")->argIndex(ArgMeaning::Stream) == 4);
static_assert(findApiFunction("cudaMemcpyAsync")->args[0].name == "dst");
static_assert(findApiFunction("ncclAllGather")->argIndex(ArgMeaning::ReadBuffer) == 0);
static_assert(findApiFunction("cudaDeviceSynchronize")->args.empty());

TEST(ApiModel, RolesThatEnqueueHaveAStream) {
  for (const ApiFunction& function : apiFunctions())
    if (roleNeedsStream(function.role)) {
      EXPECT_TRUE(function.has(ArgMeaning::Stream) || streamIsAMember(function)) << function.name;
    }
}

TEST(ApiModel, AsyncBufferAccessesHaveAStream) {
  for (const ApiFunction& function : apiFunctions())
    if (roleAccessesBuffers(function.role) && function.hostSync == HostSync::Async &&
        function.family == ApiFamily::Cuda && function.role != ApiRole::Set &&
        function.role != ApiRole::Set2D) {
      EXPECT_TRUE(function.has(ArgMeaning::Stream)) << function.name;
    }
}

TEST(ApiModel, BufferAccessesNameTheirBuffersAndSize) {
  for (const ApiFunction& function : apiFunctions()) {
    if (!roleAccessesBuffers(function.role) || buffersAreMembers(function)) continue;
    bool hasBuffer = false;
    for (const ApiArg& arg : function.args)
      hasBuffer |= isBuffer(arg.meaning);
    EXPECT_TRUE(hasBuffer) << function.name;
    const bool sized = function.has(ArgMeaning::ByteSize) || function.has(ArgMeaning::WordCount) ||
                       function.has(ArgMeaning::ElementCount) ||
                       (function.has(ArgMeaning::Width) && function.has(ArgMeaning::Height));
    EXPECT_TRUE(sized) << function.name;
  }
}

TEST(ApiModel, NcclBufferCallsCarryDatatypeAndCommunicator) {
  for (const ApiFunction& function : apiFunctions()) {
    if (function.family != ApiFamily::Nccl || !roleAccessesBuffers(function.role)) continue;
    EXPECT_TRUE(function.has(ArgMeaning::Datatype)) << function.name;
    EXPECT_TRUE(function.has(ArgMeaning::Communicator)) << function.name;
    EXPECT_TRUE(function.has(ArgMeaning::ElementCount)) << function.name;
    EXPECT_EQ(function.role == ApiRole::Collective, function.collective.has_value())
        << function.name;
  }
}

TEST(ApiModel, NamesAreUniqueAndParameterNamesUniquePerFunction) {
  std::set<std::string_view> names;
  for (const ApiFunction& function : apiFunctions()) {
    EXPECT_TRUE(names.insert(function.name).second) << function.name;
    std::set<std::string_view> parameters;
    for (const ApiArg& arg : function.args) {
      EXPECT_TRUE(parameters.insert(arg.name).second) << function.name << " " << arg.name;
    }
  }
}

TEST(ApiModel, PerThreadVariantsMirrorTheirBaseFunction) {
  int variants = 0;
  for (const ApiFunction& function : apiFunctions()) {
    if (!usesPerThreadDefaultStream(function)) continue;
    ++variants;
    const ApiFunction* base = findApiFunction(baseName(function));
    ASSERT_NE(base, nullptr) << function.name;
    EXPECT_EQ(base->role, function.role) << function.name;
    EXPECT_EQ(base->hostSync, function.hostSync) << function.name;
    ASSERT_EQ(base->args.size(), function.args.size()) << function.name;
    for (std::size_t i = 0; i < base->args.size(); ++i) {
      EXPECT_EQ(base->args[i].name, function.args[i].name) << function.name;
      EXPECT_EQ(base->args[i].meaning, function.args[i].meaning) << function.name;
    }
  }
  EXPECT_GE(variants, 10);
}

TEST(ApiModel, DriverCopiesCarryTheirDirection) {
  EXPECT_EQ(findApiFunction("cuMemcpyHtoDAsync_v2")->impliedCopyKind, CopyKind::HostToDevice);
  EXPECT_EQ(findApiFunction("cuMemcpyDtoH_v2")->impliedCopyKind, CopyKind::DeviceToHost);
  EXPECT_EQ(findApiFunction("cuMemcpy")->impliedCopyKind, CopyKind::Default);
  // Runtime copies name their kind, or (peer copies) two devices.
  EXPECT_FALSE(findApiFunction("cudaMemcpyPeer")->impliedCopyKind.has_value());
  // Sources write the names cuda.h maps to the _v2 entry points.
  EXPECT_EQ(baseName(*findApiFunction("cuMemcpyHtoDAsync_v2")), "cuMemcpyHtoDAsync");
  for (const ApiFunction& function : apiFunctions())
    if (function.family == ApiFamily::CudaDriver && function.role == ApiRole::Copy) {
      EXPECT_TRUE(function.impliedCopyKind.has_value()) << function.name;
      EXPECT_FALSE(function.has(ArgMeaning::CopyKind)) << function.name;
    }
}

TEST(ApiModel, SynchronousAndAsyncCopiesAreDistinguished) {
  EXPECT_EQ(findApiFunction("cudaMemcpy")->hostSync, HostSync::Synchronous);
  EXPECT_FALSE(findApiFunction("cudaMemcpy")->has(ArgMeaning::Stream));
  EXPECT_EQ(findApiFunction("cudaMemcpyAsync")->hostSync, HostSync::Async);
  EXPECT_EQ(findApiFunction("cudaStreamSynchronize")->hostSync, HostSync::Blocking);
}

TEST(ApiModel, ProfilingAliasesResolveToTheirNcclFunction) {
  const ApiFunction* gather = findApiFunction("pncclAllGather");
  ASSERT_NE(gather, nullptr);
  EXPECT_EQ(gather->name, "ncclAllGather");
  EXPECT_EQ(gather->collective, CollectiveKind::AllGather);
  EXPECT_EQ(findApiFunction("cudaNotAFunction"), nullptr);
}

TEST(ApiModel, EveryCollectiveIsTheRowOfItsNcclFunction) {
  for (const CollectiveInfo& collective : kCollectives) {
    const ApiFunction* function = findApiFunction(collective.function);
    ASSERT_NE(function, nullptr) << collective.function;
    EXPECT_EQ(function->collective, collective.kind) << collective.function;
    EXPECT_EQ(function->has(ArgMeaning::Root), collective.rooted) << collective.function;
    EXPECT_EQ(function->has(ArgMeaning::ReductionOp), collective.reducing) << collective.function;
  }
}

TEST(ApiModel, NcclDatatypeSizes) {
  EXPECT_EQ(ncclDataTypeSize(0), 1u);  // ncclInt8
  EXPECT_EQ(ncclDataTypeSize(2), 4u);  // ncclInt32
  EXPECT_EQ(ncclDataTypeSize(6), 2u);  // ncclFloat16
  EXPECT_EQ(ncclDataTypeSize(7), 4u);  // ncclFloat32
  EXPECT_EQ(ncclDataTypeSize(8), 8u);  // ncclFloat64
  EXPECT_EQ(ncclDataTypeSize(9), 2u);  // ncclBfloat16
  EXPECT_EQ(ncclDataTypeSize(11), 1u); // ncclFloat8e5m2
  EXPECT_EQ(ncclDataTypeSize(12), std::nullopt);
  EXPECT_EQ(ncclDataTypeSize(-1), std::nullopt);
}

} // namespace
} // namespace streamrace::api_model
