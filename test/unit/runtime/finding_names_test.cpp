// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The words every report format uses for the parts of a finding.
#include "streamrace/report/finding_names.h"

#include <gtest/gtest.h>

namespace streamrace {
namespace {

AccessRecord access_of(OpKind kind, AccessMode mode) {
  AccessRecord access;
  access.kind = kind;
  access.mode = mode;
  return access;
}

TEST(AccessModeWord, AnOpThatMovesBytesSaysHowItTouchedThem) {
  EXPECT_STREQ(access_mode_word(access_of(OpKind::Copy, AccessMode::Read)), "read");
  EXPECT_STREQ(access_mode_word(access_of(OpKind::Kernel, AccessMode::Write)), "write");
  EXPECT_STREQ(access_mode_word(access_of(OpKind::Collective, AccessMode::ReadWrite)),
               "read-write");
}

TEST(AccessModeWord, AFreeOrAnAllocationIsNamedForWhatItIs) {
  EXPECT_STREQ(access_mode_word(access_of(OpKind::Free, AccessMode::Write)), "free");
  EXPECT_STREQ(access_mode_word(access_of(OpKind::Allocation, AccessMode::Write)), "allocation");
}

} // namespace
} // namespace streamrace
