#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# host-access-bench untraced, under the preloaded tracer, and under the tracer with
# watch_host_accesses=1; on the CUDA runtime LD_LIBRARY_PATH names (the emulator's without a GPU).
#   host_access_bench.sh BUILD_DIR [ITERATIONS] [KIB]
set -euo pipefail
build=$1
shift
bench=$build/bin/host-access-bench
tracer=$build/lib/libstreamrace.so
echo "untraced:         $("$bench" "$@")"
echo "traced:           $(LD_PRELOAD=$tracer STREAMRACE_OPTIONS=report_at_exit=0 "$bench" "$@")"
echo "traced, watching: $(LD_PRELOAD=$tracer STREAMRACE_OPTIONS=report_at_exit=0:watch_host_accesses=1 "$bench" "$@")"
