// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once

#include <string>
#include <vector>

namespace streamrace::cli {

// `streamrace report [options] <trace files or directories>...`
int report_command(const std::vector<std::string>& args);

} // namespace streamrace::cli
