// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The kernel parameter layouts a fat binary's own device code states: in each cubin (an ELF
// entry of the fat binary nvcc registers), the `.nv.info.<kernel>` section lists, per parameter,
// its ordinal, offset and size (the EIATTR_KPARAM_INFO attributes the driver lays a launch's
// arguments out by). This is how the emulator knows the layout of a kernel taking a struct by
// value, whose size its mangled name does not tell.
#pragma once

#include "kernel_parameters.h"

#include <map>
#include <string>
#include <vector>

namespace streamrace::emu {

// The layouts stated by the fat binary behind `fatCubin` (the __fatBinC_Wrapper_t nvcc passes
// to __cudaRegisterFatBinary), by device (mangled) name; compressed cubins are decompressed
// first (fatbinary_compression.h). Entries the reader cannot take apart (PTX, a codec whose
// library is missing, a malformed or foreign structure) state nothing: their kernels keep the
// layouts their names or CPU registrations give.
std::map<std::string, std::vector<ParameterSlot>> parameterLayoutsIn(const void* fatCubin);

} // namespace streamrace::emu
