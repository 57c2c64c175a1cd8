#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# `streamrace report` over the traces of hpZ jobs of 64, 256 and 1,024 ranks (8 GPUs a node, a
# WORLD communicator and one per node; hpz-synthetic writes them): events, wall and CPU time,
# peak resident memory, replayed through one engine ("merged") and settled (docs/scaling.md). Then the same job with twice the steps: memory must not move with the
# length of the run, only with its width. The finding's header must name the ranks as one
# range (`ranks 0-1023`).
#
#   many_ranks_bench.sh BUILD_DIR [STEPS (default 8)] [LAYERS (default 4)] [RANKS...]
#   e.g. many_ranks_bench.sh build 8 4 64 1024 4096
set -euo pipefail
build=$1
steps=${2:-8}
layers=${3:-4}
shift $(($# < 3 ? $# : 3))
ranks=("$@")
[ ${#ranks[@]} -gt 0 ] || ranks=(64 256 1024)
[ -x /usr/bin/time ] || { echo "many_ranks_bench: needs /usr/bin/time (GNU time)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# "ranks N, S steps: E events in F files (M MiB of traces): MODE report W s wall, C s CPU, peak P MiB"
measure() {
  local n=$1 s=$2
  "$build/bin/hpz-synthetic" --trace-dir "$work/$n" --nodes $((n / 8)) --gpus-per-node 8 \
    --layers "$layers" --steps "$s" hpz-buggy >/dev/null
  # One engine over every rank needs ~272 N^2 bytes of clocks (docs/scaling.md): past 1,024
  # ranks only the settled report is measured.
  measure_report "$n" "$s" settled
  [ "$n" -gt 1024 ] || measure_report "$n" "$s" merged
  rm -rf "${work:?}/$n"
}

measure_report() {
  local n=$1 s=$2 mode=$3 status=0 settle_from=0
  [ "$mode" = settled ] && settle_from=1
  /usr/bin/time -o "$work/time" -f "%e %U %S %M" "$build/bin/streamrace" report \
    --options=settle_from=$settle_from "$work/$n" >"$work/report" || status=$?
  [ "$status" -eq 66 ] || { echo "report of $n ranks exited $status, not 66" >&2; exit 1; }
  read -r wall user sys kib < <(tail -n 1 "$work/time") # after "Command exited with ..."
  local events files
  events=$(sed -n 's/^streamrace: replayed \([0-9]*\) events from \([0-9]*\) trace files$/\1/p' "$work/report")
  files=$(sed -n 's/^streamrace: replayed [0-9]* events from \([0-9]*\) trace files$/\1/p' "$work/report")
  awk -v n="$n" -v s="$s" -v e="$events" -v f="$files" -v mb="$(du -sm "$work/$n" | cut -f1)" \
    -v w="$wall" -v u="$user" -v y="$sys" -v k="$kib" -v mode="$mode" 'BEGIN {
      printf "ranks %5d, %2d steps: %8d events in %4d files (%4d MiB of traces): %-7s report %6.2f s wall, %6.2f s CPU, peak %6.1f MiB\n",
        n, s, e, f, mb, mode, w, u + y, k / 1024 }'
  grep -q "^SUMMARY: streamrace: 1 finding (1 race)" "$work/report" ||
    { echo "report of $n ranks lost the hpZ race" >&2; exit 1; }
  # Every rank has the race: the text report names them as one range, not n numbers.
  grep -q "^WARNING: streamrace: race (write-read) on ranks 0-$((n - 1)) (" "$work/report" ||
    { echo "report of $n ranks does not name them as the range 0-$((n - 1))" >&2; exit 1; }
}

echo "host: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for n in "${ranks[@]}"; do measure "$n" "$steps"; done
for n in "${ranks[@]}"; do measure "$n" $((steps * 2)); done
