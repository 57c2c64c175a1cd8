// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// NVTX through its injection interface: a program's first NVTX call loads
// NVTX_INJECTION64_PATH and calls InitializeInjectionNvtx2, which here fills NVTX's function
// table with handlers for ranges (pushed and popped per host thread) and stream names, so
// reports can say which phase of the program and which named stream an access belongs to, and
// for the "streamrace" domain's kernel annotations (nvtx_kernel_annotations.cpp).
#include "nvtx/nvtx_kernel_annotations.h"
#include "recorder.h"

#include <nvtx3/nvToolsExt.h>

#include <string_view>

namespace streamrace::tracer {

namespace {

thread_local int range_depth = 0;

void record(std::string_view api, Payload payload) {
  Recorder* tracer = Recorder::get();
  if (tracer == nullptr) return;
  try {
    tracer->record(api, std::move(payload));
  } catch (const std::exception& error) {
    tracer->disable(error.what());
  } catch (...) {
    tracer->disable("unknown exception in an NVTX handler");
  }
}

NameId intern(const char* text) {
  Recorder* tracer = Recorder::get();
  return tracer != nullptr && text != nullptr ? tracer->intern_name(text) : 0;
}

// Both return the nesting level, as NVTX's own functions do.
int NVTX_API range_push_ascii(const char* message) {
  record("nvtxRangePushA", NvtxRangePush{intern(message)});
  return range_depth++;
}

int NVTX_API range_push_attributes(const nvtxEventAttributes_t* attributes) {
  const char* message = attributes != nullptr && attributes->messageType == NVTX_MESSAGE_TYPE_ASCII
                            ? attributes->message.ascii
                            : nullptr;
  record("nvtxRangePushEx", NvtxRangePush{intern(message)});
  return range_depth++;
}

int NVTX_API range_pop() {
  if (range_depth == 0) return -1; // NVTX's answer to a pop without a push
  record("nvtxRangePop", NvtxRangePop{});
  return --range_depth;
}

void NVTX_API name_cuda_stream(void* stream, const char* name) {
  record("nvtxNameCudaStreamA",
         NameStream{static_cast<StreamHandle>(reinterpret_cast<std::uintptr_t>(stream)),
                    intern(name)});
}

} // namespace

} // namespace streamrace::tracer

extern "C" __attribute__((visibility("default"))) int
InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table) {
  using namespace streamrace::tracer;
  const auto* callbacks =
      static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr || callbacks->GetModuleFunctionTable == nullptr) return 0;
  NvtxFunctionTable table = nullptr;
  unsigned int size = 0;
  if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &table, &size) == 0) return 0;
  install_nvtx_handler(table, size, NVTX_CBID_CORE_RangePushA, range_push_ascii);
  install_nvtx_handler(table, size, NVTX_CBID_CORE_RangePushEx, range_push_attributes);
  install_nvtx_handler(table, size, NVTX_CBID_CORE_RangePop, range_pop);
  if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &table, &size) != 0)
    install_nvtx_annotation_handlers(table, size);
  if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CUDART, &table, &size) != 0)
    install_nvtx_handler(table, size, NVTX_CBID_CUDART_NameCudaStreamA, name_cuda_stream);
  return 1;
}
