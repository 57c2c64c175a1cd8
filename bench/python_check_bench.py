#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The Python check's speed on a whole package, on one core: a benchmark that prints figures,
never a timed test.

    bench/python_check_bench.py [--build DIR] [--repeat N] [--instructions] [FOLDER...]

Without folders it reads the installed DeepSpeed's runtime/ (the venv scripts/ensure-torch.sh
makes), the package the check is to read in under 10 s per 60,000 lines. Each run is a fresh
`python3 -m streamrace.check` process pinned to CPU 0 (taskset, where it exists); the figures
are the minimum and median of the runs, lines per second, and the time that rate gives for
60,000 lines; also the processor time the runs used (user and system), which other work on a
shared machine does not inflate as it does the elapsed time. With --instructions, also the
instructions of one more run under valgrind: the same on every run of the same code, where the
times drift with the machine.
"""
import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def installed_deepspeed_runtime(build):
    python = os.path.join(build, "venv", "bin", "python")
    if not os.access(python, os.X_OK):
        sys.exit("python_check_bench.py: no %s: run scripts/ensure-torch.sh, or name folders" %
                 python)
    found = subprocess.run([python, "-c", "import importlib.util, os; print(os.path.dirname("
                            "importlib.util.find_spec('deepspeed').origin))"],
                           capture_output=True, text=True)
    if found.returncode != 0:
        sys.exit("python_check_bench.py: DeepSpeed is not installed in %s" % python)
    return os.path.join(found.stdout.strip(), "runtime")


def lines_in(folders):
    total = 0
    for folder in folders:
        for path, _, names in os.walk(folder):
            for name in names:
                if name.endswith(".py"):
                    with open(os.path.join(path, name), "rb") as source:
                        total += source.read().count(b"\n")
    return total


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--instructions", action="store_true",
                        help="also count the instructions of one run under valgrind (minutes)")
    parser.add_argument("folders", nargs="*")
    args = parser.parse_args()
    folders = args.folders or [installed_deepspeed_runtime(args.build)]
    package = os.path.join(args.build, "lib", "streamrace", "python")
    command = [sys.executable, "-m", "streamrace.check", "--stats"] + folders
    if shutil.which("taskset"):
        command = ["taskset", "-c", "0"] + command
    environment = dict(os.environ, PYTHONPATH=package)
    seconds, cpu_seconds, findings = [], [], 0
    for _ in range(args.repeat):
        used_before = _children_cpu_seconds()
        started = time.perf_counter()
        run = subprocess.run(command, capture_output=True, text=True, env=environment)
        seconds.append(time.perf_counter() - started)
        cpu_seconds.append(_children_cpu_seconds() - used_before)
        if run.returncode not in (0, 1):
            sys.exit("python_check_bench.py: the check failed (%d):\n%s" %
                     (run.returncode, run.stderr))
        findings = run.stdout.count(": warning:")
    lines = lines_in(folders)
    best, median = min(seconds), statistics.median(seconds)
    print("python-check-bench: %s" % ", ".join(folders))
    print("  %d lines of Python, %d findings" % (lines, findings))
    print("  %.2f s best, %.2f s median of %d runs on one core" % (best, median, len(seconds)))
    print("  %.2f s best, %.2f s median of processor time" % (min(cpu_seconds),
                                                            statistics.median(cpu_seconds)))
    print("  %.0f lines per second; 60,000 lines in %.1f s (goal: under 10 s)" %
          (lines / median, 60000 * median / lines))
    if args.instructions:
        # One hash seed: string hashes order sets, and with them a little of the work.
        instructions = _instructions([sys.executable, "-m", "streamrace.check"] + folders,
                                     dict(environment, PYTHONHASHSEED="0"))
        print("  %.2f G instructions, %s per line (valgrind; the figure that does not drift "
              "with the machine's speed)" % (instructions / 1e9,
                                             "{:,.0f}".format(instructions / lines)))


def _instructions(command, environment):
    """The instructions one run executes, counted by valgrind's cachegrind: on a shared machine
    whose speed drifts by a quarter within minutes, what tells a change of a few percent."""
    if not shutil.which("valgrind"):
        sys.exit("python_check_bench.py: --instructions needs valgrind")
    with tempfile.TemporaryDirectory() as scratch:
        run = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no",
                              "--cachegrind-out-file=" + os.path.join(scratch, "counts")] +
                             command, capture_output=True, text=True, env=environment)
    counted = re.search(r"I\s+refs:\s+([\d,]+)", run.stderr)
    if run.returncode not in (0, 1) or counted is None:
        sys.exit("python_check_bench.py: valgrind could not count the run (%d):\n%s" %
                 (run.returncode, run.stderr[-2000:]))
    return int(counted.group(1).replace(",", ""))


def _children_cpu_seconds():
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


if __name__ == "__main__":
    main()
