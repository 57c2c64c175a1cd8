#!/usr/bin/env bash
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
count() { awk -v k="$1" '$0 ~ "^ *"k" *: *[0-9]+" {gsub(/[^0-9]/, "", $0); n += $0} END {print n + 0}' "$log"; }
passed=$(($(count Passed) + $(count "Expectedly Failed")))
failed=$(($(count Failed) + $(count "Unexpectedly Passed") + $(count Unresolved) + $(count "Timed Out")))
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
