// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once

#include <string>
#include <vector>

namespace streamrace::cli {

// `streamrace explain [options] <finding id> <trace files or directories>...`
int explain_command(const std::vector<std::string>& args);

} // namespace streamrace::cli
