// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The library's own helper thread (STREAMRACE_EMU_NCCL_PROXY_THREAD=on): real NCCL makes CUDA
// calls on proxy and connection threads it starts during set-up, which no program call is
// behind. Off by default, as the emulator's collectives need no such thread.
#pragma once

namespace streamrace::emu::nccl {

// When the setting is on: runs the proxy's set-up on a thread of its own, for `device`, and
// returns once that thread has ended. An error of the thread's CUDA calls is returned.
bool runProxySetUp(int device);

} // namespace streamrace::emu::nccl
