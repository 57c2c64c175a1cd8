// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Reading host code as nvcc's host pass does: nvcc command lines in clang's terms, braced launch
// configurations as dim3 with every file keeping its length and lines.
#include "launch_config_braces.h"
#include "nvcc_command_line.h"

#include <gtest/gtest.h>

namespace streamrace::analyzer {
namespace {

using Arguments = clang::tooling::CommandLineArguments;

TEST(NvccCommandLine, RecognizesNvccByItsNameOrItsOptions) {
  EXPECT_TRUE(isNvccCommand({"/usr/local/cuda/bin/nvcc", "-c", "a.cu"}));
  EXPECT_TRUE(isNvccCommand({"clang-tool", "-x", "cu", "a.cu"}));
  EXPECT_TRUE(isNvccCommand({"clang-tool", "-Xcompiler", "-fopenmp", "a.cu"}));
  EXPECT_TRUE(isNvccCommand({"clang-tool", "--extended-lambda", "a.cu"}));
  EXPECT_FALSE(isNvccCommand({"clang-tool", "-x", "cuda", "-I", "inc", "-O2", "a.cu"}));
  EXPECT_FALSE(isNvccCommand({"/usr/bin/g++", "-std=c++17", "-c", "a.cpp", "-o", "a.o"}));
}

TEST(NvccCommandLine, KeepsWhatDescribesTheHostPass) {
  const TranslatedCommand command = translateNvccCommand(
      {"nvcc", "-I/inc", "-I", "other", "-DX=1", "-O3", "-g", "-std=c++17", "-c", "a.cu"});
  EXPECT_EQ(command.arguments, (Arguments{"nvcc", "-I/inc", "-Iother", "-DX=1", "-O3", "-g",
                                          "-std=c++17", "-c", "a.cu"}));
}

TEST(NvccCommandLine, DropsDeviceCodeGenerationAndNvccsOwnOptions) {
  const TranslatedCommand command = translateNvccCommand(
      {"nvcc", "-gencode", "arch=compute_90,code=sm_90", "-arch=sm_80", "--extended-lambda",
       "--expt-relaxed-constexpr", "-lineinfo", "-Xptxas", "-v", "-cudart", "shared", "--threads",
       "4", "-forward-unknown-to-host-compiler", "-Wno-deprecated-gpu-targets",
       "--diag-suppress=177", "-maxrregcount=32", "a.cu"});
  EXPECT_EQ(command.arguments, (Arguments{"nvcc", "a.cu"}));
}

TEST(NvccCommandLine, TranslatesWhatClangSpellsDifferently) {
  const TranslatedCommand command = translateNvccCommand(
      {"nvcc", "-x", "cu", "-rdc=true", "--std", "c++20", "--default-stream", "per-thread",
       "--include-path", "a,b", "--define-macro=Y", "-ftemplate-depth", "512", "-dc", "k.cu"});
  EXPECT_EQ(command.arguments, (Arguments{"nvcc", "-x", "cuda", "-fgpu-rdc", "-std=c++20",
                                          "-fgpu-default-stream=per-thread", "-Ia", "-Ib", "-DY",
                                          "-ftemplate-depth=512", "-fgpu-rdc", "-c", "k.cu"}));
  EXPECT_EQ(translateNvccCommand({"nvcc", "-rdc=false", "a.cu"}).arguments,
            (Arguments{"nvcc", "a.cu"}));
}

TEST(NvccCommandLine, PassesHostCompilerOptionsOnAndNamesTheHostCompiler) {
  const TranslatedCommand command = translateNvccCommand(
      {"nvcc", "-ccbin", "g++-12", "-Xcompiler", "-fopenmp,-Wall", "-Xcompiler=-fPIC",
       "--compiler-options", "-pthread", "-fno-strict-aliasing", "a.cu"});
  EXPECT_EQ(command.arguments, (Arguments{"nvcc", "-fopenmp", "-Wall", "-fPIC", "-pthread",
                                          "-fno-strict-aliasing", "a.cu"}));
  EXPECT_EQ(command.hostCompiler, "g++-12");
}

TEST(LaunchConfigBraces, BracedArgumentsBecomeDim3WithoutMovingLaterTokens) {
  const std::string source = "  k<<<grid, {32, 8, 1}, 0, s>>>(a, b); next();\n";
  const std::optional<std::string> rewritten = bracedLaunchConfigsAsDim3(source);
  ASSERT_TRUE(rewritten);
  EXPECT_EQ(rewritten->size(), source.size());
  EXPECT_NE(rewritten->find("dim3{32,8,1}"), std::string::npos) << *rewritten;
  EXPECT_EQ(rewritten->find("next();"), source.find("next();"));
  EXPECT_EQ(rewritten->find("k<<<"), source.find("k<<<"));
}

TEST(LaunchConfigBraces, EveryBracedArgumentOfEveryLaunch) {
  const std::string source = "k<<<{4, 4, 1}, {8, 8, 1}, 0, stream>>>(p, q, r);\n"
                             "j<<<n, m>>>(q);\n"
                             "l<<<n,   {64,   1,   1}>>>(r);\n";
  const std::optional<std::string> rewritten = bracedLaunchConfigsAsDim3(source);
  ASSERT_TRUE(rewritten);
  EXPECT_EQ(rewritten->size(), source.size());
  EXPECT_NE(rewritten->find("dim3{4,4,1},dim3{8,8,1}"), std::string::npos) << *rewritten;
  EXPECT_NE(rewritten->find("j<<<n, m>>>(q);\n"), std::string::npos) << *rewritten;
  EXPECT_NE(rewritten->find("dim3{64,"), std::string::npos) << *rewritten;
}

TEST(LaunchConfigBraces, LeavesEverythingElseAlone) {
  EXPECT_FALSE(bracedLaunchConfigsAsDim3("k<<<grid, block>>>(p);\nint a[] = {1, 2};\n"));
  EXPECT_FALSE(bracedLaunchConfigsAsDim3("k<<<make({1, 2}), 32>>>(p);\n"));
  EXPECT_FALSE(bracedLaunchConfigsAsDim3("// a <<< comment; {1, 2}\n"));
  EXPECT_FALSE(bracedLaunchConfigsAsDim3("const char* s = \"<<<\";\n"));
  // No room on the line for "dim3": the launch stays as written (clang reports it).
  EXPECT_FALSE(bracedLaunchConfigsAsDim3("k<<<g,{1,1,1}>>>(p);\n"));
}

} // namespace
} // namespace streamrace::analyzer
