#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Builds, then runs every test (lit + FileCheck suites and the GoogleTest unit tests, both
# through lit) and ends with one summary line: "tests: N passed, N failed".
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${STREAMRACE_BUILD_DIR:-$root/build}
"$root/scripts/build.sh"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
/usr/lib/llvm-22/bin/lit -sv --time-tests "$build/test/lit" "$build/test/unit" 2>&1 | tee "$log" || status=$?
# lit's summary lines look like "  Passed: 212 (100.00%)": add up the first number after each.
count() {
  awk -v k="$1" '{ line = $0; sub(/^ +/, "", line) }
    index(line, k ":") == 1 { rest = substr(line, length(k) + 2); n += rest + 0 }
    END { print n + 0 }' "$log"
}
passed=$(($(count Passed) + $(count "Expectedly Failed")))
failed=$(($(count Failed) + $(count "Unexpectedly Passed") + $(count Unresolved) + $(count "Timed Out")))
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
