#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The main job: the ZeRO++ hpZ race found before the run, found during the run, the
# damage it does, its cost and the fix. Runs on the emulator, or on the machine's GPUs when a
# GPU and its driver are usable. Writes everything to out/demo/ (or $STREAMRACE_DEMO_DIR), with
# summary.md telling the story in this run's numbers.
#
#   scripts/demo.sh              build, then run the whole demo
#   scripts/demo.sh --platform   only say where the trainer would run (GPU or emulator) and why
#
# Environment: STREAMRACE_BUILD_DIR (default build/), STREAMRACE_DEMO_DIR, STREAMRACE_DEMO_STEPS
# (traced training steps, default 8), STREAMRACE_DEMO_COST_STEPS (cost runs, default 10),
# STREAMRACE_DEMO_DEEPSPEED=on|off (the DeepSpeed step; on by default),
# STREAMRACE_DEMO_PLATFORM=auto|emulator|gpu, STREAMRACE_DEMO_LAUNCHER (GPU runs: the command
# that starts one hpz_train per GPU; default torchrun).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${STREAMRACE_BUILD_DIR:-$root/build}
out=${STREAMRACE_DEMO_DIR:-$root/out/demo}
bin=$build/bin
steps=${STREAMRACE_DEMO_STEPS:-8}
cost_steps=${STREAMRACE_DEMO_COST_STEPS:-10}

section() { printf '\n== %s\n' "$1"; }
fail() {
  echo "streamrace demo: $*" >&2
  exit 1
}

# ---- Where the trainer runs -------------------------------------------------------------------
# A GPU is used when `nvidia-smi -L` lists one and the driver library loads; everything else
# runs on the emulator. The decision and its reason land in $platform and $platform_reason.
detect_platform() {
  local choice=${STREAMRACE_DEMO_PLATFORM:-auto} listing
  case "$choice" in
  emulator | gpu)
    platform=$choice
    platform_reason="STREAMRACE_DEMO_PLATFORM=$choice"
    return
    ;;
  auto) ;;
  *) fail "STREAMRACE_DEMO_PLATFORM must be auto, emulator or gpu, not '$choice'" ;;
  esac
  if ! listing=$(nvidia-smi -L 2>/dev/null) || ! grep -q '^GPU ' <<<"$listing"; then
    platform=emulator
    platform_reason="no GPU: 'nvidia-smi -L' failed or listed none"
  elif ! python3 -c 'import ctypes; ctypes.CDLL("libcuda.so.1")' 2>/dev/null; then
    platform=emulator
    platform_reason="'nvidia-smi -L' lists a GPU but the driver library libcuda.so.1 does not load"
  else
    platform=gpu
    platform_reason="'nvidia-smi -L' lists $(grep -c '^GPU ' <<<"$listing") GPU(s) and libcuda.so.1 loads"
  fi
}

# The GPU path needs this build's hpz_train to carry device code the GPU can run, and a launcher
# that starts one process per GPU with torchrun's variables (RANK, WORLD_SIZE, LOCAL_RANK,
# LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT). Sets $gpu_count and $launcher, or fails saying
# what is missing.
check_gpu_path() {
  [ -x "$bin/hpz_train" ] || fail "a GPU is present but the trainer's GPU build $bin/hpz_train is missing (run scripts/build.sh)"
  local architectures capability
  # The architectures nvcc compiled hpz_train's kernels for, from the build's own rules.
  architectures=$(grep -A8 '^build reference_hpz/CMakeFiles/hpz_train.dir/kernels.cu.o:' \
    "$build/build.ninja" 2>/dev/null | grep -o 'sm_[0-9]*' | sort -u -V | tr '\n' ' ' || true)
  capability=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
  [ -n "$architectures" ] || fail "a GPU is present but $build/build.ninja names no CUDA architecture for hpz_train"
  # Device code for sm_XY runs on GPUs of compute capability X.Y and, through its PTX, newer.
  local lowest=${architectures%% *}
  lowest=${lowest#sm_}
  if [ -z "$capability" ] || [ "$capability" -lt "$lowest" ]; then
    fail "this GPU (compute capability '${capability:-unknown}') cannot run this build's hpz_train, built for ${architectures% } (CMAKE_CUDA_ARCHITECTURES in reference_hpz/CMakeLists.txt); rebuild it for this GPU, or run the demo on the emulator with STREAMRACE_DEMO_PLATFORM=emulator"
  fi
  gpu_count=$(nvidia-smi -L | grep -c '^GPU ')
  launcher=${STREAMRACE_DEMO_LAUNCHER:-}
  if [ -z "$launcher" ]; then
    command -v torchrun >/dev/null ||
      fail "a GPU is present but there is no launcher: install torchrun (PyTorch) or set STREAMRACE_DEMO_LAUNCHER to a command that starts one hpz_train per GPU with RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR and MASTER_PORT set; STREAMRACE_DEMO_PLATFORM=emulator runs the demo without a GPU"
    launcher="torchrun --standalone --nnodes=1 --nproc-per-node=$gpu_count --no-python"
  fi
}

if [ "${1:-}" = "--platform" ]; then
  detect_platform
  echo "platform: $platform ($platform_reason)"
  if [ "$platform" = gpu ]; then
    check_gpu_path
    echo "launcher: $launcher"
  fi
  exit 0
fi
[ $# -eq 0 ] || fail "unknown argument '$1' (usage: scripts/demo.sh [--platform])"

"$root/scripts/build.sh" demo-programs
detect_platform
if [ "$platform" = gpu ]; then
  check_gpu_path
  geometry="1 node x $gpu_count GPUs"
else
  geometry="2 nodes x 2 GPUs of the emulator"
fi
rm -rf "$out"
mkdir -p "$out"
echo "platform: $platform ($platform_reason)" | tee "$out/platform.txt"

section "1. Before it runs: streamrace-check reads the trainer's host code"
# Each mode's step is a template instantiation; -DHPZ_ONLY_MODE keeps one, as a single-mode
# build of hpz_train does, so each analysis sees one mode's synchronization. The four run side
# by side, each also advising on host waits an event edge could replace (--advise=sync).
analyze() { # mode, extra streamrace-check arguments...
  local mode=$1
  shift
  "$bin/streamrace-check" "$root/reference_hpz/trainer.cpp" "$@" -- -std=c++20 \
    -I "$root/reference_hpz" -I "$root/emulator/include" -I /usr/local/cuda/include \
    "-DHPZ_ONLY_MODE=$mode"
}
analyze_mode() { # mode, output name
  local code=0
  analyze "$1" --advise=sync > "$out/analyzer-$2.txt" 2>&1 || code=$?
  echo "$code" > "$out/analyzer-exit-$2.txt"
}
analyze_mode HpzBuggy hpz-buggy &
analyze_mode Zero3 zero3 &
analyze_mode HpzFixHostSync hpz-fix-hostsync &
analyze_mode HpzFixEvent hpz-fix-event &
analyze HpzBuggy --format=sarif --output="$out/analyzer.sarif" > /dev/null 2>&1 &
wait
grep -E "warning:|note: an event recorded" "$out/analyzer-hpz-buggy.txt" | sed "s|$root/||g" || true
for mode in hpz-buggy zero3 hpz-fix-hostsync hpz-fix-event; do
  printf '  %-18s exit %s, %s warning(s), %s advice\n' "$mode" \
    "$(cat "$out/analyzer-exit-$mode.txt")" \
    "$(grep -c ': warning:' "$out/analyzer-$mode.txt" || true)" \
    "$(grep -c 'remark: .*\[streamrace-sync-over-strong\]' "$out/analyzer-$mode.txt" || true)"
done
grep -E "remark: .*\[streamrace-sync-over-strong\]" "$out/analyzer-hpz-fix-hostsync.txt" |
  sed "s|$root/||g" || true
echo "(diagnostics with the fix-it notes: $out/analyzer-hpz-buggy.txt; SARIF: $out/analyzer.sarif)"

# The same race in DeepSpeed's own Python (runtime/zero of the installed release), with PR
# #5216's synchronization taken out of a copy (examples/deepspeed_hpz/without_pr5216.py) and
# as published. Needs the venv of step 7.
check_python() { # name, folder
  local code=0
  "$bin/streamrace-check" "$2" > "$out/analyzer-$1.txt" 2>&1 || code=$?
  printf '  %-30s exit %s, %s warning(s), %s on the hpZ secondary partition\n' "$1" "$code" \
    "$(grep -c ': warning:' "$out/analyzer-$1.txt" || true)" \
    "$(grep -c "ds_secondary_tensor' is read" "$out/analyzer-$1.txt" || true)"
}
if [ "${STREAMRACE_DEMO_DEEPSPEED:-on}" != off ]; then
  "$root/scripts/ensure-torch.sh"
  installed=$("$build/venv/bin/python" -c 'import importlib.util, os
print(os.path.dirname(importlib.util.find_spec("deepspeed").origin))')
  without=$("$build/venv/bin/python" "$root/examples/deepspeed_hpz/without_pr5216.py")
  echo "DeepSpeed's runtime/zero, read by streamrace-check:"
  check_python deepspeed-without-pr5216 "$without/deepspeed/runtime/zero"
  check_python deepspeed-as-published "$installed/runtime/zero"
  # The first such warning and the copy it names.
  awk "/ds_secondary_tensor' is read/ && !shown { print; shown = 1; next }
    shown && /: warning:/ { exit }
    shown && /note: copy_ writes 'param.ds_secondary_tensor'/ { print; exit }" \
    "$out/analyzer-deepspeed-without-pr5216.txt" | sed "s|$without/||; s|$installed/|deepspeed/|" |
    cut -c1-240 || true
  echo "(all of them, with the calls that lead there and the fix: $out/analyzer-deepspeed-*.txt)"
fi

# The trainer under the tracer, on the emulator (2 nodes x 2 GPUs) or on this machine's GPUs.
train() { # name, extra environment..., -- trainer arguments...
  local name=$1
  shift
  local env_args=()
  while [ "$1" != "--" ]; do env_args+=("$1"); shift; done
  shift
  local code=0
  local trainer=("$bin/hpz_train" --steps "$steps" --loss-csv "$out/loss-$name.csv" "$@")
  if [ "$platform" = gpu ]; then
    # The launcher inherits the tracer's variables from `streamrace run` and passes them on.
    # shellcheck disable=SC2086 # the launcher is a command line
    "$bin/streamrace" run --output="$out/traces-$name" -- $launcher "${trainer[@]}" \
      > "$out/run-$name.out" 2> "$out/report-$name.txt" || code=$?
  else
    env LD_LIBRARY_PATH="$build/emulator/lib" STREAMRACE_EMU_NCCL_TIME_SCALE=0.01 "${env_args[@]}" \
      "$bin/streamrace" run --output="$out/traces-$name" \
      "--launcher=$bin/streamrace-emu-launch --nodes 2 --gpus-per-node 2" -- "${trainer[@]}" \
      > "$out/run-$name.out" 2> "$out/report-$name.txt" || code=$?
  fi
  echo "$code" > "$out/exit-$name.txt"
  local findings across_ranks=""
  findings=$(grep -o "SUMMARY: streamrace: [0-9]* finding" "$out/report-$name.txt" | grep -o "[0-9]*" || echo "?")
  # Counters summed over ranks: backward-gathered weights unlike the forward ones, and (when the
  # trainer counts them) weights unlike other ranks'.
  if grep -q "cross-rank mismatches:" "$out/run-$name.out"; then
    across_ranks=" (across ranks: $(mismatches "cross-rank mismatches:" "$out/run-$name.out"))"
  fi
  printf '  %-22s exit %-3s findings %-3s mismatching layer-steps %s%s\n' "$name" "$code" \
    "$findings" "$(mismatches "weight mismatches:" "$out/run-$name.out")" "$across_ranks"
}
mismatches() { # counter label, trainer output
  grep -h "$1" "$2" | grep -o "mismatches: [0-9]*" | awk '{s += $2} END {print s + 0}'
}

section "2. While it runs: hpz_train under 'streamrace run' ($geometry, $steps steps)"
train zero3 -- --mode zero3
train hpz-fix-hostsync -- --mode hpz-fix-hostsync
train hpz-fix-event -- --mode hpz-fix-event
train hpz-buggy -- --mode hpz-buggy
# The copy on C made late (the emulator's delay knob; a GPU has none) and fresh shards
# poisoned: the race now bites.
train hpz-buggy-late-copy STREAMRACE_EMU_DELAY=stream=legacy:1 -- --mode hpz-buggy --poison

section "3. The damage: loss per step (zero3 and both fixes agree bit for bit)"
python3 - "$out" "$steps" <<'EOF'
import csv, sys, pathlib
out, steps = pathlib.Path(sys.argv[1]), int(sys.argv[2])
modes = ["zero3", "hpz-fix-hostsync", "hpz-fix-event", "hpz-buggy", "hpz-buggy-late-copy"]
loss = {}
for m in modes:
    rows = list(csv.reader(open(out / f"loss-{m}.csv")))
    loss[m] = {r[0]: r[1] for r in rows if r and r[0].isdigit()}
print("  step  " + "".join(f"{m:>22}" for m in modes))
for s in range(steps):
    print(f"  {s:>4}  " + "".join(f"{loss[m].get(str(s), '-'):>22}" for m in modes))
same = all(loss[m] == loss["zero3"] for m in ["hpz-fix-hostsync", "hpz-fix-event"])
print(f"  fixed modes equal zero3 bit for bit: {'yes' if same else 'NO'}")
with open(out / "losses.csv", "w") as table:
    table.write("step," + ",".join(modes) + "\n")
    for s in range(steps):
        table.write(f"{s}," + ",".join(loss[m].get(str(s), "nan") for m in modes) + "\n")
# What the loss plot's second panel says, in words: a difference panel would be a flat line at
# zero for every run that finishes, and the NaN run cannot be drawn on it.
def verdict(mode):
    rows = [loss[mode].get(str(s), "nan") for s in range(steps)]
    nan = next((s for s, v in enumerate(rows) if "nan" in v.lower()), None)
    same = sum(1 for s, v in enumerate(rows) if v == loss["zero3"].get(str(s)))
    if nan is not None:
        return f"{mode}: NaN from step {nan} on (equal to zero3 for the {same} step(s) before)"
    if same == steps:
        return f"{mode}: equal to zero3 bit for bit at all {steps} steps"
    return f"{mode}: differs from zero3 at {steps - same} of {steps} steps"
with open(out / "loss-verdicts.gp", "w") as labels:
    for row, mode in enumerate(modes[1:]):
        text = verdict(mode).replace("'", "")
        labels.write(f"set label {row + 1} '{text}' at graph 0.03, graph {0.8 - 0.17 * row}\n")
EOF
first_nan=$(awk -F, 'NR > 1 && tolower($2) ~ /nan/ { print $1; exit }' "$out/loss-hpz-buggy-late-copy.csv")
late_title="hpz-buggy, late copy${first_nan:+ (NaN from step $first_nan on)}"
gnuplot <<EOF
set terminal pngcairo noenhanced size 900,760
set output '$out/loss.png'
set datafile separator ','
set multiplot layout 2,1 title "hpz_train, $geometry: loss of rank 0 per step" margins 0.1,0.95,0.08,0.92 spacing 0.1,0.12
set key top right opaque box
set xtics 1
set xlabel 'step'
set ylabel 'loss'
plot '$out/losses.csv' using 1:2 with linespoints lc 1 lw 4 pt 7 ps 1.6 title 'zero3', \
     '' using 1:3 with linespoints lc 2 lw 2 pt 5 title 'hpz-fix-hostsync', \
     '' using 1:4 with linespoints lc 3 lw 1 pt 1 ps 2 title 'hpz-fix-event', \
     '' using 1:5 with linespoints lc 4 lw 2 dt 2 pt 4 title 'hpz-buggy', \
     '' using 1:6 with linespoints lc 7 lw 2 dt 3 pt 9 ps 1.6 title '$late_title'
# Second panel: each run against zero3, in words (loss-verdicts.gp, written above).
set title 'each run against zero3'
unset key
unset xlabel
unset ylabel
unset tics
unset border
load '$out/loss-verdicts.gp'
plot [0:1] [0:1] NaN notitle
unset multiplot
EOF
echo "(plot: $out/loss.png)"

section "4. The race report of the undelayed buggy run (found whatever the timing)"
sed -n '/WARNING: streamrace/,/^==================$/p' "$out/report-hpz-buggy.txt" | sed "s|$root/||g" | head -40
grep "SUMMARY" "$out/report-hpz-buggy.txt" || true
"$bin/streamrace" report --format=json --output="$out/report-hpz-buggy.json" "$out/traces-hpz-buggy" > /dev/null 2>&1 || true
if "$bin/streamrace" report --help 2>/dev/null | grep -q sarif; then
  "$bin/streamrace" report --format=sarif --output="$out/report-hpz-buggy.sarif" "$out/traces-hpz-buggy" > /dev/null 2>&1 || true
else
  echo "(skipped the SARIF report of the run: this build's 'streamrace report' has no --format=sarif)"
fi
if "$bin/streamrace" export --help > /dev/null 2>&1; then
  if "$bin/streamrace" export --format=perfetto --output "$out/trace.perfetto.json" \
    "$out/traces-hpz-buggy" > "$out/export.log" 2>&1; then
    rm -f "$out/export.log"
    echo "Open out/demo/trace.perfetto.json at https://ui.perfetto.dev (or chrome://tracing)"
    [ "$out" -ef "$root/out/demo" ] || echo "(this run wrote it to $out/trace.perfetto.json)"
  else
    echo "(the Perfetto export failed; its messages: $out/export.log)"
  fi
else
  echo "(skipped the Perfetto trace: this build's streamrace has no 'export' command)"
fi

if [ "$platform" = gpu ]; then
  cost_setup="$geometry"
  cost_launcher=$launcher
  cost_env=()
else
  cost_setup="the ZeRO++ paper's setup: 2 nodes x 8 GPUs, 12.5 Gbit/s between nodes, emulated"
  # 2 nodes x 8 GPUs, 12.5 Gbit/s between nodes, NVLink-like inside; the links run 100 times
  # slower than nominal so that communication, not the emulator's CPU kernels, sets the pace.
  cost_launcher="$bin/streamrace-emu-launch --nodes 2 --gpus-per-node 8"
  cost_env=(LD_LIBRARY_PATH="$build/emulator/lib" STREAMRACE_EMU_NCCL_TIME_SCALE=100
    STREAMRACE_EMU_NCCL_INTER_GBPS=12.5 STREAMRACE_EMU_NCCL_INTRA_GBPS=1200)
fi
section "5. The cost of the fixes: zero3 against hpZ at $cost_setup ($cost_steps steps)"
env "${cost_env[@]}" python3 "$root/reference_hpz/cost_report.py" --launcher "$cost_launcher" \
  --trainer "$bin/hpz_train" --steps "$cost_steps" --out "$out/cost" | sed 's/^/  /'
gnuplot <<EOF
set terminal pngcairo noenhanced size 760,500
set output '$out/throughput.png'
set title "Throughput, median step of $cost_steps\n$cost_setup"
set style fill solid 0.7
set boxwidth 0.6
set yrange [0:*]
set offsets 0, 0, graph 0.12, 0
set ylabel 'steps per second'
stats '$out/cost/cost.dat' every ::0::0 using 2 nooutput
zero3_ms = STATS_min
plot '$out/cost/cost.dat' using 0:(1000/\$2):xtic(1) with boxes notitle, \
     '' using 0:(1000/\$2):(sprintf('%.2fx', zero3_ms/\$2)) with labels offset 0,1 notitle
EOF
echo "(plots: $out/throughput.png, $out/cost/cost.png)"
echo "Which synchronizations each fix needs (streamrace report --advise=sync, docs/sync-advice.md):"
for mode in zero3 hpz-fix-hostsync hpz-fix-event; do
  "$bin/streamrace" report --advise=sync "$out/traces-$mode" > "$out/sync-advice-$mode.txt" 2>&1 || true
done
python3 "$root/scripts/demo_summary.py" --fix-advice --out "$out" --root "$root"

section "6. The engine alone: the same step replayed as synthetic events (hpz-synthetic)"
"$bin/hpz-synthetic" hpz-buggy hpz-fix-event | grep -E "^== mode|SUMMARY" || true

section "7. In DeepSpeed itself: ZeRO++ hpZ without and with PR #5216's synchronization"
# The same race in DeepSpeed's Python code (examples/deepspeed_hpz): the release as published,
# and a copy of it with the fix's three lines taken out. Needs the PyTorch + DeepSpeed venv
# (scripts/ensure-torch.sh: about 3 GB once). STREAMRACE_DEMO_DEEPSPEED=off skips it.
deepspeed_run() { # name, script arguments...
  local name=$1
  shift
  local code=0 script=$root/examples/deepspeed_hpz/zeropp_hpz.py
  if [ "$platform" = gpu ]; then
    "$bin/streamrace" run --output="$out/traces-$name" -- "$build/venv/bin/torchrun" --standalone \
      --nproc-per-node="$gpu_count" "$script" "$@" > "$out/run-$name.out" 2> "$out/report-$name.txt" || code=$?
  else
    # The wheel's libraries carry DT_RPATH to their own CUDA copies: streamrace run preloads the
    # emulator's in their place (cuda_libraries). Event records complete 5 ms late, as on a GPU
    # running behind its host: ZeRO polls events, and a poll that finds the copy done orders it,
    # which on a busy machine hides the race the step shows (test/lit/torch/deepspeed_hpz.test).
    STREAMRACE_EMU_DELAY=kind=event:5 "$bin/streamrace" run --output="$out/traces-$name" --options="cuda_libraries=$build/emulator/lib" \
      "--launcher=$bin/streamrace-emu-launch --nodes 2 --gpus-per-node 2" -- \
      "$build/venv/bin/python" "$script" "$@" > "$out/run-$name.out" 2> "$out/report-$name.txt" || code=$?
  fi
  local findings
  findings=$(grep -o "SUMMARY: streamrace: [0-9]* finding" "$out/report-$name.txt" | grep -o "[0-9]*" || echo "?")
  printf '  %-28s exit %-3s findings %s\n' "$name" "$code" "$findings"
}
if [ "${STREAMRACE_DEMO_DEEPSPEED:-on}" = off ]; then
  echo "(skipped: STREAMRACE_DEMO_DEEPSPEED=off)"
else
  deepspeed_run deepspeed-without-pr5216 --buggy
  deepspeed_run deepspeed-as-published
  sed -n '/WARNING: streamrace/,/^  *#3 /p' "$out/report-deepspeed-without-pr5216.txt" | head -12
  grep -h "To fix:" "$out/report-deepspeed-without-pr5216.txt" | head -1
  echo "What PR #5216's synchronization does for the published run (streamrace report --advise=sync):"
  "$bin/streamrace" report --advise=sync "$out/traces-deepspeed-as-published" \
    > "$out/sync-advice-deepspeed-as-published.txt" 2>&1 || true
  python3 "$root/scripts/demo_summary.py" --pr5216-advice --out "$out" --root "$root"
fi

python3 "$root/scripts/demo_summary.py" --out "$out" --root "$root" --steps "$steps" \
  --cost-steps "$cost_steps" --cost-setup "$cost_setup" --geometry "$geometry" \
  --analyzer-modes hpz-buggy zero3 hpz-fix-hostsync hpz-fix-event
section "Written to $out (start with summary.md)"
ls "$out" | sed 's/^/  /'
