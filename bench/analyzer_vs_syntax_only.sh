#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Times streamrace-check against `clang++-22 -fsyntax-only` on the same files with the same flags,
# and prints the ratio; the target is <= 1.5x.
#
#   bench/analyzer_vs_syntax_only.sh [build dir] [repetitions] [files...] [-- compiler flags...]
#
# Without files it times the analyzer's real-header test inputs, the repository's .cu files and
# the reference trainer (reference_hpz/trainer.cpp). Without flags each file gets the flags it is
# built with: a .cu file `-x cuda` with the CUDA headers, a .cpp file C++20 with its own folder
# and the CUDA headers as system headers (as reference_hpz/CMakeLists.txt builds the trainer).
# clang++ also gets what streamrace-check adds by itself (for CUDA: host-only, the CUDA path, the
# CCCL include; always the resource dir), so both tools parse the same code.
#
# The two tools run alternately, each file `repetitions` times, so load from other work on the
# machine falls on both alike. Wall and CPU (user + system) seconds are summed per tool; the
# ratio of CPU seconds is the one that does not depend on how busy the machine is.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
repetitions=${2:-5}
shift $(($# > 2 ? 2 : $#))
llvm=/usr/lib/llvm-22
cuda=/usr/local/cuda
checker=$build/bin/streamrace-check
[ -x "$checker" ] || { echo "analyzer_vs_syntax_only: build streamrace-check first ($checker)" >&2; exit 2; }

files=()
while (($#)) && [ "$1" != "--" ]; do
  files+=("$1")
  shift
done
given_flags=()
if (($#)); then
  shift
  given_flags=("$@")
fi
if ((${#files[@]} == 0)); then
  mapfile -t files < <(find "$root/test/lit/analyzer" -name 'real_cuda_*.cu' | sort; \
                       find "$root/examples" "$root/reference_hpz" -name '*.cu' 2>/dev/null | sort; \
                       echo "$root/reference_hpz/trainer.cpp")
fi
((${#files[@]})) || { echo "analyzer_vs_syntax_only: no input files" >&2; exit 2; }

flags_for() { # file: the compiler flags both tools get
  if ((${#given_flags[@]})); then
    printf '%s\n' "${given_flags[@]}"
  elif [[ $1 == *.cu ]]; then
    printf '%s\n' -x cuda "-I$cuda/include"
  else
    printf '%s\n' -std=c++20 "-I$(dirname "$1")" -isystem "$cuda/include"
  fi
}

is_cuda() { # flags...: whether they make clang read CUDA
  local previous=""
  for flag in "$@"; do
    [[ $flag == -xcuda || ($previous == -x && $flag == cuda) ]] && return 0
    previous=$flag
  done
  return 1
}

TIMEFORMAT='%R %U %S'
timed() { # command...: prints "wall cpu" seconds of one run
  local times
  times=$({ time "$@" >/dev/null 2>&1; } 2>&1) || true
  awk -v t="$times" 'BEGIN { split(t, f, " "); printf "%.6f %.6f\n", f[1], f[2] + f[3] }'
}

calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
total_check_wall=0 total_check_cpu=0 total_syntax_wall=0 total_syntax_cpu=0
printf '%-34s %9s %9s %7s %9s %9s %7s\n' file check_s syntax_s ratio check_cpu syn_cpu ratio
for file in "${files[@]}"; do
  mapfile -t flags < <(flags_for "$file")
  clang_flags=("${flags[@]}")
  if is_cuda "${flags[@]}"; then
    clang_flags+=(--cuda-host-only "--cuda-path=$cuda" -Wno-unknown-cuda-version
                  -isystem "$cuda/include/cccl")
  fi
  clang_flags+=("-resource-dir=$llvm/lib/clang/22")
  check_wall=0 check_cpu=0 syntax_wall=0 syntax_cpu=0
  for ((i = 0; i < repetitions; ++i)); do
    read -r wall cpu < <(timed "$checker" "$file" -- "${flags[@]}")
    check_wall=$(calc "$check_wall + $wall") check_cpu=$(calc "$check_cpu + $cpu")
    read -r wall cpu < <(timed "$llvm/bin/clang++" -fsyntax-only "${clang_flags[@]}" "$file")
    syntax_wall=$(calc "$syntax_wall + $wall") syntax_cpu=$(calc "$syntax_cpu + $cpu")
  done
  printf '%-34s %9.3f %9.3f %7.2f %9.3f %9.3f %7.2f\n' "$(basename "$file")" \
    "$check_wall" "$syntax_wall" "$(calc "$check_wall / $syntax_wall")" \
    "$check_cpu" "$syntax_cpu" "$(calc "$check_cpu / $syntax_cpu")"
  total_check_wall=$(calc "$total_check_wall + $check_wall")
  total_check_cpu=$(calc "$total_check_cpu + $check_cpu")
  total_syntax_wall=$(calc "$total_syntax_wall + $syntax_wall")
  total_syntax_cpu=$(calc "$total_syntax_cpu + $syntax_cpu")
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf 'streamrace-check / clang++-22 -fsyntax-only over %d files x %d runs: %.2fx wall, %.2fx CPU (target <= 1.5x)\n' \
  "${#files[@]}" "$repetitions" "$(calc "$total_check_wall / $total_syntax_wall")" \
  "$(calc "$total_check_cpu / $total_syntax_cpu")"
