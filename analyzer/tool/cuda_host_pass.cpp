// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cuda_host_pass.h"

#include "launch_config_braces.h"
#include "nvcc_command_line.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <map>
#include <mutex>
#include <optional>

namespace streamrace::analyzer {

const char* const kHostPassPreludePath = "/streamrace-check/nvcc_host_prelude.h";

const char* const kHostPassPrelude = R"(// streamrace-check: the host pass as nvcc runs it.
// nvcc's runtime headers (crt/common_functions.h) bring these in for every .cu file.
#include <string.h>
#include <time.h>
#undef __CUDACC__
#define __CUDACC__ 1
#ifndef __CUDACC_VER_MAJOR__
#define __CUDACC_VER_MAJOR__ (CUDA_VERSION / 1000)
#define __CUDACC_VER_MINOR__ ((CUDA_VERSION % 1000) / 10)
#define __CUDACC_VER_BUILD__ 0
#endif
#define STREAMRACE_HOST_MIN_MAX(result, first, second)                                        \
  static inline __host__ result min(const first a, const second b) {                         \
    return a < b ? (result)a : (result)b;                                                      \
  }                                                                                            \
  static inline __host__ result max(const first a, const second b) {                         \
    return a > b ? (result)a : (result)b;                                                      \
  }
STREAMRACE_HOST_MIN_MAX(int, int, int)
STREAMRACE_HOST_MIN_MAX(unsigned int, unsigned int, unsigned int)
STREAMRACE_HOST_MIN_MAX(unsigned int, int, unsigned int)
STREAMRACE_HOST_MIN_MAX(unsigned int, unsigned int, int)
STREAMRACE_HOST_MIN_MAX(long int, long int, long int)
STREAMRACE_HOST_MIN_MAX(unsigned long int, unsigned long int, unsigned long int)
STREAMRACE_HOST_MIN_MAX(unsigned long int, long int, unsigned long int)
STREAMRACE_HOST_MIN_MAX(unsigned long int, unsigned long int, long int)
STREAMRACE_HOST_MIN_MAX(long long int, long long int, long long int)
STREAMRACE_HOST_MIN_MAX(unsigned long long int, unsigned long long int, unsigned long long int)
STREAMRACE_HOST_MIN_MAX(unsigned long long int, long long int, unsigned long long int)
STREAMRACE_HOST_MIN_MAX(unsigned long long int, unsigned long long int, long long int)
STREAMRACE_HOST_MIN_MAX(float, float, float)
STREAMRACE_HOST_MIN_MAX(double, double, double)
STREAMRACE_HOST_MIN_MAX(double, float, double)
STREAMRACE_HOST_MIN_MAX(double, double, float)
#undef STREAMRACE_HOST_MIN_MAX
#define STREAMRACE_HOST_NAMED_MIN_MAX(type, lowest, highest)                                   \
  static inline __host__ type lowest(const type a, const type b) { return a < b ? a : b; }    \
  static inline __host__ type highest(const type a, const type b) { return a > b ? a : b; }
STREAMRACE_HOST_NAMED_MIN_MAX(unsigned int, umin, umax)
STREAMRACE_HOST_NAMED_MIN_MAX(long long int, llmin, llmax)
STREAMRACE_HOST_NAMED_MIN_MAX(unsigned long long int, ullmin, ullmax)
#undef STREAMRACE_HOST_NAMED_MIN_MAX
)";

namespace {

using clang::tooling::CommandLineArguments;

bool isCudaCommand(const CommandLineArguments& arguments, llvm::StringRef file) {
  bool cuda = file.ends_with(".cu") || file.ends_with(".cuh");
  // The last -x before the file decides, as for the compiler.
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    llvm::StringRef argument = arguments[i];
    if (argument == "-x" && i + 1 < arguments.size())
      cuda = arguments[i + 1] == "cuda";
    else if (argument.consume_front("-x") && !argument.empty())
      cuda = argument == "cuda";
  }
  return cuda;
}

bool hasArgumentStartingWith(const CommandLineArguments& arguments, llvm::StringRef prefix) {
  for (const std::string& argument : arguments)
    if (llvm::StringRef(argument).starts_with(prefix)) return true;
  return false;
}

// The toolkit an nvcc at `<root>/bin/nvcc` belongs to.
std::optional<std::string> toolkitOfNvcc(llvm::StringRef program) {
  if (!llvm::sys::path::is_absolute(program)) {
    llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName(program);
    if (!found) return std::nullopt;
    return toolkitOfNvcc(*found);
  }
  llvm::SmallString<256> resolved;
  if (llvm::sys::fs::real_path(program, resolved)) return std::nullopt;
  llvm::StringRef bin = llvm::sys::path::parent_path(resolved);
  if (llvm::sys::path::filename(bin) != "bin") return std::nullopt;
  std::string root = llvm::sys::path::parent_path(bin).str();
  if (!llvm::sys::fs::exists(root + "/include/cuda_runtime.h")) return std::nullopt;
  return root;
}

// The directory of the host compiler's own headers (`g++ -print-file-name=include`), asked once
// per compiler; nullopt when there is no such compiler.
std::optional<std::string> hostCompilerIncludeDir(const std::string& compiler) {
  static std::mutex mutex;
  static std::map<std::string, std::optional<std::string>> known;
  std::lock_guard lock(mutex);
  auto [slot, inserted] = known.try_emplace(compiler);
  if (!inserted) return slot->second;
  llvm::ErrorOr<std::string> program = llvm::sys::findProgramByName(compiler);
  if (!program) return std::nullopt;
  llvm::SmallString<128> output;
  if (llvm::sys::fs::createTemporaryFile("streamrace-host-include", "txt", output))
    return std::nullopt;
  const std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(output),
                                                      llvm::StringRef("")};
  const llvm::StringRef arguments[] = {*program, "-print-file-name=include"};
  const int status = llvm::sys::ExecuteAndWait(*program, arguments, std::nullopt, redirects);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> printed = llvm::MemoryBuffer::getFile(output);
  static_cast<void>(llvm::sys::fs::remove(output)); // a temporary: what is left is harmless
  if (status != 0 || !printed) return std::nullopt;
  const std::string directory = (*printed)->getBuffer().trim().str();
  if (llvm::sys::path::is_absolute(directory) && llvm::sys::fs::is_directory(directory))
    slot->second = directory;
  return slot->second;
}

bool namesGcc(llvm::StringRef program) {
  llvm::StringRef name = llvm::sys::path::filename(program);
  return name.starts_with("g++") || name.starts_with("gcc") || name == "c++" || name == "cc" ||
         name.contains("-g++") || name.contains("-gcc");
}

} // namespace

clang::tooling::ArgumentsAdjuster cudaHostPassAdjuster(const HostPassSettings& settings) {
  return [settings](const CommandLineArguments& original, llvm::StringRef file) {
    const bool nvcc = isNvccCommand(original);
    TranslatedCommand command;
    if (nvcc)
      command = translateNvccCommand(original);
    else
      command.arguments = original;
    CommandLineArguments& adjusted = command.arguments;
    if (!hasArgumentStartingWith(adjusted, "-resource-dir"))
      adjusted.push_back("-resource-dir=" + settings.resourceDir);
    const bool cuda = isCudaCommand(adjusted, file);
    // The headers nvcc's host compiler has and clang's resource directory lacks.
    std::optional<std::string> hostCompiler = command.hostCompiler;
    if (!hostCompiler && cuda) hostCompiler = "g++";
    if (!hostCompiler && !original.empty() && namesGcc(original.front()))
      hostCompiler = original.front();
    if (hostCompiler)
      if (std::optional<std::string> include = hostCompilerIncludeDir(*hostCompiler)) {
        adjusted.push_back("-idirafter");
        adjusted.push_back(*include);
      }
    if (!cuda) return adjusted;
    adjusted.push_back("-Wno-unknown-cuda-version");
    // nvcc's host compiler warns on `register` in C++17, where clang stops.
    adjusted.push_back("-Wno-register");
    if (!hasArgumentStartingWith(adjusted, "--cuda-host-only") &&
        !hasArgumentStartingWith(adjusted, "--cuda-device-only"))
      adjusted.push_back("--cuda-host-only");
    if (hasArgumentStartingWith(adjusted, "-nocudainc")) return adjusted;
    std::string cudaPath = settings.cudaPath;
    if (nvcc && !settings.cudaPathExplicit && !original.empty())
      if (std::optional<std::string> toolkit = toolkitOfNvcc(original.front())) cudaPath = *toolkit;
    if (!hasArgumentStartingWith(adjusted, "--cuda-path") && llvm::sys::fs::is_directory(cudaPath))
      adjusted.push_back("--cuda-path=" + cudaPath);
    const std::string cccl = cudaPath + "/include/cccl";
    if (llvm::sys::fs::is_directory(cccl)) {
      adjusted.push_back("-isystem");
      adjusted.push_back(cccl);
    }
    adjusted.push_back("-include");
    adjusted.push_back(kHostPassPreludePath);
    return adjusted;
  };
}

std::unique_ptr<clang::tooling::ClangTool>
makeHostPassTool(const clang::tooling::CompilationDatabase& compilations,
                 llvm::ArrayRef<std::string> files, const HostPassSettings& settings) {
  auto tool = std::make_unique<clang::tooling::ClangTool>(
      compilations, files, std::make_shared<clang::PCHContainerOperations>(),
      launchConfigRewritingFileSystem(llvm::vfs::getRealFileSystem()));
  // The command is read as nvcc's host pass before LibTooling's own adjusters see it, so they
  // see clang's options only.
  tool->clearArgumentsAdjusters();
  tool->appendArgumentsAdjuster(cudaHostPassAdjuster(settings));
  tool->appendArgumentsAdjuster(clang::tooling::getClangStripOutputAdjuster());
  tool->appendArgumentsAdjuster(clang::tooling::getClangSyntaxOnlyAdjuster());
  tool->appendArgumentsAdjuster(clang::tooling::getClangStripDependencyFileAdjuster());
  tool->mapVirtualFile(kHostPassPreludePath, kHostPassPrelude);
  return tool;
}

} // namespace streamrace::analyzer
