#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Configures and builds into build/ (or $STREAMRACE_BUILD_DIR): everything, or the targets named.
#
#   scripts/build.sh [target...]      e.g. scripts/build.sh demo-programs
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/ensure-deps.sh"
build=${STREAMRACE_BUILD_DIR:-$root/build}
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$build" ${1:+--target "$@"} -- -j"$(nproc)"
