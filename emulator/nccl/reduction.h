// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Element-wise combination of every rank's contribution for the reducing collectives.
#pragma once

#include <nccl.h>

#include <cstddef>
#include <span>

namespace streamrace::emu::nccl {

bool isValidDatatype(ncclDataType_t datatype);
bool isValidReductionOp(ncclRedOp_t op);
std::size_t datatypeSize(ncclDataType_t datatype);
const char* datatypeName(ncclDataType_t datatype);
const char* reductionOpName(ncclRedOp_t op);

// What a pre-multiplied sum is called in messages; it travels as this op code between ranks.
inline constexpr ncclRedOp_t kPreMulSumCode = ncclNumOps;

// data[i] *= *scalar, where scalar holds one element of datatype.
void scaleElements(ncclDataType_t datatype, const void* scalar, void* data, std::size_t count);

// output[i] = op over inputs[0][i], inputs[1][i], ... in rank order (ncclAvg divides the sum by
// inputs.size()). Narrow float types are combined in float and rounded once. output may alias
// an input.
void reduceElements(ncclDataType_t datatype, ncclRedOp_t op, std::span<const void* const> inputs,
                    void* output, std::size_t count);

} // namespace streamrace::emu::nccl
