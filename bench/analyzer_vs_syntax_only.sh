#!/usr/bin/env bash
# Times streamrace-check against `clang++-22 -fsyntax-only` on the same CUDA sources with the same
# flags (what the analyzer adds for .cu host code), and prints the ratio; the target is <= 1.5x.
#
#   bench/analyzer_vs_syntax_only.sh [build dir] [repetitions] [files...]
# Without files it times the analyzer's real-header test inputs and the repository's .cu examples.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
repetitions=${2:-5}
shift $(($# > 2 ? 2 : $#))
llvm=/usr/lib/llvm-22
checker=$build/bin/streamrace-check
[ -x "$checker" ] || { echo "analyzer_vs_syntax_only: build streamrace-check first ($checker)" >&2; exit 2; }

files=("$@")
if ((${#files[@]} == 0)); then
  mapfile -t files < <(find "$root/test/lit/analyzer" -maxdepth 1 -name 'real_cuda_*.cu'; \
                       find "$root/examples" "$root/reference_hpz" -name '*.cu' 2>/dev/null)
fi
((${#files[@]})) || { echo "analyzer_vs_syntax_only: no input files" >&2; exit 2; }

flags=(-x cuda -I/usr/local/cuda/include)
clang_flags=("${flags[@]}" --cuda-host-only --cuda-path=/usr/local/cuda -Wno-unknown-cuda-version
             -isystem /usr/local/cuda/include/cccl -resource-dir="$llvm/lib/clang/22")

seconds_of() { # runs "$@" $repetitions times, prints the total wall time in seconds
  local start end
  start=$(date +%s.%N)
  for ((i = 0; i < repetitions; ++i)); do "$@" >/dev/null 2>&1 || true; done
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f", b - a }'
}

calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }

total_check=0
total_syntax=0
printf '%-48s %12s %12s %8s\n' file check_s syntax_s ratio
for file in "${files[@]}"; do
  check=$(seconds_of "$checker" "$file" -- "${flags[@]}")
  syntax=$(seconds_of "$llvm/bin/clang++" -fsyntax-only "${clang_flags[@]}" "$file")
  printf '%-48s %12.3f %12.3f %8.2f\n' "$(basename "$file")" "$check" "$syntax" \
    "$(calc "$check / $syntax")"
  total_check=$(calc "$total_check + $check")
  total_syntax=$(calc "$total_syntax + $syntax")
done
printf 'streamrace-check / clang++-22 -fsyntax-only over %d files x %d runs: %.2fx (target <= 1.5x)\n' \
  "${#files[@]}" "$repetitions" "$(calc "$total_check / $total_syntax")"
