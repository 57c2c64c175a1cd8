// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The operation half of the public API: collectives, point-to-point and groups.
#include "api_enqueue.h"
#include "api_state.h"
#include "reduction.h"

#include <algorithm>
#include <cstring>

using namespace streamrace::emu::nccl;

STREAMRACE_NCCL_EXPORT ncclResult_t pncclAllGather(const void* sendbuff, void* recvbuff,
                                                   size_t sendcount, ncclDataType_t datatype,
                                                   ncclComm_t comm, cudaStream_t stream) {
  return submitCollective(
      comm, {CollectiveKind::AllGather, sendbuff, recvbuff, sendcount, datatype, ncclSum, -1},
      stream);
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclReduceScatter(const void* sendbuff, void* recvbuff,
                                                       size_t recvcount, ncclDataType_t datatype,
                                                       ncclRedOp_t op, ncclComm_t comm,
                                                       cudaStream_t stream) {
  return submitCollective(
      comm, {CollectiveKind::ReduceScatter, sendbuff, recvbuff, recvcount, datatype, op, -1},
      stream);
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclAllReduce(const void* sendbuff, void* recvbuff,
                                                   size_t count, ncclDataType_t datatype,
                                                   ncclRedOp_t op, ncclComm_t comm,
                                                   cudaStream_t stream) {
  return submitCollective(
      comm, {CollectiveKind::AllReduce, sendbuff, recvbuff, count, datatype, op, -1}, stream);
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclBroadcast(const void* sendbuff, void* recvbuff,
                                                   size_t count, ncclDataType_t datatype, int root,
                                                   ncclComm_t comm, cudaStream_t stream) {
  return submitCollective(
      comm, {CollectiveKind::Broadcast, sendbuff, recvbuff, count, datatype, ncclSum, root},
      stream);
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclBcast(void* buff, size_t count, ncclDataType_t datatype,
                                               int root, ncclComm_t comm, cudaStream_t stream) {
  return pncclBroadcast(buff, buff, count, datatype, root, comm, stream);
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclReduce(const void* sendbuff, void* recvbuff, size_t count,
                                                ncclDataType_t datatype, ncclRedOp_t op, int root,
                                                ncclComm_t comm, cudaStream_t stream) {
  return submitCollective(
      comm, {CollectiveKind::Reduce, sendbuff, recvbuff, count, datatype, op, root}, stream);
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclAlltoAll(const void* sendbuff, void* recvbuff,
                                                  size_t count, ncclDataType_t datatype,
                                                  ncclComm_t comm, cudaStream_t stream) {
  return submitCollective(
      comm, {CollectiveKind::AllToAll, sendbuff, recvbuff, count, datatype, ncclSum, -1}, stream);
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclGather(const void* sendbuff, void* recvbuff, size_t count,
                                                ncclDataType_t datatype, int root, ncclComm_t comm,
                                                cudaStream_t stream) {
  return submitCollective(
      comm, {CollectiveKind::Gather, sendbuff, recvbuff, count, datatype, ncclSum, root}, stream);
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclScatter(const void* sendbuff, void* recvbuff, size_t count,
                                                 ncclDataType_t datatype, int root, ncclComm_t comm,
                                                 cudaStream_t stream) {
  return submitCollective(
      comm, {CollectiveKind::Scatter, sendbuff, recvbuff, count, datatype, ncclSum, root}, stream);
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclSend(const void* sendbuff, size_t count,
                                              ncclDataType_t datatype, int peer, ncclComm_t comm,
                                              cudaStream_t stream) {
  return submitPointToPoint(
      comm, {TransferDirection::Send, sendbuff, nullptr, count, datatype, peer}, stream);
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclRecv(void* recvbuff, size_t count, ncclDataType_t datatype,
                                              int peer, ncclComm_t comm, cudaStream_t stream) {
  return submitPointToPoint(
      comm, {TransferDirection::Receive, nullptr, recvbuff, count, datatype, peer}, stream);
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclGroupStart() {
  return groupStart();
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclGroupEnd() {
  return groupEnd();
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclGroupSimulateEnd(ncclSimInfo_t* simInfo) {
  return groupSimulateEnd(simInfo);
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclRedOpCreatePreMulSum(ncclRedOp_t* op, void* scalar,
                                                              ncclDataType_t datatype,
                                                              ncclScalarResidence_t residence,
                                                              ncclComm_t comm) {
  if (op == nullptr || scalar == nullptr || comm == nullptr || !isValidDatatype(datatype) ||
      (residence != ncclScalarDevice && residence != ncclScalarHostImmediate)) {
    return recordError(
        ncclInvalidArgument,
        "streamrace-emu nccl: ncclRedOpCreatePreMulSum: needs op, scalar and comm, a "
        "valid datatype and residence");
  }
  PreMulSumOp created{datatype, PreMultiplier{true, nullptr, {}}};
  if (residence == ncclScalarDevice) {
    created.multiplier.deviceScalar = scalar;
  } else {
    std::memcpy(created.multiplier.hostScalar, scalar, datatypeSize(datatype));
  }
  auto& ops = comm->preMulSumOps;
  auto slot = std::find(ops.begin(), ops.end(), std::nullopt);
  if (slot == ops.end()) {
    slot = ops.insert(ops.end(), std::nullopt);
  }
  *slot = created;
  *op = static_cast<ncclRedOp_t>(ncclNumOps + (slot - ops.begin()));
  return ncclSuccess;
}

STREAMRACE_NCCL_EXPORT ncclResult_t pncclRedOpDestroy(ncclRedOp_t op, ncclComm_t comm) {
  const auto index = static_cast<std::size_t>(op) - static_cast<std::size_t>(ncclNumOps);
  if (comm == nullptr || op < ncclNumOps || index >= comm->preMulSumOps.size() ||
      !comm->preMulSumOps[index]) {
    return recordError(ncclInvalidArgument,
                       "streamrace-emu nccl: ncclRedOpDestroy: op " + std::to_string(op) +
                           " was not created by ncclRedOpCreatePreMulSum on this comm");
  }
  comm->preMulSumOps[index].reset();
  return ncclSuccess;
}

extern "C" {
ncclResult_t ncclAllGather(const void*, void*, size_t, ncclDataType_t, ncclComm_t, cudaStream_t)
    STREAMRACE_NCCL_WEAK_ALIAS(ncclAllGather);
ncclResult_t ncclReduceScatter(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                               cudaStream_t) STREAMRACE_NCCL_WEAK_ALIAS(ncclReduceScatter);
ncclResult_t ncclAllReduce(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                           cudaStream_t) STREAMRACE_NCCL_WEAK_ALIAS(ncclAllReduce);
ncclResult_t ncclBroadcast(const void*, void*, size_t, ncclDataType_t, int, ncclComm_t,
                           cudaStream_t) STREAMRACE_NCCL_WEAK_ALIAS(ncclBroadcast);
ncclResult_t ncclBcast(void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t)
    STREAMRACE_NCCL_WEAK_ALIAS(ncclBcast);
ncclResult_t ncclReduce(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, int, ncclComm_t,
                        cudaStream_t) STREAMRACE_NCCL_WEAK_ALIAS(ncclReduce);
ncclResult_t ncclAlltoAll(const void*, void*, size_t, ncclDataType_t, ncclComm_t, cudaStream_t)
    STREAMRACE_NCCL_WEAK_ALIAS(ncclAlltoAll);
ncclResult_t ncclGather(const void*, void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t)
    STREAMRACE_NCCL_WEAK_ALIAS(ncclGather);
ncclResult_t ncclScatter(const void*, void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t)
    STREAMRACE_NCCL_WEAK_ALIAS(ncclScatter);
ncclResult_t ncclSend(const void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t)
    STREAMRACE_NCCL_WEAK_ALIAS(ncclSend);
ncclResult_t ncclRecv(void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t)
    STREAMRACE_NCCL_WEAK_ALIAS(ncclRecv);
ncclResult_t ncclGroupStart() STREAMRACE_NCCL_WEAK_ALIAS(ncclGroupStart);
ncclResult_t ncclGroupEnd() STREAMRACE_NCCL_WEAK_ALIAS(ncclGroupEnd);
ncclResult_t ncclGroupSimulateEnd(ncclSimInfo_t*) STREAMRACE_NCCL_WEAK_ALIAS(ncclGroupSimulateEnd);
ncclResult_t ncclRedOpCreatePreMulSum(ncclRedOp_t*, void*, ncclDataType_t, ncclScalarResidence_t,
                                      ncclComm_t)
    STREAMRACE_NCCL_WEAK_ALIAS(ncclRedOpCreatePreMulSum);
ncclResult_t ncclRedOpDestroy(ncclRedOp_t, ncclComm_t) STREAMRACE_NCCL_WEAK_ALIAS(ncclRedOpDestroy);
}
