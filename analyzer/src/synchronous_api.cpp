// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "synchronous_api.h"

#include "streamrace/api_model/host_wait.h"

#include "clang/AST/DeclTemplate.h"

namespace streamrace::analyzer {
namespace {

using api_model::MemorySpace;

// Memory the analysis never saw allocated is pageable host memory, as the tracer takes it.
MemorySpace memorySpace(MemoryKind kind) {
  switch (kind) {
  case MemoryKind::Unknown:
  case MemoryKind::Pageable:
    return MemorySpace::Pageable;
  case MemoryKind::Pinned:
    return MemorySpace::Pinned;
  case MemoryKind::Device:
    return MemorySpace::Device;
  case MemoryKind::Managed:
    return MemorySpace::Managed;
  }
  return MemorySpace::Pageable;
}

} // namespace

bool hostWaitsOnReturn(const CallEffect& effect, MemoryKind source, MemoryKind destination) {
  if (!effect.synchronousApi)
    return effect.isCopy && effect.copyKind && destination == MemoryKind::Pageable &&
           api_model::asynchronousCopyHoldsHost(*effect.copyKind, memorySpace(source),
                                                MemorySpace::Pageable);
  if (!effect.isCopy) return api_model::synchronousSetHoldsHost(memorySpace(destination));
  // A kind the analysis cannot evaluate: any of them may hold the host, so assume the wait.
  if (!effect.copyKind) return true;
  return api_model::synchronousCopyHoldsHost(*effect.copyKind, memorySpace(source),
                                             memorySpace(destination));
}

bool ownsPageableBuffer(clang::QualType type) {
  const auto* container = llvm::dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(
      type.getCanonicalType()->getAsCXXRecordDecl());
  if (!container || !container->isInStdNamespace() || !container->getIdentifier()) return false;
  const llvm::StringRef name = container->getName();
  const unsigned allocatorPosition = name == "vector" ? 1 : name == "basic_string" ? 2 : 0;
  const clang::TemplateArgumentList& arguments = container->getTemplateArgs();
  if (allocatorPosition == 0 || arguments.size() <= allocatorPosition) return false;
  const clang::TemplateArgument& allocator = arguments[allocatorPosition];
  if (allocator.getKind() != clang::TemplateArgument::Type) return false;
  const clang::CXXRecordDecl* record = allocator.getAsType()->getAsCXXRecordDecl();
  return record && record->isInStdNamespace() && record->getIdentifier() &&
         record->getName() == "allocator";
}

} // namespace streamrace::analyzer
