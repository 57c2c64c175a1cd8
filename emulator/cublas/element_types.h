// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The element types the emulated cuBLAS multiplies, read and written as complex doubles so one
// loop serves every type: real floating point of every width (half, bfloat16, fp8 through
// minifloat.h), complex single and double, and 8- and 32-bit integers.
#pragma once

#include <library_types.h>

#include <complex>
#include <cstddef>

namespace streamrace::emu::blas {

using Value = std::complex<double>;

// 0 for a type the emulator does not multiply.
std::size_t elementSize(cudaDataType type);
bool isComplex(cudaDataType type);

Value loadElement(cudaDataType type, const void* base, std::ptrdiff_t index);
// Rounds to the type (nearest even for floating point, saturating for integers).
void storeElement(cudaDataType type, void* base, std::ptrdiff_t index, Value value);

} // namespace streamrace::emu::blas
