// The operation half of the public API: collectives, point-to-point and groups.
#include "api_enqueue.h"
#include "api_state.h"

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
      comm, {CollectiveKind::AlltoAll, sendbuff, recvbuff, count, datatype, ncclSum, -1}, stream);
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
}
