// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What a refused entry point of the emulated cuBLAS returns: CUBLAS_STATUS_NOT_SUPPORTED (its
// value is checked against cublas_api.h where the header is included).
#pragma once

inline constexpr int kRefusedStatus = 15;
