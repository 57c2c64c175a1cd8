#!/usr/bin/env bash
# The main job: the ZeRO++ hpZ race (HPZ.md) found before the run, found during the run, the
# damage it does, and the fix — on the emulator, so no GPU is needed. Writes everything to
# out/demo/ (or $STREAMRACE_DEMO_DIR).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${STREAMRACE_BUILD_DIR:-$root/build}
out=${STREAMRACE_DEMO_DIR:-$root/out/demo}
"$root/scripts/build.sh"
rm -rf "$out"
mkdir -p "$out"
bin=$build/bin
steps=${STREAMRACE_DEMO_STEPS:-8}

section() { printf '\n== %s\n' "$1"; }

section "1. Before it runs: streamrace-check reads the trainer's host code"
analyze() { # extra streamrace-check arguments...
  "$bin/streamrace-check" "$root/reference_hpz/trainer.cpp" "$@" \
    -- -std=c++20 -I "$root/reference_hpz" -I "$root/emulator/include" -I /usr/local/cuda/include
}
status=0
analyze > "$out/analyzer.txt" 2>&1 || status=$?
analyze --format=sarif --output="$out/analyzer.sarif" > /dev/null 2>&1 || true
grep -E "warning:|note: an event recorded" "$out/analyzer.txt" | sed "s|$root/||g" || true
echo "(exit $status; full diagnostics with fix-it notes: $out/analyzer.txt, SARIF: $out/analyzer.sarif)"
echo "(the forwardWeights warning is a known false positive: the analyzer treats all elements of"
echo " layers_[] as one buffer — see analyzer/README.md)"

# The trainer on 2 nodes x 2 GPUs of the emulator, under the tracer.
train() { # name, extra environment..., -- trainer arguments...
  local name=$1
  shift
  local env_args=()
  while [ "$1" != "--" ]; do env_args+=("$1"); shift; done
  shift
  local code=0
  env LD_LIBRARY_PATH="$build/emulator/lib" STREAMRACE_EMU_NCCL_TIME_SCALE=0.01 "${env_args[@]}" \
    "$bin/streamrace" run --output="$out/traces-$name" \
    "--launcher=$bin/streamrace-emu-launch --nodes 2 --gpus-per-node 2" -- \
    "$bin/hpz_train" --steps "$steps" --loss-csv "$out/loss-$name.csv" "$@" \
    > "$out/run-$name.out" 2> "$out/report-$name.txt" || code=$?
  local findings
  findings=$(grep -o "SUMMARY: streamrace: [0-9]* finding" "$out/report-$name.txt" | grep -o "[0-9]*" || echo "?")
  printf '  %-22s exit %-3s findings %-3s mismatching layer-steps %s\n' "$name" "$code" "$findings" \
    "$(grep -h "weight mismatches:" "$out/run-$name.out" | grep -o "mismatches: [0-9]*" | awk '{s += $2} END {print s + 0}')"
}

section "2. While it runs: hpz_train under 'streamrace run' on the emulator (2 nodes x 2 GPUs, $steps steps)"
train zero3 -- --mode zero3
train hpz-fix-hostsync -- --mode hpz-fix-hostsync
train hpz-fix-event -- --mode hpz-fix-event
train hpz-buggy -- --mode hpz-buggy
# The copy on C made late and fresh shards poisoned: the race now bites.
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
EOF

section "4. The race report of the undelayed buggy run (found whatever the timing)"
sed -n '/WARNING: streamrace/,/^==================$/p' "$out/report-hpz-buggy.txt" | sed "s|$root/||g" | head -40
grep "SUMMARY" "$out/report-hpz-buggy.txt" || true
"$bin/streamrace" report --format=json --output="$out/report-hpz-buggy.json" "$out/traces-hpz-buggy" > /dev/null 2>&1 || true

section "5. The engine alone: the same step replayed as synthetic events (hpz-synthetic)"
"$bin/hpz-synthetic" hpz-buggy hpz-fix-event | grep -E "^== mode|SUMMARY" || true

section "Written to $out"
ls "$out" | sed 's/^/  /'
