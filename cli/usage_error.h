// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once

#include <stdexcept>

namespace streamrace::cli {

// A command line the tool cannot act on: reported with a pointer to --help, exit status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

} // namespace streamrace::cli
