// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Kernel annotations through NVTX alone, for programs that cannot include
// streamrace/annotations.h (PyTorch extensions, Python through the `nvtx` package, libraries that
// already use NVTX): a mark in the domain "streamrace" whose message is the specification,
// optionally preceded by the kernel's name and a colon, and whose payload, when it has one, is
// the kernel's address as a 64-bit integer.
#pragma once

#include <nvtx3/nvToolsExt.h>

namespace streamrace::tracer {

// Fills NVTX's CORE2 module table (domains, registered strings, domain marks).
void install_nvtx_annotation_handlers(NvtxFunctionTable table, unsigned int size);

// Puts `function` in slot `id` of an NVTX module's function table, if the table has that slot.
template <typename Function>
void install_nvtx_handler(NvtxFunctionTable table, unsigned int size, unsigned int id,
                          Function function) {
  if (id < size && table[id] != nullptr)
    *table[id] = reinterpret_cast<NvtxFunctionPointer>(function);
}

} // namespace streamrace::tracer
