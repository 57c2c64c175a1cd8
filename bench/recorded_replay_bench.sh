#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Peak memory and time of `streamrace report`, `explain`, and `export` in every format on one
# large synthetic trace (engine-replay-bench --write-trace: 8 ranks, a training-like mix). The
# exports and `explain` record the happens-before graph; they keep no event, only a summary of
# each, so their memory should stay a small multiple of report's per million events.
#
#   recorded_replay_bench.sh BUILD_DIR [EVENTS (default 1000000)]
set -euo pipefail
build=$1
events=${2:-1000000}
[ -x /usr/bin/time ] || { echo "recorded_replay_bench: needs /usr/bin/time (GNU time)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/bin/engine-replay-bench" "$events" 64 --write-trace "$work/trace"
echo "host: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

run() {
  local name=$1
  shift
  /usr/bin/time -o "$work/time" -f "%e %U %S %M" "$build/bin/streamrace" "$@" "$work/trace" \
    >"$work/out" || true
  read -r wall user sys kib < <(tail -n 1 "$work/time") # after "Command exited with ..."
  awk -v n="$name" -v w="$wall" -v u="$user" -v s="$sys" -v k="$kib" \
    -v out="$(du -m "$work/out" | cut -f1)" 'BEGIN {
      printf "%-26s %7.2f s wall, %7.2f s CPU, peak %7.1f MiB (output %d MiB)\n",
        n, w, u + s, k / 1024, out }'
}

run report report
run "explain 1" explain 1
run "export --format=json" export --format=json
run "export --format=sarif" export --format=sarif
run "export --format=dot" export --format=dot
run "export --format=perfetto" export --format=perfetto
