/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* streamrace op extents: the exact byte ranges the device work a caller is about to launch will
 * read and write, stated by the caller (a framework's operator layer knows them; the kernel's
 * arguments, often structs passed by value, do not tell them).
 *
 *   streamrace_extent inputs[] = {{x_address, x_bytes, STREAMRACE_READ, 1}};
 *   streamrace_begin_op("aten::sum", inputs, 1);
 *   launch_sum_kernel(x, out, stream);               (any number of launches, any API)
 *   streamrace_extent outputs[] = {{out_address, out_bytes, STREAMRACE_WRITE, 1}};
 *   streamrace_end_op(outputs, 1);
 *
 * Between begin and end, every kernel launch the calling thread makes gets the op's ranges as its
 * accesses, instead of the approximate ones the tracer derives from pointer arguments; copies,
 * sets and collectives keep their own exact extents. Ranges known only once the work is
 * enqueued (a newly allocated output) are given to streamrace_end_op: the launches of the op are
 * held on the calling thread until then. Every call the thread makes in between is reported
 * under the op's name. Ops nest: a launch belongs to the innermost one.
 *
 * `exact` is 0 for a range that covers more than the work touches (the span of a strided view
 * with gaps); reports then say [approximate extent].
 *
 * The functions are looked up at run time: untraced, every call does nothing and returns 0;
 * traced, 1 on success and -1 for bad arguments (end without begin, a null array with a count).
 * The tracer must be preloaded (`streamrace run` does that, or LD_PRELOAD=libstreamrace.so). */
#ifndef STREAMRACE_OP_EXTENTS_H
#define STREAMRACE_OP_EXTENTS_H

/* A C header: C names, typedefs and 0 for null. */
/* NOLINTBEGIN(readability-identifier-naming,modernize-use-using,modernize-use-nullptr) */

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

enum { STREAMRACE_READ = 1, STREAMRACE_WRITE = 2, STREAMRACE_READ_WRITE = 3 };

typedef struct streamrace_extent {
  uint64_t begin;
  uint64_t size;
  int32_t mode;  /* STREAMRACE_READ, STREAMRACE_WRITE or STREAMRACE_READ_WRITE */
  int32_t exact; /* 1: these bytes exactly; 0: a range covering them */
} streamrace_extent;

typedef int (*StreamraceBeginOpFn)(const char* name, const streamrace_extent* extents,
                                   size_t count);
typedef int (*StreamraceEndOpFn)(const streamrace_extent* extents, size_t count);

static inline int streamrace_begin_op(const char* name, const streamrace_extent* extents,
                                      size_t count) {
  StreamraceBeginOpFn begin = (StreamraceBeginOpFn)dlsym(RTLD_DEFAULT, "streamraceBeginOp");
  return begin != 0 ? begin(name, extents, count) : 0;
}

static inline int streamrace_end_op(const streamrace_extent* extents, size_t count) {
  StreamraceEndOpFn end = (StreamraceEndOpFn)dlsym(RTLD_DEFAULT, "streamraceEndOp");
  return end != 0 ? end(extents, count) : 0;
}

/* NOLINTEND(readability-identifier-naming,modernize-use-using,modernize-use-nullptr) */

#endif /* STREAMRACE_OP_EXTENTS_H */
