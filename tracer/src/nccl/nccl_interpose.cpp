// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// NCCL calls by interposition: a preloaded tracer defines the ncclX entry points, forwards each
// to the library's own pncclX (NCCL exports both, the MPI-profiling pattern) and records what
// was enqueued. CUDA calls NCCL makes on the caller's thread are not traced: they are NCCL's
// implementation, already described by the collective.
#include "calling_thread.h"
#include "decode/api_decoder.h"
#include "nccl/nccl_exports.h"
#include "recorder.h"

#include <nccl.h>

#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <type_traits>
#include <unordered_map>

namespace streamrace::tracer {

namespace {

constexpr const api_model::ApiFunction& model(std::string_view name) {
  return *api_model::findApiFunction(name);
}

template <typename Function> struct Arity;
template <typename Result, typename... Parameters> struct Arity<Result (*)(Parameters...)> {
  static constexpr std::size_t value = sizeof...(Parameters);
};

template <typename Function> Function resolve(const char* name) {
  void* symbol = dlsym(RTLD_NEXT, name);
  if (symbol == nullptr) symbol = dlsym(RTLD_DEFAULT, name);
  if (symbol == nullptr) {
    // NCCL loaded privately (dlopen without RTLD_GLOBAL) is still findable by soname.
    if (void* nccl = dlopen("libnccl.so.2", RTLD_LAZY | RTLD_NOLOAD)) symbol = dlsym(nccl, name);
  }
  if (symbol == nullptr) {
    std::fprintf(stderr, "streamrace: error: cannot find NCCL's %s to forward to\n", name);
    std::abort();
  }
  return reinterpret_cast<Function>(symbol);
}

template <typename Value> std::uint64_t widen(Value value) {
  if constexpr (std::is_pointer_v<Value>)
    return reinterpret_cast<std::uintptr_t>(value);
  else
    return static_cast<std::uint64_t>(value);
}

bool succeeded(ncclResult_t result) {
  return result == ncclSuccess || result == ncclInProgress;
}

template <typename Body> void guarded(Body&& body) {
  Recorder* tracer = Recorder::get();
  if (tracer == nullptr) return;
  try {
    body(*tracer);
  } catch (const std::exception& error) {
    tracer->disable(error.what());
  } catch (...) {
    tracer->disable("unknown exception in an NCCL wrapper");
  }
}

template <typename Real, typename... Arguments>
ncclResult_t intercept(Real real, const api_model::ApiFunction& function, Arguments... arguments) {
  ncclResult_t result;
  {
    InsideLibraryCall inside;
    result = real(arguments...);
  }
  if (!succeeded(result)) return result;
  guarded([&](Recorder& tracer) {
    CallArguments values{{widen(arguments)...}};
    if (std::optional<Payload> payload = decode_call(function, values, DecodeInputs{}))
      tracer.record(function.name, std::move(*payload));
  });
  return result;
}

// Communicators are not calls of the API model (they touch no stream or buffer), but the
// engine needs each one's key, shared by all of its ranks, and the calling rank's place in it.
std::mutex communicator_mutex;
std::unordered_map<ncclComm_t, CommKey> communicator_keys;
std::unordered_map<CommKey, std::uint64_t> splits_of;
// Counted apart from splits: the ranks a shrink excludes do not call it, and a later split of
// the same parent must still be numbered alike on every rank that makes it.
std::unordered_map<CommKey, std::uint64_t> shrinks_of;
std::uint64_t init_all_calls = 0;

CommKey hash_bytes(const void* bytes, std::size_t size, std::uint64_t seed) {
  std::uint64_t hash = 0xcbf29ce484222325ull ^ seed;
  for (std::size_t i = 0; i < size; ++i)
    hash = (hash ^ static_cast<const unsigned char*>(bytes)[i]) * 0x100000001b3ull;
  return hash;
}

// `api` is the initializing call, which names the communicator's call site in reports.
void record_communicator(std::string_view api, ncclComm_t comm, CommKey key) {
  warn_of_unknown_nccl_calls();
  static const auto count = resolve<decltype(&pncclCommCount)>("pncclCommCount");
  static const auto user_rank = resolve<decltype(&pncclCommUserRank)>("pncclCommUserRank");
  static const auto device = resolve<decltype(&pncclCommCuDevice)>("pncclCommCuDevice");
  CommInit init;
  init.comm = widen(comm);
  init.key = key;
  int value = 0;
  if (count(comm, &value) == ncclSuccess) init.nranks = value;
  if (user_rank(comm, &value) == ncclSuccess) init.comm_rank = value;
  if (device(comm, &value) == ncclSuccess) init.device = value;
  {
    std::lock_guard lock(communicator_mutex);
    communicator_keys[comm] = key;
  }
  guarded([&](Recorder& tracer) { tracer.record(api, init); });
}

// A communicator its parent's ranks make in the same order (a split, a shrink): (parent, how
// many `made` it had before, `detail` such as the split's color) names it alike on all of them.
void record_child_communicator(std::string_view api, ncclComm_t parent, ncclComm_t child,
                               std::unordered_map<CommKey, std::uint64_t>& made,
                               std::uint64_t detail, std::uint64_t seed) {
  std::uint64_t identity[3] = {0, 0, detail};
  {
    std::lock_guard lock(communicator_mutex);
    auto found = communicator_keys.find(parent);
    identity[0] = found != communicator_keys.end() ? found->second : 0;
    identity[1] = made[identity[0]]++;
  }
  record_communicator(api, child, hash_bytes(identity, sizeof identity, seed));
}

ncclResult_t destroy(ncclResult_t (*real)(ncclComm_t), std::string_view api, ncclComm_t comm) {
  // Recorded first: once NCCL has freed it, the handle may name the next communicator.
  guarded([&](Recorder& tracer) { tracer.record(api, CommDestroy{widen(comm)}); });
  {
    std::lock_guard lock(communicator_mutex);
    communicator_keys.erase(comm);
  }
  InsideLibraryCall inside;
  return real(comm);
}

} // namespace

} // namespace streamrace::tracer

using streamrace::tracer::intercept;
using streamrace::tracer::model;
using streamrace::tracer::resolve;

// Forwards to pnccl<name> and records the call as the API model describes it; the build checks
// that the model lists every parameter of the header's declaration.
#define STREAMRACE_FORWARD(name, ...)                                                              \
  static_assert(streamrace::tracer::Arity<decltype(&p##name)>::value == model(#name).args.size(),  \
                "the API model and nccl.h disagree on the parameters of " #name);                  \
  static const auto real = resolve<decltype(&p##name)>("p" #name);                                 \
  return intercept(real, model(#name) __VA_OPT__(, ) __VA_ARGS__)

#define STREAMRACE_EXPORT extern "C" __attribute__((visibility("default")))

STREAMRACE_EXPORT ncclResult_t ncclAllReduce(const void* sendbuff, void* recvbuff, size_t count,
                                             ncclDataType_t datatype, ncclRedOp_t op,
                                             ncclComm_t comm, cudaStream_t stream) {
  STREAMRACE_FORWARD(ncclAllReduce, sendbuff, recvbuff, count, datatype, op, comm, stream);
}
STREAMRACE_EXPORT ncclResult_t ncclBroadcast(const void* sendbuff, void* recvbuff, size_t count,
                                             ncclDataType_t datatype, int root, ncclComm_t comm,
                                             cudaStream_t stream) {
  STREAMRACE_FORWARD(ncclBroadcast, sendbuff, recvbuff, count, datatype, root, comm, stream);
}
STREAMRACE_EXPORT ncclResult_t ncclBcast(void* buff, size_t count, ncclDataType_t datatype,
                                         int root, ncclComm_t comm, cudaStream_t stream) {
  STREAMRACE_FORWARD(ncclBcast, buff, count, datatype, root, comm, stream);
}
STREAMRACE_EXPORT ncclResult_t ncclReduce(const void* sendbuff, void* recvbuff, size_t count,
                                          ncclDataType_t datatype, ncclRedOp_t op, int root,
                                          ncclComm_t comm, cudaStream_t stream) {
  STREAMRACE_FORWARD(ncclReduce, sendbuff, recvbuff, count, datatype, op, root, comm, stream);
}
STREAMRACE_EXPORT ncclResult_t ncclAllGather(const void* sendbuff, void* recvbuff, size_t sendcount,
                                             ncclDataType_t datatype, ncclComm_t comm,
                                             cudaStream_t stream) {
  STREAMRACE_FORWARD(ncclAllGather, sendbuff, recvbuff, sendcount, datatype, comm, stream);
}
STREAMRACE_EXPORT ncclResult_t ncclReduceScatter(const void* sendbuff, void* recvbuff,
                                                 size_t recvcount, ncclDataType_t datatype,
                                                 ncclRedOp_t op, ncclComm_t comm,
                                                 cudaStream_t stream) {
  STREAMRACE_FORWARD(ncclReduceScatter, sendbuff, recvbuff, recvcount, datatype, op, comm, stream);
}
STREAMRACE_EXPORT ncclResult_t ncclAlltoAll(const void* sendbuff, void* recvbuff, size_t count,
                                            ncclDataType_t datatype, ncclComm_t comm,
                                            cudaStream_t stream) {
  STREAMRACE_FORWARD(ncclAlltoAll, sendbuff, recvbuff, count, datatype, comm, stream);
}
STREAMRACE_EXPORT ncclResult_t ncclGather(const void* sendbuff, void* recvbuff, size_t count,
                                          ncclDataType_t datatype, int root, ncclComm_t comm,
                                          cudaStream_t stream) {
  STREAMRACE_FORWARD(ncclGather, sendbuff, recvbuff, count, datatype, root, comm, stream);
}
STREAMRACE_EXPORT ncclResult_t ncclScatter(const void* sendbuff, void* recvbuff, size_t count,
                                           ncclDataType_t datatype, int root, ncclComm_t comm,
                                           cudaStream_t stream) {
  STREAMRACE_FORWARD(ncclScatter, sendbuff, recvbuff, count, datatype, root, comm, stream);
}
STREAMRACE_EXPORT ncclResult_t ncclSend(const void* sendbuff, size_t count, ncclDataType_t datatype,
                                        int peer, ncclComm_t comm, cudaStream_t stream) {
  STREAMRACE_FORWARD(ncclSend, sendbuff, count, datatype, peer, comm, stream);
}
STREAMRACE_EXPORT ncclResult_t ncclRecv(void* recvbuff, size_t count, ncclDataType_t datatype,
                                        int peer, ncclComm_t comm, cudaStream_t stream) {
  STREAMRACE_FORWARD(ncclRecv, recvbuff, count, datatype, peer, comm, stream);
}
STREAMRACE_EXPORT ncclResult_t ncclGroupStart() {
  STREAMRACE_FORWARD(ncclGroupStart);
}
STREAMRACE_EXPORT ncclResult_t ncclGroupEnd() {
  STREAMRACE_FORWARD(ncclGroupEnd);
}

STREAMRACE_EXPORT ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId comm_id,
                                                int rank) {
  using namespace streamrace::tracer;
  static const auto real = resolve<decltype(&pncclCommInitRank)>("pncclCommInitRank");
  ncclResult_t result;
  {
    InsideLibraryCall inside;
    result = real(comm, nranks, comm_id, rank);
  }
  if (succeeded(result))
    record_communicator("ncclCommInitRank", *comm, hash_bytes(&comm_id, sizeof comm_id, 0));
  return result;
}
STREAMRACE_EXPORT ncclResult_t ncclCommInitRankConfig(ncclComm_t* comm, int nranks,
                                                      ncclUniqueId comm_id, int rank,
                                                      ncclConfig_t* config) {
  using namespace streamrace::tracer;
  static const auto real = resolve<decltype(&pncclCommInitRankConfig)>("pncclCommInitRankConfig");
  ncclResult_t result;
  {
    InsideLibraryCall inside;
    result = real(comm, nranks, comm_id, rank, config);
  }
  if (succeeded(result))
    record_communicator("ncclCommInitRankConfig", *comm, hash_bytes(&comm_id, sizeof comm_id, 0));
  return result;
}
STREAMRACE_EXPORT ncclResult_t ncclCommInitAll(ncclComm_t* comms, int ndev, const int* devlist) {
  using namespace streamrace::tracer;
  static const auto real = resolve<decltype(&pncclCommInitAll)>("pncclCommInitAll");
  ncclResult_t result;
  {
    InsideLibraryCall inside;
    result = real(comms, ndev, devlist);
  }
  if (!succeeded(result)) return result;
  // All ranks live in this process: the n-th call names the same communicator for all of them.
  std::uint64_t call = 0;
  {
    std::lock_guard lock(communicator_mutex);
    call = init_all_calls++;
  }
  const streamrace::CommKey key = hash_bytes(&call, sizeof call, 1);
  for (int i = 0; i < ndev; ++i)
    record_communicator("ncclCommInitAll", comms[i], key);
  return result;
}
STREAMRACE_EXPORT ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key,
                                             ncclComm_t* newcomm, ncclConfig_t* config) {
  using namespace streamrace::tracer;
  static const auto real = resolve<decltype(&pncclCommSplit)>("pncclCommSplit");
  ncclResult_t result;
  {
    InsideLibraryCall inside;
    result = real(comm, color, key, newcomm, config);
  }
  if (!succeeded(result) || newcomm == nullptr || *newcomm == nullptr) return result;
  record_child_communicator("ncclCommSplit", comm, *newcomm, splits_of,
                            static_cast<std::uint64_t>(color), 2);
  return result;
}
STREAMRACE_EXPORT ncclResult_t ncclCommInitRankScalable(ncclComm_t* newcomm, int nranks, int myrank,
                                                        int id_count, ncclUniqueId* comm_ids,
                                                        ncclConfig_t* config) {
  using namespace streamrace::tracer;
  static const auto real =
      resolve<decltype(&pncclCommInitRankScalable)>("pncclCommInitRankScalable");
  ncclResult_t result;
  {
    InsideLibraryCall inside;
    result = real(newcomm, nranks, myrank, id_count, comm_ids, config);
  }
  // Every rank is given the same ids: together they name the communicator.
  if (succeeded(result) && id_count > 0 && comm_ids != nullptr)
    record_communicator(
        "ncclCommInitRankScalable", *newcomm,
        hash_bytes(comm_ids, sizeof(ncclUniqueId) * static_cast<std::size_t>(id_count), 0));
  return result;
}
STREAMRACE_EXPORT ncclResult_t ncclCommShrink(ncclComm_t comm, int* exclude_ranks,
                                              int exclude_count, ncclComm_t* newcomm,
                                              ncclConfig_t* config, int shrink_flags) {
  using namespace streamrace::tracer;
  static const auto real = resolve<decltype(&pncclCommShrink)>("pncclCommShrink");
  ncclResult_t result;
  {
    InsideLibraryCall inside;
    result = real(comm, exclude_ranks, exclude_count, newcomm, config, shrink_flags);
  }
  if (!succeeded(result) || newcomm == nullptr || *newcomm == nullptr) return result;
  record_child_communicator("ncclCommShrink", comm, *newcomm, shrinks_of, 0, 3);
  return result;
}
STREAMRACE_EXPORT ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  using namespace streamrace::tracer;
  static const auto real = resolve<decltype(&pncclCommDestroy)>("pncclCommDestroy");
  return destroy(real, "ncclCommDestroy", comm);
}
STREAMRACE_EXPORT ncclResult_t ncclCommAbort(ncclComm_t comm) {
  using namespace streamrace::tracer;
  static const auto real = resolve<decltype(&pncclCommAbort)>("pncclCommAbort");
  return destroy(real, "ncclCommAbort", comm);
}
