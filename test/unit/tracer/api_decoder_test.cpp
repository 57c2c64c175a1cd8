// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "decode/api_decoder.h"

#include <gtest/gtest.h>

namespace streamrace::tracer {
namespace {

const api_model::ApiFunction& model(std::string_view name) {
  const api_model::ApiFunction* function = api_model::findApiFunction(name);
  EXPECT_NE(function, nullptr) << name;
  return *function;
}

// Arguments in the model's parameter order.
CallArguments arguments(std::initializer_list<std::uint64_t> values) {
  CallArguments out;
  std::size_t i = 0;
  for (std::uint64_t value : values)
    out.values[i++] = value;
  return out;
}

template <typename Payload>
Payload decoded(std::string_view name, const CallArguments& args,
                CallOutcome outcome = CallOutcome::Succeeded) {
  std::optional<streamrace::Payload> payload = decode_call(model(name), args, {outcome, 0});
  EXPECT_TRUE(payload.has_value()) << name;
  EXPECT_TRUE(payload && std::holds_alternative<Payload>(*payload)) << name;
  return payload ? std::get<Payload>(*payload) : Payload{};
}

TEST(TracerDecoder, AsyncCopyKeepsStreamKindAndSize) {
  const Copy copy = decoded<Copy>("cudaMemcpyAsync", arguments({0x1000, 0x2000, 64, 3, 0x77}));
  EXPECT_EQ(copy.dst, 0x1000u);
  EXPECT_EQ(copy.src, 0x2000u);
  EXPECT_EQ(copy.width, 64u);
  EXPECT_EQ(copy.height, 1u);
  EXPECT_EQ(copy.stream, 0x77u);
  EXPECT_EQ(copy.direction, CopyKind::DeviceToDevice);
  EXPECT_FALSE(copy.synchronous_api);
}

TEST(TracerDecoder, SynchronousCopyRunsOnTheLegacyStream) {
  const Copy copy = decoded<Copy>("cudaMemcpy", arguments({0x1000, 0x2000, 64, 2}));
  EXPECT_TRUE(copy.synchronous_api);
  EXPECT_EQ(copy.stream, kNullStream);
  EXPECT_EQ(copy.direction, CopyKind::DeviceToHost);
}

TEST(TracerDecoder, PerThreadEntryPointsMapStreamZeroToThePerThreadStream) {
  EXPECT_EQ(decoded<Copy>("cudaMemcpyAsync_ptsz", arguments({1, 2, 3, 4, 0})).stream,
            kPerThreadStream);
  EXPECT_EQ(decoded<Copy>("cudaMemcpyAsync", arguments({1, 2, 3, 4, 0})).stream, kNullStream);
  EXPECT_EQ(decoded<Copy>("cudaMemcpy_ptds", arguments({1, 2, 3, 4})).stream, kPerThreadStream);
}

TEST(TracerDecoder, PitchedAllocationsSpanTheirPitchTimesTheirRows) {
  // cudaMallocPitch(&p, &pitch, 100, 7): the output parameters hold what the call stored.
  const Alloc pitched = decoded<Alloc>("cudaMallocPitch", arguments({0x4000, 512, 100, 7}));
  EXPECT_EQ(pitched.base, 0x4000u);
  EXPECT_EQ(pitched.size, 512u * 7);
  // cudaMalloc3D: the pitch and the extent are struct members the front end read.
  CallArguments volume = arguments({0x8000, 0});
  volume.set_member(api_model::ArgMeaning::DstPitch, 512);
  volume.set_member(api_model::ArgMeaning::Width, 100);
  volume.set_member(api_model::ArgMeaning::Height, 7);
  volume.set_member(api_model::ArgMeaning::Depth, 3);
  const Alloc allocated = decoded<Alloc>("cudaMalloc3D", volume);
  EXPECT_EQ(allocated.base, 0x8000u);
  EXPECT_EQ(allocated.size, 512u * 7 * 3);
}

TEST(TracerDecoder, ThreeDimensionalCopyAndSetKeepTheirSlices) {
  using api_model::ArgMeaning;
  CallArguments copy3d = arguments({0 /* the struct's address */, 0x55});
  copy3d.set_member(ArgMeaning::WrittenBuffer, 0x1000);
  copy3d.set_member(ArgMeaning::ReadBuffer, 0x9000);
  copy3d.set_member(ArgMeaning::DstPitch, 256);
  copy3d.set_member(ArgMeaning::SrcPitch, 128);
  copy3d.set_member(ArgMeaning::DstSlicePitch, 256 * 8);
  copy3d.set_member(ArgMeaning::SrcSlicePitch, 128 * 4);
  copy3d.set_member(ArgMeaning::Width, 100);
  copy3d.set_member(ArgMeaning::Height, 4);
  copy3d.set_member(ArgMeaning::Depth, 3);
  copy3d.set_member(ArgMeaning::CopyKind, 3);
  const Copy copy = decoded<Copy>("cudaMemcpy3DAsync", copy3d);
  EXPECT_EQ(copy.stream, 0x55u);
  EXPECT_EQ(copy.dst, 0x1000u);
  EXPECT_EQ(copy.src, 0x9000u);
  EXPECT_EQ(copy.width, 100u);
  EXPECT_EQ(copy.height, 4u);
  EXPECT_EQ(copy.depth, 3u);
  EXPECT_EQ(copy.dst_pitch, 256u);
  EXPECT_EQ(copy.dst_slice_pitch, 256u * 8);
  EXPECT_EQ(copy.src_slice_pitch, 128u * 4);
  EXPECT_EQ(copy.direction, CopyKind::DeviceToDevice);

  CallArguments set3d = arguments({0, 0, 0, 0x66});
  set3d.set_member(ArgMeaning::WrittenBuffer, 0x2000);
  set3d.set_member(ArgMeaning::DstPitch, 512);
  set3d.set_member(ArgMeaning::DstSlicePitch, 512 * 16);
  set3d.set_member(ArgMeaning::Width, 64);
  set3d.set_member(ArgMeaning::Height, 16);
  set3d.set_member(ArgMeaning::Depth, 2);
  const Set set = decoded<Set>("cudaMemset3DAsync", set3d);
  EXPECT_EQ(set.dst, 0x2000u);
  EXPECT_EQ(set.depth, 2u);
  EXPECT_EQ(set.slice_pitch, 512u * 16);
  EXPECT_EQ(set.stream, 0x66u);
}

TEST(TracerDecoder, CopiesFromCudaArraysNameNoBytes) {
  // The front end reads no pointers from a 3D copy of a CUDA array.
  EXPECT_FALSE(decode_call(model("cudaMemcpy3D"), arguments({0x1234}), {}).has_value());
}

TEST(TracerDecoder, LaunchConfigurationsGiveTheirStream) {
  CallArguments launch = arguments({0xc0f, 0xf00, 0xa495});
  launch.set_member(api_model::ArgMeaning::Stream, 0x77);
  EXPECT_EQ(decoded<KernelLaunch>("cudaLaunchKernelExC", launch).stream, 0x77u);
  CallArguments on_default = arguments({0xc0f, 0xf00, 0xa495});
  on_default.set_member(api_model::ArgMeaning::Stream, 0);
  EXPECT_EQ(decoded<KernelLaunch>("cudaLaunchKernelExC_ptsz", on_default).stream, kPerThreadStream);
}

TEST(TracerDecoder, TwoDimensionalCopyAndSetKeepPitches) {
  const Copy copy =
      decoded<Copy>("cudaMemcpy2DAsync", arguments({0x1000, 256, 0x9000, 512, 100, 7, 3, 5}));
  EXPECT_EQ(copy.dst_pitch, 256u);
  EXPECT_EQ(copy.src_pitch, 512u);
  EXPECT_EQ(copy.width, 100u);
  EXPECT_EQ(copy.height, 7u);
  EXPECT_EQ(copy.stream, 5u);
  const Set set = decoded<Set>("cudaMemset2D", arguments({0x1000, 128, 0, 64, 4}));
  EXPECT_EQ(set.pitch, 128u);
  EXPECT_EQ(set.width, 64u);
  EXPECT_EQ(set.height, 4u);
  EXPECT_TRUE(set.synchronous_api);
}

TEST(TracerDecoder, AllocationsCarryTheirMemoryKind) {
  EXPECT_EQ(decoded<Alloc>("cudaMalloc", arguments({0x5000, 64})).kind, MemoryKind::Device);
  EXPECT_EQ(decoded<Alloc>("cudaMallocHost", arguments({0x5000, 64})).kind, MemoryKind::PinnedHost);
  EXPECT_EQ(decoded<Alloc>("cudaHostRegister", arguments({0x5000, 64, 0})).kind,
            MemoryKind::PinnedHost);
  EXPECT_EQ(decoded<Alloc>("cudaMallocManaged", arguments({0x5000, 64, 1})).kind,
            MemoryKind::Managed);
  const Alloc pooled = decoded<Alloc>("cudaMallocAsync", arguments({0x5000, 64, 9}));
  EXPECT_EQ(pooled.kind, MemoryKind::StreamOrdered);
  EXPECT_EQ(pooled.stream, 9u);
  EXPECT_EQ(pooled.base, 0x5000u);
  EXPECT_EQ(pooled.size, 64u);
}

TEST(TracerDecoder, FreesNameTheirApi) {
  EXPECT_EQ(decoded<Free>("cudaFree", arguments({0x5000})).api, FreeApi::Free);
  EXPECT_EQ(decoded<Free>("cudaFreeHost", arguments({0x5000})).api, FreeApi::FreeHost);
  EXPECT_EQ(decoded<Free>("cudaHostUnregister", arguments({0x5000})).api, FreeApi::HostUnregister);
  const Free async = decoded<Free>("cudaFreeAsync", arguments({0x5000, 9}));
  EXPECT_EQ(async.api, FreeApi::FreeAsync);
  EXPECT_EQ(async.stream, 9u);
}

TEST(TracerDecoder, StreamFlagsAndPriority) {
  EXPECT_EQ(decoded<StreamCreate>("cudaStreamCreate", arguments({0x40})).kind,
            StreamKind::Blocking);
  const StreamCreate created = decoded<StreamCreate>(
      "cudaStreamCreateWithPriority", arguments({0x40, 1, static_cast<std::uint64_t>(-1)}));
  EXPECT_EQ(created.stream, 0x40u);
  EXPECT_EQ(created.kind, StreamKind::NonBlocking);
  EXPECT_EQ(created.priority, -1);
}

TEST(TracerDecoder, QueriesOrderOnlyWhenComplete) {
  EXPECT_FALSE(decoded<StreamSynchronize>("cudaStreamQuery", arguments({7}), CallOutcome::NotReady)
                   .completed);
  EXPECT_TRUE(decoded<EventSynchronize>("cudaEventQuery", arguments({8})).completed);
  EXPECT_FALSE(
      decode_call(model("cudaStreamSynchronize"), arguments({7}), {CallOutcome::NotReady, 0}));
  EXPECT_FALSE(
      decode_call(model("cudaMemcpyAsync"), arguments({1, 2, 3, 4, 5}), {CallOutcome::Failed, 0}));
}

TEST(TracerDecoder, SymbolCopiesAreNotGuessed) {
  EXPECT_FALSE(decode_call(model("cudaMemcpyToSymbolAsync"), arguments({1, 2, 3, 0, 1, 5}), {}));
}

TEST(TracerDecoder, GraphsFromCaptureToLaunch) {
  EXPECT_EQ(decoded<CaptureBegin>("cudaStreamBeginCapture", arguments({0x51, 0})).stream, 0x51u);
  const CaptureEnd end = decoded<CaptureEnd>("cudaStreamEndCapture", arguments({0x51, 0x6a}));
  EXPECT_EQ(end.stream, 0x51u);
  EXPECT_EQ(end.graph, 0x6au);
  // cudaGraphInstantiate(pGraphExec, graph, flags): the executable is the output parameter.
  const GraphInstantiate instantiate =
      decoded<GraphInstantiate>("cudaGraphInstantiate", arguments({0x7e, 0x6a, 0}));
  EXPECT_EQ(instantiate.graph, 0x6au);
  EXPECT_EQ(instantiate.exec, 0x7eu);
  const GraphLaunch launch = decoded<GraphLaunch>("cudaGraphLaunch", arguments({0x7e, 0x51}));
  EXPECT_EQ(launch.exec, 0x7eu);
  EXPECT_EQ(launch.stream, 0x51u);
}

TEST(TracerDecoder, CollectivesCarryElementSizeAndRoot) {
  // ncclAllGather(sendbuff, recvbuff, sendcount, datatype=ncclFloat32 (7), comm, stream)
  const Collective gather =
      decoded<Collective>("ncclAllGather", arguments({0x100, 0x200, 16, 7, 0xC0, 0x51}));
  EXPECT_EQ(gather.kind, CollectiveKind::AllGather);
  EXPECT_EQ(gather.send, 0x100u);
  EXPECT_EQ(gather.recv, 0x200u);
  EXPECT_EQ(gather.count, 16u);
  EXPECT_EQ(gather.element_size, 4u);
  EXPECT_EQ(gather.comm, 0xC0u);
  EXPECT_EQ(gather.stream, 0x51u);
  // ncclBcast(buff, count, datatype=ncclFloat64 (8), root, comm, stream): one buffer both ways.
  const Collective bcast = decoded<Collective>("ncclBcast", arguments({0x300, 4, 8, 2, 0xC0, 0}));
  EXPECT_EQ(bcast.send, 0x300u);
  EXPECT_EQ(bcast.recv, 0x300u);
  EXPECT_EQ(bcast.root, 2);
  EXPECT_EQ(bcast.element_size, 8u);
}

TEST(TracerDecoder, PointToPointNamesItsPeer) {
  const PointToPoint recv =
      decoded<PointToPoint>("ncclRecv", arguments({0x400, 10, 0, 3, 0xC0, 5}));
  EXPECT_FALSE(recv.is_send);
  EXPECT_EQ(recv.buffer, 0x400u);
  EXPECT_EQ(recv.peer, 3);
  EXPECT_EQ(recv.element_size, 1u);
}

} // namespace
} // namespace streamrace::tracer
