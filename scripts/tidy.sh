#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Runs clang-tidy 22 with the committed .clang-tidy files over the product's C++ sources (not the
# tests), using build/compile_commands.json, and fails on any warning.
#
#   scripts/tidy.sh           the committed checks (what scripts/test.sh runs)
#   scripts/tidy.sh --deep    the same, plus the Clang Static Analyzer's path-sensitive checks
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${STREAMRACE_BUILD_DIR:-$root/build}
extra_checks=()
case "${1:-}" in
  "") ;;
  --deep) extra_checks=(-checks='clang-analyzer-*,-clang-analyzer-optin.performance.Padding') ;;
  *) echo "usage: scripts/tidy.sh [--deep]" >&2; exit 2 ;;
esac
if [ ! -f "$build/compile_commands.json" ]; then
  echo "scripts/tidy.sh: $build/compile_commands.json is missing: run scripts/build.sh first" >&2
  exit 2
fi
# CUDA sources are compiled by nvcc, whose flags clang-tidy does not read; the headers they share
# with the host code are checked through the C++ files that include them. libstdc++ 12's
# stable_sort calls get_temporary_buffer, which clang 22 reports as deprecated inside our code.
/usr/lib/llvm-22/bin/run-clang-tidy -p "$build" -j"$(nproc)" -quiet -hide-progress \
  -warnings-as-errors='*' -extra-arg=-Wno-deprecated-declarations "${extra_checks[@]}" \
  "^$root/(analyzer|api_model|bench|cli|emulator|examples|reference_hpz|runtime|tracer)/.*\.cpp\$"
