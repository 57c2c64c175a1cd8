#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A fuzzing campaign: every libFuzzer target of test/fuzz for a given time, one after the other,
# each starting from its corpus kept in the repository (test/fuzz/corpus/<target>/). Prints, per
# target, the inputs run, their rate, the coverage reached (libFuzzer's edge and feature counts)
# and any crash; a crash's input is kept under the output folder for a regression test.
#
#   scripts/fuzz-campaign.sh [SECONDS_PER_TARGET (default 3600)] [OUTPUT_DIR] [TARGET...]
#   scripts/fuzz-campaign.sh --minimize [0 OUTPUT_DIR]
#       replaces each repository corpus by the fewest inputs of it and of the campaign's that
#       reach the same coverage (libFuzzer's -set_cover_merge=1); inputs named regression-*
#       (one that once crashed a target) stay whatever they add.
#
# Needs the clang-22 fuzz targets of the build (scripts/build.sh fuzz-trace-reader-build ...).
# Exit status 1 when a target crashed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${STREAMRACE_BUILD_DIR:-$root/build}
targets=(fuzz-trace-reader fuzz-options fuzz-suppressions)
corpus_root=$root/test/fuzz/corpus

minimize=0
if [ "${1:-}" = "--minimize" ]; then
  minimize=1
  shift
fi
seconds=${1:-3600}
out=${2:-$build/fuzz-campaign}
shift $(($# < 2 ? $# : 2))
if [ $# -gt 0 ]; then targets=("$@"); fi
case $seconds in '' | *[!0-9]*)
  echo "fuzz-campaign: SECONDS_PER_TARGET must be a whole number, got '$seconds'" >&2
  exit 2
  ;;
esac
for target in "${targets[@]}"; do
  [ -x "$build/bin/$target" ] || {
    echo "fuzz-campaign: $build/bin/$target is not built (scripts/build.sh $target-build)" >&2
    exit 2
  }
done

if [ "$minimize" = 1 ]; then
  for target in "${targets[@]}"; do
    [ -d "$out/$target/corpus" ] || continue
    minimal=$(mktemp -d)
    "$build/bin/$target" -set_cover_merge=1 -rss_limit_mb=1024 "$minimal" \
      "$corpus_root/$target" "$out/$target/corpus" >"$out/$target/merge.log" 2>&1
    find "$corpus_root/$target" -name 'regression-*' -exec cp {} "$minimal/" \;
    rm -rf "${corpus_root:?}/$target"
    mv "$minimal" "$corpus_root/$target"
    chmod 755 "$corpus_root/$target"
    echo "$target: $(find "$corpus_root/$target" -type f | wc -l) inputs," \
      "$(du -sb "$corpus_root/$target" | cut -f1) bytes in $corpus_root/$target"
  done
  exit 0
fi

crashed=0
echo "fuzz campaign: ${seconds} s per target, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for target in "${targets[@]}"; do
  work=$out/$target
  rm -rf "$work"
  mkdir -p "$work/corpus" "$work/crashes"
  # The campaign writes new inputs to its own folder; the repository's corpus is only read.
  status=0
  "$build/bin/$target" -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=1024 \
    -timeout=10 -artifact_prefix="$work/crashes/" "$work/corpus" "$corpus_root/$target" \
    >"$work/log" 2>&1 || status=$?
  # The last status line: "#1234567 DONE cov: 812 ft: 2345 corp: 120/15Kb ..." (or the last
  # progress line when it stopped on a crash).
  last=$(grep -E '^#[0-9]+' "$work/log" | tail -n 1)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log")
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corp=$(sed -n 's/.* corp: \([^ ]*\).*/\1/p' <<<"$last")
  found=$(find "$work/crashes" -type f | wc -l)
  printf '%-18s %12s execs (%s/s), cov %s, ft %s, corpus %s, %s crash input(s)%s\n' "$target" \
    "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$found" \
    "$([ "$status" -ne 0 ] && echo ", exit $status: see $work/log")"
  if [ "$found" -gt 0 ] || [ "$status" -ne 0 ]; then crashed=1; fi
done
exit "$crashed"
