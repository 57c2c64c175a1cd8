#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Configures and builds into build/ (or $STREAMRACE_BUILD_DIR): everything, or the targets named.
# Warnings are errors (the code is warning-free with GCC and clang++-22); a compiler of another
# kind may warn where these do not: STREAMRACE_WERROR=OFF builds anyway.
#
#   scripts/build.sh [target...]      e.g. scripts/build.sh demo-programs
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/ensure-deps.sh"
build=${STREAMRACE_BUILD_DIR:-$root/build}
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DSTREAMRACE_WERROR="${STREAMRACE_WERROR:-ON}" >/dev/null
fi
cmake --build "$build" ${1:+--target "$@"} -- -j"$(nproc)"
