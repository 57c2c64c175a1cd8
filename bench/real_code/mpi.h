// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Declarations of the MPI calls the surveyed programs make, so their host code parses without an
// MPI installation. Analysis only: nothing here is ever linked or run.
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Info;
typedef struct MPI_Status {
  int MPI_SOURCE, MPI_TAG, MPI_ERROR;
} MPI_Status;

#define MPI_SUCCESS 0
#define MPI_MAX_ERROR_STRING 512
#define MPI_COMM_WORLD ((MPI_Comm)0x44000000)
#define MPI_COMM_TYPE_SHARED 1
#define MPI_INFO_NULL ((MPI_Info)0x1c000000)
#define MPI_STATUS_IGNORE ((MPI_Status*)1)
#define MPI_STATUSES_IGNORE ((MPI_Status*)1)
#define MPI_IN_PLACE ((void*)1)
#define MPI_DATATYPE_NULL ((MPI_Datatype)0x0c000000)
#define MPI_BYTE ((MPI_Datatype)0x4c00010d)
#define MPI_CHAR ((MPI_Datatype)0x4c000101)
#define MPI_INT ((MPI_Datatype)0x4c000405)
#define MPI_LONG ((MPI_Datatype)0x4c000807)
#define MPI_LONG_LONG ((MPI_Datatype)0x4c000809)
#define MPI_FLOAT ((MPI_Datatype)0x4c00040a)
#define MPI_DOUBLE ((MPI_Datatype)0x4c00080b)
#define MPI_SUM ((MPI_Op)0x58000003)
#define MPI_MIN ((MPI_Op)0x58000002)
#define MPI_MAX ((MPI_Op)0x58000001)

int MPI_Init(int* argc, char*** argv);
int MPI_Finalize(void);
int MPI_Comm_rank(MPI_Comm comm, int* rank);
int MPI_Comm_size(MPI_Comm comm, int* size);
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm);
int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm);
int MPI_Comm_free(MPI_Comm* comm);
int MPI_Barrier(MPI_Comm comm);
int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm);
int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status* status);
int MPI_Error_string(int errorcode, char* string, int* resultlen);
double MPI_Wtime(void);

#ifdef __cplusplus
}
#endif
