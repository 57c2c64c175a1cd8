#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# host-access-bench untraced, under the preloaded tracer, and under the tracer with
# watch_host_accesses=1 (the mode's cost: the last two's difference); on the CUDA runtime
# LD_LIBRARY_PATH names (the emulator's without a GPU). Prints the load average around the runs:
# on a shared machine the figures move with it.
#   host_access_bench.sh BUILD_DIR [ITERATIONS] [KIB]
set -euo pipefail
build=$1
shift
bench=$build/bin/host-access-bench
tracer=$build/lib/libstreamrace.so
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "untraced:"
"$bench" "$@"
echo "traced:"
LD_PRELOAD=$tracer STREAMRACE_OPTIONS=report_at_exit=0 "$bench" "$@"
echo "traced, watch_host_accesses=1:"
LD_PRELOAD=$tracer STREAMRACE_OPTIONS=report_at_exit=0:watch_host_accesses=1 "$bench" "$@"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
