#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# What tracing costs a whole training job: the reference trainer (hpZ with the event fix, 2 nodes
# x 2 GPUs on the emulator) run untraced, under `streamrace run` (the processes record, the
# command checks once at the end: its default), and with the processes checking online as well
# (online_detection=1). The runs alternate, so load drifts hit each mode alike; each mode's
# median wall and CPU time (the job's processes and the command's) and its ratio to untraced.
#
#   traced_job_bench.sh BUILD_DIR [STEPS (default 2000)] [ROUNDS (default 3)]
set -euo pipefail
build=$1
steps=${2:-2000}
rounds=${3:-3}
[ -x /usr/bin/time ] || { echo "traced_job_bench: needs /usr/bin/time (GNU time)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export LD_LIBRARY_PATH=$build/emulator/lib STREAMRACE_EMU_NCCL_TIME_SCALE=0.01
launch="$build/bin/streamrace-emu-launch --nodes 2 --gpus-per-node 2"
trainer=("$build/bin/hpz_train" --mode hpz-fix-event --steps "$steps")
echo "host: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "job: hpz_train --mode hpz-fix-event --steps $steps, 2 x 2 emulated GPUs, $rounds rounds"

measure() { # MODE: appends "wall cpu" to $work/MODE
  local mode=$1
  local status=0
  case $mode in
  untraced) /usr/bin/time -o "$work/time" -f "%e %U %S" $launch -- "${trainer[@]}" \
    >/dev/null 2>"$work/err" || status=$? ;;
  recording) /usr/bin/time -o "$work/time" -f "%e %U %S" "$build/bin/streamrace" run \
    --output="$work/trace" "--launcher=$launch" -- "${trainer[@]}" >/dev/null 2>"$work/err" ||
    status=$? ;;
  online) /usr/bin/time -o "$work/time" -f "%e %U %S" "$build/bin/streamrace" run \
    --output="$work/trace" --options=online_detection=1 "--launcher=$launch" -- "${trainer[@]}" \
    >/dev/null 2>"$work/err" || status=$? ;;
  esac
  rm -rf "$work/trace"
  if [ "$status" -ne 0 ]; then
    echo "traced_job_bench: the $mode run failed (exit $status):" >&2
    tail -n 5 "$work/err" >&2
    exit 1
  fi
  tail -n 1 "$work/time" | awk '{ printf "%s %s\n", $1, $2 + $3 }' >>"$work/$mode"
}

for _ in $(seq "$rounds"); do
  for mode in untraced recording online; do measure "$mode"; done
done

median() { # FILE COLUMN
  sort -g -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END {
    print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
base_wall=$(median "$work/untraced" 1)
base_cpu=$(median "$work/untraced" 2)
for mode in untraced recording online; do
  wall=$(median "$work/$mode" 1)
  cpu=$(median "$work/$mode" 2)
  awk -v m="$mode" -v w="$wall" -v c="$cpu" -v bw="$base_wall" -v bc="$base_cpu" 'BEGIN {
    printf "%-10s %7.2f s wall (%.2fx), %7.2f s CPU (%.2fx)\n", m, w, w / bw, c, c / bc }'
done
