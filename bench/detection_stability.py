#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Whether detection depends on timing: every racy example run again and again with the
emulator's jitter on, each run with another seed, and its fixed twin the same.

    bench/detection_stability.py [--build DIR] [--runs N] [--only NAME...]

The examples are the PyTorch race patterns of examples/torch_races (their ranks read from that
folder's README table) and the reference trainer's hpZ race (hpz_train --mode hpz-buggy, 2 nodes
x 2 GPUs, against --mode hpz-fix-event). Run k sets STREAMRACE_EMU_JITTER_SEED=k: random delays
before every operation, per stream, so each run interleaves the streams differently. A racy run
counts when `streamrace run` reports a finding (exit status 66), a fixed run when it reports none
(0). Prints one line an example and the totals; the exit status is 0 either way (a figure, not
a test).
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TORCH_RACES = os.path.join(ROOT, "examples", "torch_races")
RUN_TIMEOUT = 600  # seconds


def torch_examples():
    """(script, ranks) of the README table of examples/torch_races."""
    with open(os.path.join(TORCH_RACES, "README.md")) as readme:
        rows = re.findall(r"^\| `([a-z_0-9]+\.py)` \| (\d+) \|", readme.read(), re.MULTILINE)
    return [(script, int(ranks)) for script, ranks in rows]


def launcher(build, nodes, gpus):
    return "--launcher=%s --nodes %d --gpus-per-node %d" % (
        os.path.join(build, "bin", "streamrace-emu-launch"), nodes, gpus)


def examples(build):
    """(name, racy command, fixed command, streamrace run options) of every example."""
    python = os.path.join(build, "venv", "bin", "python")
    libraries = "--options=cuda_libraries=" + os.path.join(build, "emulator", "lib")
    found = []
    for script, ranks in torch_examples():
        options = [libraries] + ([launcher(build, 1, ranks)] if ranks > 1 else [])
        command = [python, os.path.join(TORCH_RACES, script)]
        found.append((script, command, command + ["--fixed"], options))
    trainer = os.path.join(build, "bin", "hpz_train")
    found.append(("hpz_train", [trainer, "--mode", "hpz-buggy", "--steps", "2"],
                  [trainer, "--mode", "hpz-fix-event", "--steps", "2"],
                  [libraries, launcher(build, 2, 2)]))
    return found


def run(build, command, options, seed, scratch):
    environment = dict(os.environ, STREAMRACE_EMU_JITTER_SEED=str(seed))
    output = os.path.join(scratch, "seed-%d" % seed)
    try:
        ran = subprocess.run([os.path.join(build, "bin", "streamrace"), "run",
                              "--output=" + output] + options + ["--"] + command,
                             capture_output=True, env=environment, timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        return None
    subprocess.run(["rm", "-rf", output])
    return ran.returncode


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--only", nargs="*", help="example names (script or hpz_train)")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    if not os.access(os.path.join(build, "venv", "bin", "python"), os.X_OK):
        print("detection_stability: %s/venv has no Python with torch: run scripts/ensure-torch.sh"
              % build, file=sys.stderr)
        return 2
    scratch = os.path.join(build, "detection-stability")
    os.makedirs(scratch, exist_ok=True)
    print("jitter: STREAMRACE_EMU_JITTER_SEED=1..%d, one seed a run; load average %s" % (
        args.runs, open("/proc/loadavg").read().split()[0]))
    found_all = silent_all = examples_run = 0
    for name, racy, fixed, options in examples(build):
        if args.only and name not in args.only:
            continue
        examples_run += 1
        racy_statuses = [run(build, racy, options, seed, scratch)
                         for seed in range(1, args.runs + 1)]
        fixed_statuses = [run(build, fixed, options, seed, scratch)
                          for seed in range(1, args.runs + 1)]
        found = racy_statuses.count(66)
        silent = fixed_statuses.count(0)
        found_all += found == args.runs
        silent_all += silent == args.runs
        others = sorted({str(s) for s in racy_statuses + fixed_statuses} - {"66", "0"})
        print("%-34s racy found %2d of %d, fixed silent %2d of %d%s" % (
            name, found, args.runs, silent, args.runs,
            "" if not others else " (other exit statuses: %s)" % ", ".join(others)))
    print("detection stability: %d of %d examples found in every run, %d of %d fixed twins "
          "silent in every run (%d runs each)" % (found_all, examples_run, silent_all,
                                                  examples_run, args.runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
