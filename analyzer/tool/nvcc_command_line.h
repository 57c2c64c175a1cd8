// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// nvcc command lines in clang's terms. A compilation database of a CUDA project holds nvcc
// commands (`nvcc -x cu -rdc=true -Xcompiler -fopenmp -gencode ... -c f.cu`); clang rejects most
// of their options. The translation keeps what describes the host pass (includes, macros, the
// language standard, host compiler options) and drops what only concerns device code generation,
// linking or nvcc itself.
#pragma once

#include "clang/Tooling/ArgumentsAdjusters.h"

#include <optional>
#include <string>

namespace streamrace::analyzer {

struct TranslatedCommand {
  clang::tooling::CommandLineArguments arguments;
  // The host compiler nvcc would run (`-ccbin`), when the command names one.
  std::optional<std::string> hostCompiler;
};

// Whether `arguments` (argv[0] first) is an nvcc command: argv[0] is nvcc, or an option only nvcc
// has appears (`-x cu`, `-Xcompiler`, `-gencode`, `-rdc=true`, `--extended-lambda`, ...).
bool isNvccCommand(const clang::tooling::CommandLineArguments& arguments);

// The clang command that reads the same host code (argv[0] kept). Options nvcc and clang share
// pass through, as do options nvcc does not know (a build that forwards them to the host
// compiler).
TranslatedCommand translateNvccCommand(const clang::tooling::CommandLineArguments& arguments);

} // namespace streamrace::analyzer
