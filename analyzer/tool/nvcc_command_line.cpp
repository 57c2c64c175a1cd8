// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "nvcc_command_line.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Path.h"

#include <string_view>

namespace streamrace::analyzer {
namespace {

// What the translation does with one nvcc option (nvcc --help lists them all).
enum class Treatment {
  Drop,          // device code generation, linking, nvcc's own behaviour: no host-pass meaning
  DropValue,     // the same, with a value
  Keep,          // spelled and meant the same by clang
  KeepValue,     // the same, with a value (attached or the next argument)
  Replace,       // a flag clang spells as `clang`
  CommaList,     // a comma-separated list of values for the clang option in `clang`
  HostOptions,   // -Xcompiler: comma-separated options for the host compiler
  HostCompiler,  // -ccbin
  Language,      // -x: `cu` is clang's `cuda`
  Standard,      // --std c++17
  Relocatable,   // -rdc=true
  DeviceCompile, // -dc: compile with relocatable device code
  Compile,       // -dw: compile
  DefaultStream, // --default-stream per-thread
  Machine,       // -m 64
  EqualsValue,   // -ftemplate-depth N: clang wants -ftemplate-depth=N
};

struct NvccOption {
  std::string_view name;      // long form, without the leading "--"
  std::string_view shortName; // without the leading "-"
  Treatment treatment;
  std::string_view clang = {};  // CommaList: the clang option each value gets; Replace: the flag
  bool sharedWithClang = false; // its presence alone does not make a command nvcc's
};

// Every option of `nvcc --help` (CUDA 13) plus the undocumented -Xcudafe and -Xfatbin.
constexpr NvccOption kOptions[] = {
    {"cuda", "cuda", Treatment::Drop},
    {"cubin", "cubin", Treatment::Drop},
    {"fatbin", "fatbin", Treatment::Drop},
    {"ptx", "ptx", Treatment::Drop},
    {"optix-ir", "optix-ir", Treatment::Drop},
    {"ltoir", "ltoir", Treatment::Drop},
    {"preprocess", "E", Treatment::Keep, {}, true},
    {"generate-dependencies", "M", Treatment::Keep, {}, true},
    {"generate-nonsystem-dependencies", "MM", Treatment::Keep, {}, true},
    {"generate-dependencies-with-compile", "MD", Treatment::Keep, {}, true},
    {"generate-nonsystem-dependencies-with-compile", "MMD", Treatment::Keep, {}, true},
    {"dependency-output", "MF", Treatment::KeepValue, {}, true},
    {"generate-dependency-targets", "MP", Treatment::Keep, {}, true},
    {"dependency-target-name", "MT", Treatment::KeepValue, {}, true},
    {"compile", "c", Treatment::Keep, {}, true},
    {"device-c", "dc", Treatment::DeviceCompile},
    {"device-w", "dw", Treatment::Compile},
    {"device-link", "dlink", Treatment::Drop},
    {"link", "link", Treatment::Drop},
    {"lib", "lib", Treatment::Drop},
    {"run", "run", Treatment::Drop},
    {"output-file", "o", Treatment::KeepValue, {}, true},
    {"pre-include", "include", Treatment::CommaList, "-include", true},
    {"objdir-as-tempdir", "objtemp", Treatment::Drop},
    {"library", "l", Treatment::CommaList, "-l", true},
    {"define-macro", "D", Treatment::CommaList, "-D", true},
    {"undefine-macro", "U", Treatment::CommaList, "-U", true},
    {"include-path", "I", Treatment::CommaList, "-I", true},
    {"system-include", "isystem", Treatment::CommaList, "-isystem", true},
    {"library-path", "L", Treatment::CommaList, "-L", true},
    {"output-directory", "odir", Treatment::DropValue},
    {"compiler-bindir", "ccbin", Treatment::HostCompiler},
    {"allow-unsupported-compiler", "allow-unsupported-compiler", Treatment::Drop},
    {"archiver-binary", "arbin", Treatment::DropValue},
    {"cudart", "cudart", Treatment::DropValue},
    {"cudadevrt", "cudadevrt", Treatment::DropValue},
    {"libdevice-directory", "ldir", Treatment::DropValue},
    {"target-directory", "target-dir", Treatment::DropValue},
    {"use-local-env", "use-local-env", Treatment::Drop},
    {"force-cl-env-setup", "force-cl-env-setup", Treatment::Drop},
    {"profile", "pg", Treatment::Drop, {}, true},
    {"debug", "g", Treatment::Keep, {}, true},
    {"device-debug", "G", Treatment::Drop, {}, true},
    {"generate-line-info", "lineinfo", Treatment::Drop},
    {"optimization-info", "opt-info", Treatment::DropValue},
    {"optimize", "O", Treatment::KeepValue, {}, true},
    {"Ofast-compile", "Ofc", Treatment::DropValue},
    {"dopt", "dopt", Treatment::DropValue},
    {"dlink-time-opt", "dlto", Treatment::Drop},
    {"lto", "lto", Treatment::Drop},
    {"gen-opt-lto", "gen-opt-lto", Treatment::Drop},
    {"ftemplate-backtrace-limit", "ftemplate-backtrace-limit", Treatment::EqualsValue, {}, true},
    {"ftemplate-depth", "ftemplate-depth", Treatment::EqualsValue, {}, true},
    {"no-exceptions", "noeh", Treatment::Replace, "-fno-exceptions"},
    {"shared", "shared", Treatment::Drop, {}, true},
    {"x", "x", Treatment::Language, {}, true},
    {"std", "std", Treatment::Standard, {}, true},
    {"no-host-device-initializer-list", "nohdinitlist", Treatment::Drop},
    {"no-host-device-move-forward", "nohdmoveforward", Treatment::Drop},
    {"expt-relaxed-constexpr", "expt-relaxed-constexpr", Treatment::Drop},
    {"extended-lambda", "extended-lambda", Treatment::Drop},
    {"expt-extended-lambda", "expt-extended-lambda", Treatment::Drop},
    {"machine", "m", Treatment::Machine, {}, true},
    {"m64", "m64", Treatment::Keep, {}, true},
    {"compiler-options", "Xcompiler", Treatment::HostOptions},
    {"linker-options", "Xlinker", Treatment::DropValue, {}, true},
    {"archive-options", "Xarchive", Treatment::DropValue},
    {"ptxas-options", "Xptxas", Treatment::DropValue},
    {"nvlink-options", "Xnvlink", Treatment::DropValue},
    {"cudafe-options", "Xcudafe", Treatment::DropValue},
    {"fatbin-options", "Xfatbin", Treatment::DropValue},
    {"static-global-template-stub", "static-global-template-stub", Treatment::DropValue},
    {"device-entity-has-hidden-visibility", "device-entity-has-hidden-visibility",
     Treatment::DropValue},
    {"forward-unknown-to-host-compiler", "forward-unknown-to-host-compiler", Treatment::Drop},
    {"forward-unknown-to-host-linker", "forward-unknown-to-host-linker", Treatment::Drop},
    {"forward-unknown-opts", "forward-unknown-opts", Treatment::Drop},
    {"dont-use-profile", "noprof", Treatment::Drop},
    {"dryrun", "dryrun", Treatment::Drop},
    {"verbose", "v", Treatment::Drop, {}, true},
    {"threads", "t", Treatment::DropValue, {}, true},
    {"split-compile", "split-compile", Treatment::DropValue},
    {"split-compile-extended", "split-compile-extended", Treatment::DropValue},
    {"fdevice-syntax-only", "fdevice-syntax-only", Treatment::Drop},
    {"fdevice-time-trace", "fdevice-time-trace", Treatment::DropValue},
    {"keep", "keep", Treatment::Drop},
    {"keep-dir", "keep-dir", Treatment::DropValue},
    {"save-temps", "save-temps", Treatment::Drop, {}, true},
    {"clean-targets", "clean", Treatment::Drop},
    {"time", "time", Treatment::DropValue, {}, true},
    {"run-args", "run-args", Treatment::DropValue},
    {"input-drive-prefix", "idp", Treatment::DropValue},
    {"dependency-drive-prefix", "ddp", Treatment::DropValue},
    {"drive-prefix", "dp", Treatment::DropValue},
    {"no-align-double", "no-align-double", Treatment::Drop},
    {"no-device-link", "nodlink", Treatment::Drop},
    {"gpu-architecture", "arch", Treatment::DropValue},
    {"gpu-code", "code", Treatment::DropValue},
    {"generate-code", "gencode", Treatment::DropValue},
    {"relocatable-device-code", "rdc", Treatment::Relocatable},
    {"entries", "e", Treatment::DropValue, {}, true},
    {"maxrregcount", "maxrregcount", Treatment::DropValue},
    {"use_fast_math", "use_fast_math", Treatment::Drop},
    {"ftz", "ftz", Treatment::DropValue},
    {"prec-div", "prec-div", Treatment::DropValue},
    {"prec-sqrt", "prec-sqrt", Treatment::DropValue},
    {"fmad", "fmad", Treatment::DropValue},
    {"extra-device-vectorization", "extra-device-vectorization", Treatment::Drop},
    {"default-stream", "default-stream", Treatment::DefaultStream},
    {"disable-warnings", "w", Treatment::Keep, {}, true},
    {"keep-device-functions", "keep-device-functions", Treatment::Drop},
    {"source-in-ptx", "src-in-ptx", Treatment::Drop},
    {"restrict", "restrict", Treatment::Drop},
    {"Wreorder", "Wreorder", Treatment::Drop, {}, true},
    {"Wdefault-stream-launch", "Wdefault-stream-launch", Treatment::Drop},
    {"Wmissing-launch-bounds", "Wmissing-launch-bounds", Treatment::Drop},
    {"Wext-lambda-captures-this", "Wext-lambda-captures-this", Treatment::Drop},
    {"Wno-deprecated-declarations", "Wno-deprecated-declarations", Treatment::Keep, {}, true},
    {"Wno-deprecated-gpu-targets", "Wno-deprecated-gpu-targets", Treatment::Drop},
    {"Werror", "Werror", Treatment::DropValue, {}, true},
    {"resource-usage", "res-usage", Treatment::Drop},
    {"extensible-whole-program", "ewp", Treatment::Drop},
    {"no-compress", "no-compress", Treatment::Drop},
    {"qpp-config", "qpp-config", Treatment::DropValue},
    {"compile-as-tools-patch", "astoolspatch", Treatment::Drop},
    {"list-gpu-code", "code-ls", Treatment::Drop},
    {"list-gpu-arch", "arch-ls", Treatment::Drop},
    {"display-error-number", "err-no", Treatment::Drop},
    {"no-display-error-number", "no-err-no", Treatment::Drop},
    {"diag-error", "diag-error", Treatment::DropValue},
    {"diag-suppress", "diag-suppress", Treatment::DropValue},
    {"diag-warn", "diag-warn", Treatment::DropValue},
    {"host-linker-script", "hls", Treatment::DropValue},
    {"augment-host-linker-script", "aug-hls", Treatment::Drop},
    {"relocatable-link", "r", Treatment::Drop, {}, true},
    {"brief-diagnostics", "brief-diag", Treatment::DropValue},
    {"jump-table-density", "jtd", Treatment::DropValue},
    {"relocatable-ptx", "reloc-ptx", Treatment::Drop},
    {"device-stack-protector", "device-stack-protector", Treatment::DropValue},
    {"compress-mode", "compress-mode", Treatment::DropValue},
    {"frandom-seed", "frandom-seed", Treatment::DropValue, {}, true},
    {"sanitize", "sanitize", Treatment::DropValue},
    {"jobserver", "jobserver", Treatment::Drop},
    {"options-file", "optf", Treatment::DropValue},
};

bool takesValue(Treatment treatment) {
  switch (treatment) {
  case Treatment::Drop:
  case Treatment::Keep:
  case Treatment::Replace:
  case Treatment::DeviceCompile:
  case Treatment::Compile:
    return false;
  default:
    return true;
  }
}

// Options whose short form takes its value attached (`-I/path`, `-DX=1`, `-O3`) as clang's do.
bool attachesValue(const NvccOption& option) {
  return option.shortName == "I" || option.shortName == "D" || option.shortName == "U" ||
         option.shortName == "l" || option.shortName == "L" || option.shortName == "O" ||
         option.shortName == "o";
}

struct Match {
  const NvccOption* option = nullptr;
  std::optional<std::string> value; // given in the same argument (`--x=cu`, `-O3`)
};

Match matchOption(llvm::StringRef argument) {
  Match match;
  if (!argument.starts_with("-") || argument == "-") return match;
  const bool isLong = argument.starts_with("--");
  llvm::StringRef body = argument.drop_front(isLong ? 2 : 1);
  auto [name, value] = body.split('=');
  const bool hasEquals = body.contains('=');
  for (const NvccOption& option : kOptions) {
    if (name == llvm::StringRef(isLong ? option.name : option.shortName)) {
      match.option = &option;
      if (hasEquals) match.value = value.str();
      return match;
    }
  }
  if (!isLong)
    for (const NvccOption& option : kOptions)
      if (attachesValue(option) && body.starts_with(llvm::StringRef(option.shortName)) &&
          body.size() > option.shortName.size()) {
        match.option = &option;
        match.value = body.drop_front(option.shortName.size()).str();
        return match;
      }
  return match;
}

void appendList(clang::tooling::CommandLineArguments& out, llvm::StringRef clangOption,
                llvm::StringRef values) {
  llvm::SmallVector<llvm::StringRef> parts;
  values.split(parts, ',', -1, false);
  for (llvm::StringRef part : parts) {
    if (clangOption == "-include" || clangOption == "-isystem") {
      out.push_back(clangOption.str());
      out.push_back(part.str());
    } else {
      out.push_back(clangOption.str() + part.str());
    }
  }
}

bool namesNvcc(llvm::StringRef program) {
  llvm::StringRef name = llvm::sys::path::filename(program);
  return name == "nvcc" || name.starts_with("nvcc.") || name.starts_with("nvcc-");
}

} // namespace

bool isNvccCommand(const clang::tooling::CommandLineArguments& arguments) {
  if (!arguments.empty() && namesNvcc(arguments.front())) return true;
  for (std::size_t i = 1; i < arguments.size(); ++i) {
    const Match match = matchOption(arguments[i]);
    if (!match.option) continue;
    if (!match.option->sharedWithClang) return true;
    if (match.option->treatment == Treatment::Language) {
      const std::string language =
          match.value ? *match.value : (i + 1 < arguments.size() ? arguments[i + 1] : "");
      if (language == "cu") return true;
    }
  }
  return false;
}

TranslatedCommand translateNvccCommand(const clang::tooling::CommandLineArguments& arguments) {
  TranslatedCommand translated;
  clang::tooling::CommandLineArguments& out = translated.arguments;
  if (arguments.empty()) return translated;
  out.push_back(arguments.front());
  for (std::size_t i = 1; i < arguments.size(); ++i) {
    const std::string& argument = arguments[i];
    const Match match = matchOption(argument);
    if (!match.option) {
      out.push_back(argument); // an input file, or an option for the host compiler
      continue;
    }
    const NvccOption& option = *match.option;
    std::string value;
    if (takesValue(option.treatment)) {
      if (match.value) {
        value = *match.value;
      } else if (i + 1 < arguments.size()) {
        value = arguments[++i];
      }
    }
    switch (option.treatment) {
    case Treatment::Drop:
    case Treatment::DropValue:
      break;
    case Treatment::Keep:
      out.push_back(argument);
      break;
    case Treatment::KeepValue:
      if (attachesValue(option)) {
        out.push_back("-" + std::string(option.shortName) + value);
      } else {
        out.push_back("-" + std::string(option.shortName));
        out.push_back(value);
      }
      break;
    case Treatment::Replace:
      out.push_back(std::string(option.clang));
      break;
    case Treatment::CommaList:
      appendList(out, option.clang, value);
      break;
    case Treatment::HostOptions: {
      llvm::SmallVector<llvm::StringRef> parts;
      llvm::StringRef(value).split(parts, ',', -1, false);
      for (llvm::StringRef part : parts)
        out.push_back(part.str());
      break;
    }
    case Treatment::HostCompiler:
      translated.hostCompiler = value;
      break;
    case Treatment::Language:
      out.push_back("-x");
      out.push_back(value == "cu" ? "cuda" : value);
      break;
    case Treatment::Standard:
      out.push_back("-std=" + value);
      break;
    case Treatment::Relocatable:
      if (value == "true") out.push_back("-fgpu-rdc");
      break;
    case Treatment::DeviceCompile:
      out.push_back("-fgpu-rdc");
      out.push_back("-c");
      break;
    case Treatment::Compile:
      out.push_back("-c");
      break;
    case Treatment::DefaultStream:
      out.push_back(value == "per-thread" ? "-fgpu-default-stream=per-thread"
                                          : "-fgpu-default-stream=legacy");
      break;
    case Treatment::Machine:
      out.push_back("-m" + value);
      break;
    case Treatment::EqualsValue:
      out.push_back("-" + std::string(option.shortName) + "=" + value);
      break;
    }
  }
  return translated;
}

} // namespace streamrace::analyzer
