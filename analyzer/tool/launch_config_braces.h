// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// nvcc accepts braced lists in a kernel launch configuration (`k<<<grid, {32, 8, 1}>>>(...)`);
// clang's parser takes only expressions there. Sources are read through a file system that
// writes such an argument as `dim3{32, 8, 1}` (what nvcc makes of it), taking the four characters
// from spaces next to punctuation in the configuration or later on the same line, so every file
// keeps its length and every line its number, and tokens before the launch keep their columns.
#pragma once

#include "llvm/ADT/IntrusiveRefCntPtr.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <optional>
#include <string>

namespace streamrace::analyzer {

// `text` with each braced launch-configuration argument written as a dim3, or nullopt when there
// is none (or no room for one on its line: that launch stays as it is).
std::optional<std::string> bracedLaunchConfigsAsDim3(llvm::StringRef text);

// `base`, with files that hold braced launch configurations read as bracedLaunchConfigsAsDim3
// gives them.
llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>
launchConfigRewritingFileSystem(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> base);

} // namespace streamrace::analyzer
