// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once

#include <string>
#include <vector>

namespace streamrace::cli {

// `streamrace run [options] -- command args...`: runs the command with the tracer attached,
// then replays the traces it wrote and prints the report.
int run_command(const std::vector<std::string>& args);

} // namespace streamrace::cli
