// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The NCCL calls a process's NCCL exports that the tracer neither interposes nor knows to order
// nothing (api_model's nccl_uninterposed.def): a newer NCCL's new calls, whose work would go
// unchecked without a word.
#pragma once

namespace streamrace::tracer {

// Reads the dynamic symbols of every loaded object that exports ncclGetVersion (libnccl, or a
// library NCCL is linked into) and says, in one line, which of its `nccl*` calls are unknown.
// Once per process; from the first communicator's creation, when NCCL is surely loaded.
void warn_of_unknown_nccl_calls();

} // namespace streamrace::tracer
