// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// streamrace-check reads `k<<<grid, {32, 8, 1}>>>` as nvcc does, through a file system that
// rewrites the braced list as a dim3 (launch_config_braces.h). clang-tidy owns its file system, so
// the module hands the preprocessor the same text through the source manager: the main file when
// the checks are set up, each included file when its #include is reached, both before a byte of
// them is lexed. The rewrite keeps every file's length, so what the source manager has already
// sized stays valid, and the findings are the CLI's, on the same lines and columns.
#pragma once

#include "clang/Lex/Preprocessor.h"

namespace streamrace::analyzer {

void readBracedLaunchConfigsAsDim3(clang::Preprocessor& preprocessor);

} // namespace streamrace::analyzer
