// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once

#include <string>
#include <vector>

namespace streamrace::cli {

// `streamrace export --format=perfetto|dot|json|sarif [options] <trace files or directories>...`
int export_command(const std::vector<std::string>& args);

} // namespace streamrace::cli
