// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "call_model.h"

#include "host_callback.h"
#include "library_calls.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"

namespace streamrace::analyzer {
namespace {

using api_model::ApiFunction;
using api_model::ApiRole;
using api_model::ArgMeaning;

bool isPointerLike(const clang::Expr* expr) {
  const clang::QualType type = expr->IgnoreParenImpCasts()->getType();
  return type->isPointerType() || type->isArrayType();
}

const KernelSummary* summaryOf(const clang::FunctionDecl* kernel, const KernelSummaries& kernels) {
  if (!kernel) return nullptr;
  auto found = kernels.find(kernel->getCanonicalDecl());
  return found == kernels.end() ? nullptr : &found->second;
}

// What a launch with `arguments` reaches of a pointer whose summary extent is `extent`, where
// the extent is counted in the launch's arguments.
void addKernelExtent(const ParamExtent& extent, const std::vector<const clang::Expr*>& arguments,
                     Extent& reached) {
  if (extent.kind == ParamExtent::Kind::Count && !extent.countOffset &&
      extent.countParam < arguments.size()) {
    reached.bytes = arguments[extent.countParam];
    reached.unitBytes = extent.elementBytes;
  }
  if (extent.kind == ParamExtent::Kind::Rows &&
      std::max({extent.firstRowParam, extent.endRowParam, extent.widthParam}) < arguments.size()) {
    reached.firstRow = arguments[extent.firstRowParam];
    reached.endRow = arguments[extent.endRowParam];
    reached.rowWidth = arguments[extent.widthParam];
    reached.rowsBefore = extent.rowsBefore;
    reached.rowsAfter = extent.rowsAfter;
    reached.unitBytes = extent.elementBytes;
  }
}

// The pointer arguments of a kernel launch (null where an argument is not known), accessed as
// the kernel's summary says: its mode, and its extent where its indexing bounds one (else to the
// end of the allocation); read and written when the kernel's body is not in this translation
// unit.
void addKernelArguments(const std::vector<const clang::Expr*>& arguments,
                        const clang::FunctionDecl* kernel, const KernelSummaries& kernels,
                        CallEffect& effect) {
  const KernelSummary* summary = summaryOf(kernel, kernels);
  for (unsigned index = 0; index < arguments.size(); ++index) {
    const clang::Expr* argument = arguments[index];
    if (!argument || !isPointerLike(argument)) continue;
    ParamAccess access = ParamAccess::ReadWrite;
    if (summary && index < summary->paramAccess.size()) access = summary->paramAccess[index];
    if (access == ParamAccess::None) continue;
    BufferUse use{argument, access != ParamAccess::Write, access != ParamAccess::Read, {}};
    use.atomic = access == ParamAccess::Atomic;
    if (kernel && index < kernel->getNumParams()) {
      const clang::QualType type = kernel->getParamDecl(index)->getType();
      use.handshake = type->isPointerType() && type->getPointeeType().isVolatileQualified();
    }
    if (summary && index < summary->paramExtent.size())
      if (const std::optional<ParamExtent>& extent = summary->paramExtent[index]; extent)
        addKernelExtent(*extent, arguments, use.extent);
    if (summary && index < summary->paramGuard.size())
      if (const std::optional<unsigned> guard = summary->paramGuard[index];
          guard && *guard < arguments.size())
        use.onlyIf = arguments[*guard];
    effect.buffers.push_back(use);
  }
}

std::optional<CallEffect> kernelLaunchEffect(const clang::CUDAKernelCallExpr& launch,
                                             const KernelSummaries& kernels) {
  CallEffect effect;
  const clang::FunctionDecl* kernel = launch.getDirectCallee();
  effect.operation = kernel ? "kernel '" + kernel->getNameAsString() + "'" : "kernel launch";
  const clang::CallExpr* config = launch.getConfig();
  if (config && config->getNumArgs() > 3) effect.stream = config->getArg(3);
  addKernelArguments({launch.arg_begin(), launch.arg_end()}, kernel, kernels, effect);
  return effect;
}

// Which collectives name their buffers' extent by count alone (docs/semantics.md rule 12): the
// others scale one side by the number of ranks, which the analysis does not know.
bool countIsExtent(std::optional<api_model::CollectiveKind> collective, ArgMeaning meaning) {
  using api_model::CollectiveKind;
  if (!collective) return true; // send, recv
  switch (*collective) {
  case CollectiveKind::AllReduce:
  case CollectiveKind::Broadcast:
  case CollectiveKind::Reduce:
    return true;
  case CollectiveKind::AllGather:
  case CollectiveKind::Gather:
    return meaning == ArgMeaning::ReadBuffer;
  case CollectiveKind::ReduceScatter:
  case CollectiveKind::Scatter:
    return meaning == ArgMeaning::WrittenBuffer;
  case CollectiveKind::AllToAll:
    return false;
  }
  return false;
}

Extent extentOf(const clang::CallExpr& call, const ApiFunction& function, ArgMeaning meaning) {
  Extent extent;
  switch (function.role) {
  case ApiRole::Copy:
  case ApiRole::Set:
    extent.bytes = argumentAt(call, function.argIndex(ArgMeaning::ByteSize));
    break;
  case ApiRole::Copy2D:
  case ApiRole::Set2D:
    extent.width = argumentAt(call, function.argIndex(ArgMeaning::Width));
    extent.height = argumentAt(call, function.argIndex(ArgMeaning::Height));
    extent.pitch = argumentAt(call, function.argIndex(meaning == ArgMeaning::ReadBuffer
                                                          ? ArgMeaning::SrcPitch
                                                          : ArgMeaning::DstPitch));
    break;
  case ApiRole::Collective:
  case ApiRole::Send:
  case ApiRole::Recv:
    if (countIsExtent(function.collective, meaning)) {
      extent.elements = argumentAt(call, function.argIndex(ArgMeaning::ElementCount));
      extent.datatype = argumentAt(call, function.argIndex(ArgMeaning::Datatype));
    }
    break;
  default:
    break;
  }
  return extent;
}

// The function a function-pointer argument names (`fn`, `&fn`, `(void*)fn`), or null.
const clang::FunctionDecl* functionNamedBy(const clang::Expr* argument) {
  const clang::Expr* named = argument->IgnoreParenCasts();
  if (const auto* address = llvm::dyn_cast<clang::UnaryOperator>(named);
      address && address->getOpcode() == clang::UO_AddrOf)
    named = address->getSubExpr()->IgnoreParenCasts();
  const auto* reference = llvm::dyn_cast<clang::DeclRefExpr>(named);
  return reference ? llvm::dyn_cast<clang::FunctionDecl>(reference->getDecl()) : nullptr;
}

// cudaLaunchHostFunc(stream, fn, data): what fn's body does through data, in stream order.
void addCallbackAccesses(const clang::CallExpr& call, const ApiFunction& function,
                         CallEffect& effect) {
  const clang::Expr* callback = argumentAt(call, function.argIndex(ArgMeaning::HostFunction));
  const clang::Expr* userData = argumentAt(call, function.argIndex(ArgMeaning::UserData));
  if (!callback || !userData) return;
  const clang::FunctionDecl* declared = functionNamedBy(callback);
  const clang::FunctionDecl* definition = declared ? declared->getDefinition() : nullptr;
  if (!definition) return;
  effect.operation = "host function '" + definition->getNameAsString() + "'";
  for (CallbackAccess& access : callbackAccesses(*definition)) {
    BufferUse use{userData, access.read, access.write, {}};
    use.field = std::move(access.field);
    effect.buffers.push_back(std::move(use));
  }
}

std::optional<CallEffect> apiEffect(const clang::CallExpr& call, const ApiFunction& function,
                                    clang::ASTContext& context) {
  CallEffect effect;
  effect.operation = std::string(api_model::baseName(function));
  effect.perThreadDefaultStream = api_model::usesPerThreadDefaultStream(function);
  effect.stream = argumentAt(call, function.argIndex(ArgMeaning::Stream));
  effect.event = argumentAt(call, function.argIndex(ArgMeaning::Event));
  for (std::size_t i = 0; i < function.args.size() && i < call.getNumArgs(); ++i) {
    const clang::Expr* argument = call.getArg(static_cast<unsigned>(i));
    const ArgMeaning meaning = function.args[i].meaning;
    switch (meaning) {
    case ArgMeaning::ReadBuffer:
    case ArgMeaning::WrittenBuffer:
    case ArgMeaning::ReadWrittenBuffer:
      effect.buffers.push_back({argument, meaning != ArgMeaning::WrittenBuffer,
                                meaning != ArgMeaning::ReadBuffer,
                                extentOf(call, function, meaning)});
      break;
    case ArgMeaning::FreedBuffer:
      effect.buffers.push_back({argument, false, true, {}});
      break;
    default:
      break;
    }
  }
  switch (function.role) {
  case ApiRole::Copy:
  case ApiRole::Copy2D:
    effect.isCopy = true;
    effect.synchronousApi = !function.has(ArgMeaning::Stream);
    if (function.impliedCopyKind) {
      effect.copyKind = function.impliedCopyKind;
    } else if (std::optional<int64_t> kind = constantValue(
                   argumentAt(call, function.argIndex(ArgMeaning::CopyKind)), context);
               kind && *kind >= 0 && *kind <= static_cast<int64_t>(api_model::CopyKind::Default)) {
      effect.copyKind = static_cast<api_model::CopyKind>(*kind);
    }
    return effect;
  case ApiRole::Set:
  case ApiRole::Set2D:
    effect.synchronousApi = !function.has(ArgMeaning::Stream);
    return effect;
  case ApiRole::HostFunc:
    addCallbackAccesses(call, function, effect);
    return effect;
  case ApiRole::Collective:
  case ApiRole::Send:
  case ApiRole::Recv:
  case ApiRole::GraphLaunch:
  case ApiRole::AllocAsync:
    effect.kind = CallEffectKind::Enqueue;
    effect.communicator = argumentAt(call, function.argIndex(ArgMeaning::Communicator));
    effect.graph = argumentAt(call, function.argIndex(ArgMeaning::GraphExec));
    // In-place collectives name one buffer twice: the flow engine merges the two by storage.
    // A stream-ordered allocation is work on its stream that makes the memory exist: until a
    // stream is ordered after it, using the memory there is a use before the allocation.
    if (function.role == ApiRole::AllocAsync) {
      effect.buffers.clear();
      effect.outPointer = argumentAt(call, function.argIndex(ArgMeaning::AllocatedPointerOut));
      effect.allocatedMemory = MemoryKind::Device;
    }
    return effect;
  case ApiRole::KernelLaunch: {
    effect.buffers.clear();
    return effect;
  }
  case ApiRole::EventRecord:
    effect.kind = CallEffectKind::EventRecord;
    return effect;
  case ApiRole::StreamWait:
    effect.kind = CallEffectKind::StreamWait;
    return effect;
  case ApiRole::StreamSync:
    effect.kind = CallEffectKind::StreamSync;
    return effect;
  case ApiRole::EventSync:
    effect.kind = CallEffectKind::EventSync;
    return effect;
  case ApiRole::StreamQuery:
    effect.kind = CallEffectKind::StreamQuery;
    return effect;
  case ApiRole::EventQuery:
    effect.kind = CallEffectKind::EventQuery;
    return effect;
  case ApiRole::DeviceSync:
  case ApiRole::Free:
  case ApiRole::FreeHost:
  case ApiRole::AllocManaged:
    // cudaFree, cudaFreeHost and cudaMallocManaged wait for the whole device (docs/semantics.md 8).
    effect.kind = CallEffectKind::DeviceSync;
    effect.buffers.clear();
    if (function.role == ApiRole::AllocManaged) {
      effect.outPointer = argumentAt(call, function.argIndex(ArgMeaning::AllocatedPointerOut));
      effect.allocatedMemory = MemoryKind::Managed;
    }
    return effect;
  case ApiRole::FreeAsync:
    effect.kind = CallEffectKind::FreeAsync;
    return effect;
  case ApiRole::Alloc:
  case ApiRole::AllocHost:
    effect.kind = CallEffectKind::Alloc;
    effect.outPointer = argumentAt(call, function.argIndex(ArgMeaning::AllocatedPointerOut));
    effect.allocatedMemory =
        function.role == ApiRole::Alloc ? MemoryKind::Device : MemoryKind::Pinned;
    return effect;
  case ApiRole::CaptureBegin:
    effect.kind = CallEffectKind::CaptureBegin;
    return effect;
  case ApiRole::CaptureEnd:
    effect.kind = CallEffectKind::CaptureEnd;
    effect.outPointer = argumentAt(call, function.argIndex(ArgMeaning::GraphOut));
    return effect;
  case ApiRole::GraphInstantiate:
    effect.kind = CallEffectKind::GraphInstantiate;
    effect.outPointer = argumentAt(call, function.argIndex(ArgMeaning::GraphExecOut));
    effect.graph = argumentAt(call, function.argIndex(ArgMeaning::Graph));
    return effect;
  case ApiRole::HostRegister:
    effect.kind = CallEffectKind::HostRegister;
    if (const clang::Expr* buffer = argumentAt(call, function.argIndex(ArgMeaning::HostBuffer)))
      effect.buffers.push_back({buffer, false, false, {}});
    return effect;
  case ApiRole::StreamCreate:
    effect.kind = CallEffectKind::StreamCreate;
    effect.outPointer = argumentAt(call, function.argIndex(ArgMeaning::StreamOut));
    effect.flags = argumentAt(call, function.argIndex(ArgMeaning::StreamFlags));
    return effect;
  case ApiRole::EventCreate:
    effect.kind = CallEffectKind::EventCreate;
    effect.outPointer = argumentAt(call, function.argIndex(ArgMeaning::EventOut));
    return effect;
  case ApiRole::GroupStart:
    effect.kind = CallEffectKind::GroupStart;
    return effect;
  case ApiRole::GroupEnd:
    effect.kind = CallEffectKind::GroupEnd;
    return effect;
  default:
    return std::nullopt;
  }
}

std::optional<CallEffect> wrapperEffect(const clang::CallExpr& call, llvm::StringRef name,
                                        const WrapperModel& wrapper) {
  CallEffect effect;
  effect.operation = name.str();
  effect.stream = argumentAt(call, wrapper.stream);
  for (unsigned index : wrapper.reads)
    if (const clang::Expr* argument = argumentAt(call, index))
      effect.buffers.push_back({argument, true, false, {}});
  for (unsigned index : wrapper.writes) {
    const clang::Expr* argument = argumentAt(call, index);
    if (!argument) continue;
    auto same =
        std::find_if(effect.buffers.begin(), effect.buffers.end(), [&](const BufferUse& use) {
          return use.expr->IgnoreParenImpCasts() == argument->IgnoreParenImpCasts();
        });
    if (same != effect.buffers.end())
      same->write = true;
    else
      effect.buffers.push_back({argument, false, true, {}});
  }
  return effect;
}

// cudaLaunchKernel(func, grid, block, args, ...): when `args` is a local array initialized with
// the addresses of the kernel's arguments, those arguments are the kernel's buffers.
void addLaunchKernelArguments(const clang::CallExpr& call, const KernelSummaries& kernels,
                              CallEffect& effect) {
  if (call.getNumArgs() < 4) return;
  const clang::FunctionDecl* kernel = functionNamedBy(call.getArg(0));
  if (kernel) effect.operation = "kernel '" + kernel->getNameAsString() + "'";
  const auto* argsRef = llvm::dyn_cast<clang::DeclRefExpr>(call.getArg(3)->IgnoreParenCasts());
  const auto* argsVar = argsRef ? llvm::dyn_cast<clang::VarDecl>(argsRef->getDecl()) : nullptr;
  const auto* init =
      argsVar ? llvm::dyn_cast_or_null<clang::InitListExpr>(argsVar->getInit()) : nullptr;
  if (!init) return;
  std::vector<const clang::Expr*> arguments;
  for (unsigned i = 0; i < init->getNumInits(); ++i) {
    const auto* address =
        llvm::dyn_cast<clang::UnaryOperator>(init->getInit(i)->IgnoreParenCasts());
    const bool isAddress = address && address->getOpcode() == clang::UO_AddrOf;
    arguments.push_back(isAddress ? address->getSubExpr() : nullptr);
  }
  addKernelArguments(arguments, kernel, kernels, effect);
}

} // namespace

const clang::Expr* argumentAt(const clang::CallExpr& call, std::optional<std::size_t> index) {
  if (!index || *index >= call.getNumArgs()) return nullptr;
  return call.getArg(static_cast<unsigned>(*index));
}

std::optional<int64_t> constantValue(const clang::Expr* expr, const clang::ASTContext& context) {
  if (!expr || expr->isValueDependent()) return std::nullopt;
  clang::Expr::EvalResult result;
  if (!expr->EvaluateAsInt(result, context)) return std::nullopt;
  return result.Val.getInt().getExtValue();
}

std::optional<CallEffect> classifyCall(const clang::CallExpr& call, const UserModel* userModel,
                                       const KernelSummaries& kernels, clang::ASTContext& context) {
  if (const auto* launch = llvm::dyn_cast<clang::CUDAKernelCallExpr>(&call))
    return kernelLaunchEffect(*launch, kernels);
  const clang::FunctionDecl* callee = call.getDirectCallee();
  if (!callee || !callee->getDeclName().isIdentifier()) return std::nullopt;
  const llvm::StringRef name = callee->getName();
  if (userModel)
    if (const WrapperModel* wrapper = userModel->find(callee->getQualifiedNameAsString()))
      return wrapperEffect(call, name, *wrapper);
  if (name == "free" || name == "cfree") {
    if (call.getNumArgs() != 1) return std::nullopt;
    CallEffect effect;
    effect.kind = CallEffectKind::HostFree;
    effect.operation = name.str();
    effect.buffers.push_back({call.getArg(0), false, true, {}});
    return effect;
  }
  if (name == "malloc" || name == "calloc" || name == "aligned_alloc") {
    CallEffect effect;
    effect.kind = CallEffectKind::Alloc;
    effect.operation = name.str();
    effect.allocatedMemory = MemoryKind::Pageable;
    return effect;
  }
  const ApiFunction* function = api_model::findApiFunction(name);
  if (!function) return libraryCallEffect(call, *callee, context);
  std::optional<CallEffect> effect = apiEffect(call, *function, context);
  if (effect && function->role == ApiRole::KernelLaunch)
    addLaunchKernelArguments(call, kernels, *effect);
  return effect;
}

} // namespace streamrace::analyzer
