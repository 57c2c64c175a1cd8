// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// User models for a project's own wrapper APIs: a JSON file that says which argument of
// `all_gather(buf, stream)` is read, written, a size or a stream, so calls to functions the
// analyzer cannot see into are understood like the CUDA/NCCL calls of the built-in model.
//
//   {"functions": [{"name": "all_gather", "reads": [0], "writes": [1], "size": 2, "stream": 3}]}
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace streamrace::analyzer {

struct WrapperModel {
  std::vector<unsigned> reads;
  std::vector<unsigned> writes;
  std::optional<unsigned> size;
  std::optional<unsigned> stream;
};

struct UserModel {
  // Keyed by the function's name as written (qualified names also match their last component).
  std::map<std::string, WrapperModel, std::less<>> functions;

  const WrapperModel* find(llvm::StringRef qualifiedName) const;
};

llvm::Expected<UserModel> parseUserModel(llvm::StringRef json);
llvm::Expected<UserModel> loadUserModel(llvm::StringRef path);

} // namespace streamrace::analyzer
