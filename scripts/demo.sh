#!/usr/bin/env bash
# The main job. Today it shows what exists end to end: the happens-before engine replaying the
# ZeRO-3/hpZ training step of docs (4 ranks, 2 nodes) as synthetic events in every mode —
# the buggy mode's race with its fix, and silence from zero3 and both fixes. The analyzer,
# the tracer on the emulator and the reference trainer join this demo as they land.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${STREAMRACE_BUILD_DIR:-$root/build}
"$root/scripts/build.sh"
echo
echo "== streamrace: the hpZ step (HPZ.md) replayed through the engine as synthetic events"
status=0
"$build/bin/hpz-synthetic" || status=$?
if [ "$status" -ne 66 ]; then
  echo "demo: expected the buggy mode's finding (exit 66), got exit $status" >&2
  exit 1
fi
echo
echo "demo: hpz-buggy reports the copy/gather race; zero3 and both fixes are silent."
