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
 * Works from C and C++; needs -ldl on old glibc. */
#ifndef STREAMRACE_ANNOTATIONS_H
#define STREAMRACE_ANNOTATIONS_H

#include <dlfcn.h>

#define STREAMRACE_ANNOTATE_KERNEL_SYMBOL "streamraceAnnotateKernel"

typedef int (*StreamraceAnnotateKernelFn)(const void *kernel, const char *specification);

static inline int streamrace_annotate_kernel(const void *kernel, const char *specification) {
  StreamraceAnnotateKernelFn annotate =
      (StreamraceAnnotateKernelFn)dlsym(RTLD_DEFAULT, STREAMRACE_ANNOTATE_KERNEL_SYMBOL);
  return annotate != 0 ? annotate(kernel, specification) : 0;
}

#endif /* STREAMRACE_ANNOTATIONS_H */
