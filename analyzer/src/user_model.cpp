// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/analyzer/user_model.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

namespace streamrace::analyzer {
namespace {

llvm::Error modelError(const llvm::Twine& message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "streamrace user model: " + message);
}

llvm::Expected<std::vector<unsigned>> indexList(const llvm::json::Object& entry,
                                                llvm::StringRef key, llvm::StringRef function) {
  std::vector<unsigned> indices;
  const llvm::json::Value* value = entry.get(key);
  if (!value) return indices;
  const llvm::json::Array* array = value->getAsArray();
  if (!array) return modelError("'" + key + "' of '" + function + "' must be an array of indices");
  for (const llvm::json::Value& element : *array) {
    std::optional<int64_t> index = element.getAsInteger();
    if (!index || *index < 0)
      return modelError("'" + key + "' of '" + function + "' holds a non-index value");
    indices.push_back(static_cast<unsigned>(*index));
  }
  return indices;
}

llvm::Expected<std::optional<unsigned>>
optionalIndex(const llvm::json::Object& entry, llvm::StringRef key, llvm::StringRef function) {
  const llvm::json::Value* value = entry.get(key);
  if (!value) return std::nullopt;
  std::optional<int64_t> index = value->getAsInteger();
  if (!index || *index < 0)
    return modelError("'" + key + "' of '" + function + "' must be an argument index");
  return static_cast<unsigned>(*index);
}

} // namespace

const WrapperModel* UserModel::find(llvm::StringRef qualifiedName) const {
  if (auto exact = functions.find(qualifiedName); exact != functions.end()) return &exact->second;
  llvm::StringRef shortName = qualifiedName.rsplit("::").second;
  if (shortName.empty()) return nullptr;
  auto byShortName = functions.find(shortName);
  return byShortName == functions.end() ? nullptr : &byShortName->second;
}

llvm::Expected<UserModel> parseUserModel(llvm::StringRef json) {
  llvm::Expected<llvm::json::Value> document = llvm::json::parse(json);
  if (!document) return modelError(llvm::toString(document.takeError()));
  const llvm::json::Object* root = document->getAsObject();
  const llvm::json::Array* functions = root ? root->getArray("functions") : nullptr;
  if (!functions) return modelError("expected an object with a \"functions\" array");
  UserModel model;
  for (const llvm::json::Value& element : *functions) {
    const llvm::json::Object* entry = element.getAsObject();
    std::optional<llvm::StringRef> name = entry ? entry->getString("name") : std::nullopt;
    if (!name) return modelError("every entry of \"functions\" needs a \"name\"");
    // The Python check reads these (python/streamrace/check/user_model.py).
    if (entry->getString("language") == "python") continue;
    WrapperModel wrapper;
    auto reads = indexList(*entry, "reads", *name);
    if (!reads) return reads.takeError();
    auto writes = indexList(*entry, "writes", *name);
    if (!writes) return writes.takeError();
    auto size = optionalIndex(*entry, "size", *name);
    if (!size) return size.takeError();
    auto stream = optionalIndex(*entry, "stream", *name);
    if (!stream) return stream.takeError();
    wrapper.reads = std::move(*reads);
    wrapper.writes = std::move(*writes);
    wrapper.size = *size;
    wrapper.stream = *stream;
    if (!wrapper.stream)
      return modelError("'" + *name + "' needs a \"stream\" index: its work is stream-ordered");
    model.functions.emplace(name->str(), std::move(wrapper));
  }
  return model;
}

llvm::Expected<UserModel> loadUserModel(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file = llvm::MemoryBuffer::getFile(path);
  if (!file) return modelError("cannot read '" + path + "': " + file.getError().message());
  llvm::Expected<UserModel> model = parseUserModel((*file)->getBuffer());
  if (!model) return modelError("in '" + path + "': " + llvm::toString(model.takeError()));
  return model;
}

} // namespace streamrace::analyzer
