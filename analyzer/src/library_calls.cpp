// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "library_calls.h"

#include "library_handles.h"

#include "streamrace/api_model/library_api.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"

namespace streamrace::analyzer {
namespace {

using api_model::ApiFunction;
using api_model::ApiRole;
using api_model::ArgMeaning;

// Whether `decl` is declared inside namespace `name` (at any depth, through inline namespaces).
bool inNamespace(const clang::Decl& decl, llvm::StringRef name) {
  for (const clang::DeclContext* context = decl.getDeclContext(); context;
       context = context->getParent())
    if (const auto* space = llvm::dyn_cast<clang::NamespaceDecl>(context);
        space && space->getName() == name)
      return true;
  return false;
}

bool isNull(const clang::Expr* expr, clang::ASTContext& context) {
  return expr && expr->IgnoreParenCasts()->isNullPointerConstant(
                     context, clang::Expr::NPC_ValueDependentIsNotNull);
}

// The members a descriptor's creation binds its pointers to, and a call reads them under.
constexpr std::pair<ArgMeaning, llvm::StringLiteral> kDescribedMembers[] = {
    {ArgMeaning::DescribedOffsets, kDescribedOffsets},
    {ArgMeaning::DescribedIndices, kDescribedIndices},
    {ArgMeaning::DescribedValues, kDescribedValues},
};

// A descriptor argument: the memory each member it may hold names, accessed as `meaning` says.
void addDescribedUses(const clang::Expr* descriptor, ArgMeaning meaning, CallEffect& effect) {
  for (const auto& [member, field] : kDescribedMembers) {
    BufferUse use{descriptor,
                  meaning != ArgMeaning::WrittenDescribed,
                  meaning != ArgMeaning::ReadDescribed,
                  {}};
    use.field = field.str();
    use.boundMemberOnly = true;
    effect.buffers.push_back(std::move(use));
  }
}

// The buffers a library call accesses, by the table's meanings. False when the call only asks
// CUB for its temporary storage size.
bool addAccesses(const clang::CallExpr& call, const ApiFunction& function, CallEffect& effect,
                 clang::ASTContext& context) {
  for (std::size_t i = 0; i < function.args.size() && i < call.getNumArgs(); ++i) {
    const clang::Expr* argument = call.getArg(static_cast<unsigned>(i));
    switch (const ArgMeaning meaning = function.args[i].meaning) {
    case ArgMeaning::TempStorage:
      if (isNull(argument, context)) return false;
      effect.buffers.push_back({argument, true, true, {}});
      break;
    case ArgMeaning::ReadBuffer:
    case ArgMeaning::WrittenBuffer:
    case ArgMeaning::ReadWrittenBuffer:
      effect.buffers.push_back(
          {argument, meaning != ArgMeaning::WrittenBuffer, meaning != ArgMeaning::ReadBuffer, {}});
      break;
    case ArgMeaning::ReadDescribed:
    case ArgMeaning::WrittenDescribed:
    case ArgMeaning::ReadWrittenDescribed:
      addDescribedUses(argument, meaning, effect);
      break;
    default:
      break;
    }
  }
  return true;
}

// What a descriptor's creation stores: each pointer under its member.
CallEffect descriptorEffect(const clang::CallExpr& call, const ApiFunction& function) {
  CallEffect effect;
  effect.kind = CallEffectKind::HoldBuffers;
  effect.operation = std::string(function.name);
  effect.outPointer = argumentAt(call, function.argIndex(ArgMeaning::DescriptorOut));
  for (const auto& [member, field] : kDescribedMembers)
    if (const clang::Expr* pointer = argumentAt(call, function.argIndex(member))) {
      BufferUse use{pointer, false, false, {}};
      use.field = field.str();
      effect.buffers.push_back(std::move(use));
    }
  return effect;
}

std::optional<CallEffect> tableEffect(const clang::CallExpr& call, const ApiFunction& function,
                                      std::string operation, clang::ASTContext& context) {
  CallEffect effect;
  effect.operation = std::move(operation);
  switch (function.role) {
  case ApiRole::LibraryCreate:
    effect.kind = CallEffectKind::BindStream;
    effect.handle = argumentAt(call, function.argIndex(ArgMeaning::LibraryHandleOut));
    return effect.handle ? std::optional(effect) : std::nullopt;
  case ApiRole::LibrarySetStream:
    effect.kind = CallEffectKind::BindStream;
    effect.handle = argumentAt(call, function.argIndex(ArgMeaning::LibraryHandle));
    effect.stream = argumentAt(call, function.argIndex(ArgMeaning::Stream));
    return effect.handle && effect.stream ? std::optional(effect) : std::nullopt;
  case ApiRole::DescriptorCreate:
    return descriptorEffect(call, function);
  case ApiRole::LibraryWork:
    // A stream argument wins; otherwise the handle's stream; neither: the legacy stream.
    if (function.has(ArgMeaning::Stream))
      effect.stream = argumentAt(call, function.argIndex(ArgMeaning::Stream));
    else
      effect.handle = argumentAt(call, function.argIndex(ArgMeaning::LibraryHandle));
    effect.waitsForItsStream = function.hostSync == api_model::HostSync::Blocking;
    if (!addAccesses(call, function, effect, context)) {
      effect.kind = CallEffectKind::NoWork;
      effect.buffers.clear();
    }
    return effect;
  default:
    return std::nullopt;
  }
}

// A thrust execution policy that runs on the device: its stream (null for the default stream)
// and whether the algorithm waits for it before returning.
struct DevicePolicy {
  const clang::Expr* stream = nullptr;
  bool synchronous = true;
};

// How many local variables a policy is followed through (`auto policy = par.on(s);`).
constexpr unsigned kMaxPolicyHops = 2;

std::optional<DevicePolicy> devicePolicyOf(const clang::Expr* expr, unsigned hops = 0) {
  if (!expr) return std::nullopt;
  expr = expr->IgnoreImplicit()->IgnoreParens();
  if (const auto* copy = llvm::dyn_cast<clang::CXXConstructExpr>(expr);
      copy && copy->getNumArgs() == 1)
    return devicePolicyOf(copy->getArg(0), hops);
  // `thrust::cuda::par.on(s)`, `thrust::cuda::par_nosync.on(s)`.
  if (const auto* on = llvm::dyn_cast<clang::CXXMemberCallExpr>(expr)) {
    const clang::CXXMethodDecl* method = on->getMethodDecl();
    if (!method || !method->getDeclName().isIdentifier() || method->getName() != "on" ||
        on->getNumArgs() != 1 || !inNamespace(*method, "thrust"))
      return std::nullopt;
    std::optional<DevicePolicy> policy = devicePolicyOf(on->getImplicitObjectArgument(), hops);
    if (!policy) return std::nullopt;
    policy->stream = on->getArg(0);
    return policy;
  }
  const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(expr);
  const auto* var = reference ? llvm::dyn_cast<clang::VarDecl>(reference->getDecl()) : nullptr;
  if (!var) return std::nullopt;
  if (var->hasLocalStorage())
    return hops < kMaxPolicyHops ? devicePolicyOf(var->getInit(), hops + 1) : std::nullopt;
  // `thrust::device`, `thrust::cuda::par`, `thrust::cuda::par_nosync`: the default stream.
  if (!inNamespace(*var, "thrust")) return std::nullopt;
  const llvm::StringRef name = var->getName();
  if (name != "device" && name != "par" && name != "par_nosync") return std::nullopt;
  // Namespace thrust::cuda's `par` and thrust's `device`, not the host system's `thrust::cpp::par`.
  if (name == "par" && !inNamespace(*var, "cuda_cub") && !inNamespace(*var, "cuda"))
    return std::nullopt;
  return DevicePolicy{nullptr, name != "par_nosync"};
}

std::optional<CallEffect> thrustEffect(const clang::CallExpr& call,
                                       const clang::FunctionDecl& callee,
                                       clang::ASTContext& context) {
  if (call.getNumArgs() == 0) return std::nullopt;
  const ApiFunction* function = api_model::findThrustAlgorithm(callee.getName(), call.getNumArgs());
  if (!function) return std::nullopt;
  std::optional<DevicePolicy> policy =
      devicePolicyOf(argumentAt(call, function->argIndex(ArgMeaning::ExecutionPolicy)));
  if (!policy) return std::nullopt;
  std::optional<CallEffect> effect =
      tableEffect(call, *function, "thrust::" + callee.getName().str(), context);
  if (!effect) return std::nullopt;
  effect->stream = policy->stream;
  effect->waitsForItsStream = effect->waitsForItsStream || policy->synchronous;
  return effect;
}

std::optional<CallEffect> cubEffect(const clang::CallExpr& call, const clang::CXXMethodDecl& method,
                                    clang::ASTContext& context) {
  const clang::CXXRecordDecl* scope = method.getParent();
  if (!scope || !scope->getIdentifier() || !inNamespace(*scope, "cub")) return std::nullopt;
  const ApiFunction* function =
      api_model::findCubAlgorithm(scope->getName(), method.getName(), call.getNumArgs());
  if (!function) return std::nullopt;
  return tableEffect(call, *function, "cub::" + std::string(function->name), context);
}

} // namespace

std::optional<CallEffect> libraryCallEffect(const clang::CallExpr& call,
                                            const clang::FunctionDecl& callee,
                                            clang::ASTContext& context) {
  if (!callee.getDeclName().isIdentifier()) return std::nullopt;
  if (const ApiFunction* function = api_model::findLibraryFunction(callee.getName()))
    return tableEffect(call, *function, std::string(function->name), context);
  if (const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(&callee);
      method && method->isStatic())
    return cubEffect(call, *method, context);
  if (inNamespace(callee, "thrust")) return thrustEffect(call, callee, context);
  return std::nullopt;
}

} // namespace streamrace::analyzer
