// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Reading CUDA host code as nvcc's host pass does, so what nvcc compiles, clang parses:
//
//   - nvcc command lines (a CUDA project's compilation database) are translated
//     (nvcc_command_line.h);
//   - .cu files get clang's host-only CUDA mode, the toolkit (`--cuda-path`, from the nvcc that
//     the command runs when it names one), the CCCL headers, and a prelude that makes
//     `__CUDACC__` a number and defines `__CUDACC_VER_MAJOR__`/`_MINOR__`/`_BUILD__` as nvcc
//     does, and gives host code the `min`/`max` overloads of CUDA's math headers, which nvcc
//     declares `__host__ __device__` and clang's CUDA headers declare for the device only;
//   - the host compiler's own headers (omp.h, for `-Xcompiler -fopenmp` builds) are searched
//     after clang's, as nvcc's host compiler would find them;
//   - braced launch configurations are read as dim3 (launch_config_braces.h);
//   - errors clang gives in device code that nvcc's front end accepts are dropped
//     (host_pass_diagnostics.h).
//
// Every command also gets clang's resource directory, so the tool finds its own headers wherever
// it is installed.
#pragma once

#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/Tooling.h"

#include <string>

namespace streamrace::analyzer {

struct HostPassSettings {
  std::string resourceDir;
  std::string cudaPath;          // the toolkit's root
  bool cudaPathExplicit = false; // given by the user: not derived from the command's nvcc
};

// The path the prelude is mapped at (ClangTool::mapVirtualFile) and its contents.
extern const char* const kHostPassPreludePath;
extern const char* const kHostPassPrelude;

// Translates nvcc commands and adds the host-pass setup to every command.
clang::tooling::ArgumentsAdjuster cudaHostPassAdjuster(const HostPassSettings& settings);

// A tool that parses `files` with their commands in `compilations` as the host pass (the
// adjuster above, braced launch configurations, the prelude), for syntax only.
std::unique_ptr<clang::tooling::ClangTool>
makeHostPassTool(const clang::tooling::CompilationDatabase& compilations,
                 llvm::ArrayRef<std::string> files, const HostPassSettings& settings);

} // namespace streamrace::analyzer
