// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "external_launchers.h"

#include "function_effects.h"
#include "handle_types.h"
#include "registration_handles.h"
#include "sub_statements.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/raw_ostream.h"

namespace streamrace::analyzer {
namespace {

// The launcher's one stream parameter, or nullopt where `callee` is no launcher.
std::optional<unsigned> launcherStream(const clang::FunctionDecl& callee,
                                       const clang::SourceManager& sources,
                                       ExternalDefinitions* external) {
  if (callee.getDefinition() || sources.isInSystemHeader(callee.getLocation()) ||
      analyzableDefinition(callee, sources, external))
    return std::nullopt;
  std::optional<unsigned> stream;
  for (unsigned i = 0; i < callee.getNumParams(); ++i) {
    const clang::QualType type = callee.getParamDecl(i)->getType();
    if (reachesHandle(type, kEventRecord) && !isHandleType(type, kEventRecord)) return std::nullopt;
    if (isStreamType(type)) {
      if (stream) return std::nullopt;
      stream = i;
    } else if (reachesHandle(type, kStreamRecord)) {
      return std::nullopt;
    }
  }
  return stream;
}

std::string spelling(const clang::Expr& expr, const clang::ASTContext& context) {
  std::string text;
  llvm::raw_string_ostream out(text);
  expr.printPretty(out, nullptr, context.getPrintingPolicy());
  return text;
}

// The call's arguments other than the stream and the pointers: what chooses the parts.
std::string choosingArguments(const clang::CallExpr& call, unsigned stream,
                              const clang::ASTContext& context) {
  std::string text;
  for (unsigned i = 0; i < call.getNumArgs(); ++i)
    if (i != stream && !call.getArg(i)->getType()->isPointerType())
      text += spelling(*call.getArg(i), context) + ";";
  return text;
}

// Whether `enclosing` also calls the launcher with the same pointer at `index` and other numbers:
// the buffer is split between the calls (a halo's rows and the interior).
bool splitBetweenCalls(const clang::CallExpr& call, unsigned index, unsigned stream,
                       const clang::FunctionDecl* enclosing, const clang::ASTContext& context) {
  if (!enclosing || !enclosing->getBody()) return false;
  const clang::FunctionDecl* callee = call.getDirectCallee()->getCanonicalDecl();
  const std::string pointer = spelling(*call.getArg(index), context);
  const std::string choice = choosingArguments(call, stream, context);
  bool split = false;
  forEachStatement(enclosing->getBody(), [&](const clang::Stmt& stmt) {
    const auto* other = llvm::dyn_cast<clang::CallExpr>(&stmt);
    split = split || (other && other != &call && other->getDirectCallee() &&
                      other->getDirectCallee()->getCanonicalDecl() == callee &&
                      other->getNumArgs() == call.getNumArgs() &&
                      spelling(*other->getArg(index), context) == pointer &&
                      choosingArguments(*other, stream, context) != choice);
  });
  return split;
}

// Whether the event argument is none: `0`, `nullptr`, or a default argument spelled so.
bool isNullEvent(const clang::Expr& argument, const clang::ASTContext& context) {
  const clang::Expr* value = &argument;
  if (const auto* defaulted = llvm::dyn_cast<clang::CXXDefaultArgExpr>(value->IgnoreImplicit()))
    value = defaulted->getExpr();
  value = value->IgnoreParenCasts();
  if (llvm::isa<clang::CXXNullPtrLiteralExpr, clang::GNUNullExpr>(value)) return true;
  const std::optional<int64_t> constant = constantValue(value, context);
  return constant && *constant == 0;
}

} // namespace

bool isExternalLauncher(const clang::FunctionDecl& callee, const clang::SourceManager& sources,
                        ExternalDefinitions* external) {
  return launcherStream(callee, sources, external).has_value();
}

std::optional<CallEffect>
externalLauncherEffect(const clang::CallExpr& call, const clang::FunctionDecl& callee,
                       const clang::FunctionDecl* enclosing, const clang::ASTContext& context,
                       ExternalDefinitions* external, const RegistrationHandles& registrations) {
  const std::optional<unsigned> stream =
      launcherStream(callee, context.getSourceManager(), external);
  if (!stream || *stream >= call.getNumArgs()) return std::nullopt;
  CallEffect effect;
  effect.operation = callee.getNameAsString();
  effect.stream = call.getArg(*stream);
  const ChosenPart part{effect.operation, choosingArguments(call, *stream, context), false};
  for (unsigned i = 0; i < callee.getNumParams() && i < call.getNumArgs(); ++i) {
    const clang::QualType type = callee.getParamDecl(i)->getType();
    if (isHandleType(type, kEventRecord)) {
      if (!isNullEvent(*call.getArg(i), context)) effect.events.push_back(call.getArg(i));
      continue;
    }
    if (type->isIntegralOrEnumerationType()) {
      // Read only, as what a `void *` points to: a send and a receive take the same handles.
      if (std::optional<RegisteredMemory> memory =
              registrations.memoryOf(*call.getArg(i), enclosing)) {
        BufferUse use{memory->expr, true, false, {}};
        use.field = memory->field;
        effect.buffers.push_back(std::move(use));
      }
      continue;
    }
    if (i == *stream || !type->isPointerType() || type->isFunctionPointerType()) continue;
    // Written only through a pointer to numbers: what a `void *` or a pointer to a struct
    // points to may be a handle or a descriptor (NVTETensor, a communicator), never a buffer
    // the call fills, as far as the declaration says.
    const clang::QualType pointee = type->getPointeeType();
    const bool writes =
        !pointee.isConstQualified() && pointee.getCanonicalType()->isArithmeticType();
    BufferUse use{call.getArg(i), true, writes, {}};
    use.part = part;
    use.part->split = splitBetweenCalls(call, i, *stream, enclosing, context);
    effect.buffers.push_back(std::move(use));
  }
  return effect;
}

} // namespace streamrace::analyzer
