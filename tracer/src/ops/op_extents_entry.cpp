// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The entry points streamrace/op_extents.h looks up in a traced process.
#include "ops/op_scopes.h"
#include "ops/stated_extents.h"
#include "recorder.h"

#include "streamrace/op_extents.h"

#include <cstdio>
#include <vector>

namespace streamrace::tracer {

namespace {

int rejected(const char* what) {
  std::fprintf(stderr, "streamrace: warning: %s: %s\n", what,
               "malformed extents or no open op; ignored");
  return -1;
}

} // namespace

bool read_stated_extents(const streamrace_extent* extents, std::size_t count,
                         std::vector<Access>& out) {
  out.clear();
  if (count > 0 && extents == nullptr) return false;
  for (std::size_t i = 0; i < count; ++i) {
    const streamrace_extent& extent = extents[i];
    if (extent.mode < STREAMRACE_READ || extent.mode > STREAMRACE_READ_WRITE) return false;
    out.push_back(Access{extent.begin, extent.size,
                         extent.mode == STREAMRACE_READ    ? AccessMode::Read
                         : extent.mode == STREAMRACE_WRITE ? AccessMode::Write
                                                           : AccessMode::ReadWrite,
                         extent.exact != 0 ? Extent::Exact : Extent::Approximate});
  }
  return true;
}

} // namespace streamrace::tracer

using namespace streamrace::tracer;

extern "C" __attribute__((visibility("default"))) int
streamraceBeginOp(const char* name, const streamrace_extent* extents, size_t count) {
  if (Recorder::get() == nullptr) return 0;
  std::vector<streamrace::Access> accesses;
  if (!read_stated_extents(extents, count, accesses)) return rejected("streamrace_begin_op");
  OpScopes::begin(OpScopes::intern_name(name != nullptr ? name : ""), accesses, 0);
  return 1;
}

extern "C" __attribute__((visibility("default"))) int
streamraceEndOp(const streamrace_extent* extents, size_t count) {
  if (Recorder::get() == nullptr) return 0;
  std::vector<streamrace::Access> accesses;
  if (!read_stated_extents(extents, count, accesses) || !OpScopes::end(accesses))
    return rejected("streamrace_end_op");
  return 1;
}
