#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Builds, then runs every test (lit + FileCheck suites and the GoogleTest unit tests, both
# through lit) and ends with one summary line: "tests: N passed, N failed".
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${STREAMRACE_BUILD_DIR:-$root/build}
"$root/scripts/build.sh"
"$root/scripts/ensure-torch.sh"
# The product's own code (engine, trace, reports, CLI, tracer, emulator) must also compile
# warning-free with clang++-22; the analyzer and the tests build with GCC above.
clang_build=$build/clang-22
if [ ! -f "$clang_build/build.ninja" ]; then
  cmake -S "$root" -B "$clang_build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=/usr/lib/llvm-22/bin/clang -DCMAKE_CXX_COMPILER=/usr/lib/llvm-22/bin/clang++ \
    -DSTREAMRACE_WITH_ANALYZER=OFF -DSTREAMRACE_WERROR=ON >/dev/null
fi
cmake --build "$clang_build" --target streamrace streamrace_tracer streamrace_emu_cudart \
  streamrace_emu_nccl streamrace_emu_cupti streamrace_emu_driver streamrace_emu_cublas \
  streamrace_emu_cublaslt streamrace-emu-launch \
  -- -j"$(nproc)"
log=$(mktemp)
tidy_log=$(mktemp)
trap 'rm -f "$log" "$tidy_log"' EXIT
# clang-tidy over the product code (naming included) counts as one more test.
tidy_failed=0
if ! "$root/scripts/tidy.sh" >"$tidy_log" 2>&1; then
  tidy_failed=1
  echo "clang-tidy: FAILED"
  # The diagnostics, or when there are none (no compile database, no clang-tidy), how it ended.
  grep -E '^/.*: (warning|error): ' "$tidy_log" | sed "s#^$root/##" | sort -u | head -n 100 ||
    tail -n 20 "$tidy_log"
else
  echo "clang-tidy: the product code is clean"
fi
status=0
/usr/lib/llvm-22/bin/lit -sv --time-tests "$build/test/lit" "$build/test/unit" 2>&1 | tee "$log" || status=$?
# lit's summary lines look like "  Passed: 212 (100.00%)": add up the first number after each.
count() {
  awk -v k="$1" '{ line = $0; sub(/^ +/, "", line) }
    index(line, k ":") == 1 { rest = substr(line, length(k) + 2); n += rest + 0 }
    END { print n + 0 }' "$log"
}
passed=$(($(count Passed) + $(count "Expectedly Failed") + 1 - tidy_failed))
failed=$(($(count Failed) + $(count "Unexpectedly Passed") + $(count Unresolved) + $(count "Timed Out")))
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
failed=$((failed + tidy_failed))
# A CI log that is cut keeps its head and its tail: repeat, last, the first FileCheck error of
# each failed test with the input around it, so a failure that does not reproduce is still seen.
if [ "$failed" -ne 0 ]; then
  echo "where the failed tests' checks went wrong:"
  awk '/^\*+ TEST .* FAILED \*+$/ { name = $0; shown = 0; left = 0 }
    name != "" && !shown && /\.test:[0-9]+:[0-9]+: error:/ { print name; shown = 1; left = 48 }
    left > 0 { print; left-- }
    /^# error: command failed/ { left = 0 }' "$log" | head -n 200
fi
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
