// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "handle_types.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Type.h"

namespace streamrace::analyzer {

bool isHandleType(clang::QualType type, llvm::StringRef record) {
  const auto* pointer = type.getCanonicalType()->getAs<clang::PointerType>();
  const clang::RecordDecl* pointee =
      pointer ? pointer->getPointeeType()->getAsRecordDecl() : nullptr;
  return pointee && pointee->getName() == record;
}

bool isStreamType(clang::QualType type) {
  return isHandleType(type, kStreamRecord);
}

bool reachesHandle(clang::QualType type, llvm::StringRef record) {
  const clang::QualType inner = type.getNonReferenceType();
  if (isHandleType(inner, record)) return true;
  const auto* pointer = inner.getCanonicalType()->getAs<clang::PointerType>();
  return pointer && isHandleType(pointer->getPointeeType(), record);
}

bool holdsStreams(clang::QualType type) {
  return llvm::StringRef(type.getCanonicalType().getAsString()).contains(kStreamRecord);
}

} // namespace streamrace::analyzer
