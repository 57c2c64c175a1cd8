// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/* streamrace kernel annotations: how a kernel uses its parameters, so that the tracer turns its
 * launches into exact memory accesses instead of approximate ones (a pointer argument read and
 * written from the pointer to the end of its allocation).
 *
 *   __global__ void scale(float *data, float factor, int n);
 *   ...
 *   streamrace_annotate_kernel((const void *)scale, "rw[p2*4],-,-");
 *
 * The specification has one entry per parameter, separated by commas:
 *   -         the kernel does not access memory through this parameter (scalars, unused pointers)
 *   r, w, rw  it reads, writes, or reads and writes through this pointer
 * A pointer entry may end with its extent in bytes from the pointer, in brackets: a number
 * ("w[4096]") or another parameter's value times a number ("r[p2*4]": parameter 2 holds an
 * element count, elements are 4 bytes). Without an extent the access runs to the end of the
 * pointer's allocation, still with the annotated mode.
 *
 * Annotate once, before the kernel's first launch. The function looks the tracer up at run time:
 * without it (an untraced run) it does nothing and returns 0; with it, 1 when the specification
 * was accepted, -1 when it is malformed (the tracer also says why on stderr). The tracer must be
 * preloaded (`streamrace run` does that, or LD_PRELOAD=libstreamrace.so) to be found.
 *
 * Works from C and C++; needs -ldl on old glibc.
 *
 * Without this header: the same specification through NVTX alone (the tracer receives it through
 * its NVTX injection; untraced, NVTX drops it), for code that already uses NVTX, PyTorch
 * extensions, or Python through the `nvtx` package. A mark in the domain "streamrace" whose
 * message (ASCII, or a string registered in that domain) is the specification and whose payload
 * is the kernel's address as a 64-bit integer:
 *
 *   nvtxDomainHandle_t domain = nvtxDomainCreateA("streamrace");
 *   nvtxEventAttributes_t mark = {0};
 *   mark.version = NVTX_VERSION;
 *   mark.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
 *   mark.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;  (NVTX_PAYLOAD_TYPE_INT64 too)
 *   mark.payload.ullValue = (uint64_t)(uintptr_t)scale;   (or the CUfunction it launches)
 *   mark.messageType = NVTX_MESSAGE_TYPE_ASCII;
 *   mark.message.ascii = "rw[p2*4],-,-";
 *   nvtxDomainMarkEx(domain, &mark);
 *
 * or, by name, without a payload: the message "<kernel name>: <specification>", the name as
 * launches report it (the mangled name of a C++ kernel, "_Z5scalePffi"; the plain name of an
 * extern "C" or Triton kernel, launched through cuLaunchKernel). A name also matches kernels
 * loaded after the mark:
 *
 *   nvtx.mark(message="_Z5scalePffi: rw[p2*4],-,-", domain="streamrace")   (Python)
 *
 * A malformed mark gets the same one line on stderr as a malformed call here, and changes
 * nothing else. */
#ifndef STREAMRACE_ANNOTATIONS_H
#define STREAMRACE_ANNOTATIONS_H

/* A C header: C names, typedefs and 0 for null. */
/* NOLINTBEGIN(readability-identifier-naming,modernize-use-using,modernize-use-nullptr) */

#include <dlfcn.h>

#define STREAMRACE_ANNOTATE_KERNEL_SYMBOL "streamraceAnnotateKernel"

typedef int (*StreamraceAnnotateKernelFn)(const void* kernel, const char* specification);

static inline int streamrace_annotate_kernel(const void* kernel, const char* specification) {
  StreamraceAnnotateKernelFn annotate =
      (StreamraceAnnotateKernelFn)dlsym(RTLD_DEFAULT, STREAMRACE_ANNOTATE_KERNEL_SYMBOL);
  return annotate != 0 ? annotate(kernel, specification) : 0;
}

/* NOLINTEND(readability-identifier-naming,modernize-use-using,modernize-use-nullptr) */

#endif /* STREAMRACE_ANNOTATIONS_H */
