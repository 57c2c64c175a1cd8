// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "nvtx/nvtx_kernel_annotations.h"

#include "kernels/annotation_entry.h"
#include "kernels/kernel_rules.h"
#include "recorder.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>

namespace streamrace::tracer {

namespace {

constexpr std::string_view kDomainName = "streamrace";

// Domain handles are the addresses of their names, and registered strings (kept for the
// streamrace domain only; other domains get NVTX's tool-less answer, a null handle) the addresses
// of their texts: both live as long as the process, as NVTX handles do.
struct Registry {
  std::mutex mutex;
  std::set<std::string, std::less<>> domains;
  std::deque<std::string> strings;
  std::unordered_set<const std::string*> string_handles;
  std::atomic<const void*> streamrace_domain{nullptr};

  static Registry& get() {
    static Registry* const registry = std::make_unique<Registry>().release();
    return *registry;
  }
};

// Wide strings become narrow ones when they are ASCII (specifications and kernel names are).
std::optional<std::string> ascii_of(const wchar_t* text) {
  if (text == nullptr) return std::nullopt;
  std::string narrow;
  for (; *text != L'\0'; ++text) {
    if (*text < 0 || *text > 0x7f) return std::nullopt;
    narrow.push_back(static_cast<char>(*text));
  }
  return narrow;
}

nvtxDomainHandle_t create_domain(std::string_view name) {
  Registry& registry = Registry::get();
  std::lock_guard lock(registry.mutex);
  auto it = registry.domains.find(name);
  if (it == registry.domains.end()) it = registry.domains.emplace(name).first;
  const void* handle = &*it;
  if (name == kDomainName) registry.streamrace_domain.store(handle);
  return static_cast<nvtxDomainHandle_t>(const_cast<void*>(handle));
}

bool is_streamrace_domain(nvtxDomainHandle_t domain) {
  return domain != nullptr && domain == Registry::get().streamrace_domain.load();
}

nvtxStringHandle_t register_string(nvtxDomainHandle_t domain, std::string text) {
  if (!is_streamrace_domain(domain)) return nullptr;
  Registry& registry = Registry::get();
  std::lock_guard lock(registry.mutex);
  const std::string* stored = &registry.strings.emplace_back(std::move(text));
  registry.string_handles.insert(stored);
  return reinterpret_cast<nvtxStringHandle_t>(const_cast<std::string*>(stored));
}

// NVTX calls these from C: nothing may escape them. An internal error disables the tracer and
// gives NVTX's tool-less answer.
template <typename Handle, typename Body> Handle guarded(Body&& body) {
  try {
    return body();
  } catch (const std::exception& error) {
    if (Recorder* tracer = Recorder::get()) tracer->disable(error.what());
  } catch (...) {
    if (Recorder* tracer = Recorder::get()) tracer->disable("unknown exception in an NVTX handler");
  }
  return nullptr;
}

nvtxDomainHandle_t NVTX_API domain_create_ascii(const char* name) {
  return guarded<nvtxDomainHandle_t>([&] { return create_domain(name != nullptr ? name : ""); });
}

nvtxDomainHandle_t NVTX_API domain_create_wide(const wchar_t* name) {
  return guarded<nvtxDomainHandle_t>([&] { return create_domain(ascii_of(name).value_or("")); });
}

nvtxStringHandle_t NVTX_API register_string_ascii(nvtxDomainHandle_t domain, const char* text) {
  return guarded<nvtxStringHandle_t>(
      [&] { return text != nullptr ? register_string(domain, text) : nullptr; });
}

nvtxStringHandle_t NVTX_API register_string_wide(nvtxDomainHandle_t domain, const wchar_t* text) {
  return guarded<nvtxStringHandle_t>([&] {
    std::optional<std::string> narrow = ascii_of(text);
    return narrow ? register_string(domain, std::move(*narrow)) : nullptr;
  });
}

// The mark's message, whichever way NVTX carries it.
std::optional<std::string> message_of(const nvtxEventAttributes_t& attributes) {
  switch (attributes.messageType) {
  case NVTX_MESSAGE_TYPE_ASCII:
    if (attributes.message.ascii != nullptr) return std::string(attributes.message.ascii);
    return std::nullopt;
  case NVTX_MESSAGE_TYPE_UNICODE:
    return ascii_of(attributes.message.unicode);
  case NVTX_MESSAGE_TYPE_REGISTERED: {
    Registry& registry = Registry::get();
    const auto* text = reinterpret_cast<const std::string*>(attributes.message.registered);
    std::lock_guard lock(registry.mutex);
    if (registry.string_handles.contains(text)) return *text;
    return std::nullopt;
  }
  default:
    return std::nullopt;
  }
}

void warn(std::string_view why) {
  std::fprintf(stderr, "streamrace: warning: NVTX kernel annotation ignored: %.*s\n",
               static_cast<int>(why.size()), why.data());
}

void annotate_from_mark(const nvtxEventAttributes_t& attributes) {
  const std::optional<std::string> message = message_of(attributes);
  if (!message) {
    warn("a mark in the streamrace domain needs an ASCII message (or a string registered in that "
         "domain): \"[kernel name:] specification\"");
    return;
  }
  const void* function = nullptr;
  if (attributes.payloadType == NVTX_PAYLOAD_TYPE_UNSIGNED_INT64 ||
      attributes.payloadType == NVTX_PAYLOAD_TYPE_INT64) {
    function =
        reinterpret_cast<const void*>(static_cast<std::uintptr_t>(attributes.payload.ullValue));
  } else if (attributes.payloadType != NVTX_PAYLOAD_UNKNOWN) {
    warn("\"" + *message + "\": the payload must be the kernel's address as a 64-bit integer");
    return;
  }
  const auto [name, specification] = split_annotation_message(*message);
  if (function == nullptr && name.empty()) {
    warn("\"" + *message +
         "\" names no kernel: give its address as a 64-bit payload, or write "
         "\"kernel name: specification\"");
    return;
  }
  accept_kernel_annotation(function, name, specification,
                           "NVTX kernel annotation \"" + *message + "\"");
}

void NVTX_API domain_mark(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes) {
  if (attributes == nullptr || !is_streamrace_domain(domain)) return;
  Recorder* tracer = Recorder::get();
  if (tracer == nullptr) return;
  try {
    annotate_from_mark(*attributes);
  } catch (const std::exception& error) {
    tracer->disable(error.what());
  } catch (...) {
    tracer->disable("unknown exception in an NVTX handler");
  }
}

} // namespace

void install_nvtx_annotation_handlers(NvtxFunctionTable table, unsigned int size) {
  install_nvtx_handler(table, size, NVTX_CBID_CORE2_DomainCreateA, domain_create_ascii);
  install_nvtx_handler(table, size, NVTX_CBID_CORE2_DomainCreateW, domain_create_wide);
  install_nvtx_handler(table, size, NVTX_CBID_CORE2_DomainRegisterStringA, register_string_ascii);
  install_nvtx_handler(table, size, NVTX_CBID_CORE2_DomainRegisterStringW, register_string_wide);
  install_nvtx_handler(table, size, NVTX_CBID_CORE2_DomainMarkEx, domain_mark);
}

} // namespace streamrace::tracer
