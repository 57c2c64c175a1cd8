#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The device check: the suite's single-GPU programs under the tracer on a real GPU, their
findings held against the emulator's.

    scripts/gpu-check.sh [--build DIR] [--cuda DIR] [--python PATH] [--emulator]
                         [--skip-bench] [--update] [--expected FILE]

Runs from a build folder carried to the GPU machine (no network, nothing built): C++ programs
with a shared and a statically linked CUDA runtime, racy ones and their ordered twins, a
host-watching case, PyTorch scripts, and `tracer-overhead-bench`. The C++ programs find the
toolkit's libraries in the --cuda folder (default $CUDA_HOME, else /usr/local/cuda); the PyTorch
scripts run with --python (default the build folder's venv, which is not relocatable: on a
machine where its interpreter is elsewhere, give a Python that has torch).
Each case's findings are written in a form free of addresses, threads and timings, one line a
finding, and compared with `scripts/gpu-check.expected`, which is what the emulator gives. A
statically linked runtime cannot run on the emulator: its cases are expected to give what the
same program gives with the shared runtime, and the check of the expected file says so.

`--emulator` runs the same cases on the emulator (the statically linked ones are skipped): it is
how the suite keeps the script and the expected file right without a GPU. `--update` rewrites
the expected file from the run (the static cases copied from their shared twins).

Exit status: 0 when every case gives what is expected, 1 when one differs, 2 when the check
cannot run (no GPU without --emulator, a build folder without the programs).
"""
import argparse
import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXPECTED = os.path.join(ROOT, "scripts", "gpu-check.expected")
CASE_TIMEOUT = 300  # seconds; a case on a GPU takes a few
STATIC_SUFFIX = "_static"


@dataclass
class Case:
    name: str             # what the expected file calls it: the program and its arguments
    command: list         # relative to the build folder, or a script of the repository
    options: list = field(default_factory=list)   # streamrace run options: key=value
    python: bool = False  # run with the build folder's venv
    summaries: bool = False   # with the analyzer's kernel summaries of kernel_races.cu

    @property
    def static(self):
        return self.name.split()[0].endswith(STATIC_SUFFIX)

    @property
    def shared_twin(self):
        program, _, arguments = self.name.partition(" ")
        return program[:-len(STATIC_SUFFIX)] + " " + arguments


KERNEL_SOURCE = os.path.join(ROOT, "test", "lit", "tracer", "Inputs", "kernel_races.cu")


PROGRAMS = "test/lit/tracer/programs/"
TORCH_RACES = os.path.join(ROOT, "examples", "torch_races")


def program_cases(program, scenarios, options=(), summaries=False):
    suffix = " (kernel summaries)" if summaries else ""
    return [Case("%s %s%s" % (program, scenario, suffix), [PROGRAMS + program, scenario],
                 list(options), summaries=summaries) for scenario in scenarios]


def torch_cases(script, *variants):
    return [Case(" ".join([script] + list(variant)), [os.path.join(TORCH_RACES, script)] +
                 list(variant), python=True) for variant in variants]


STREAM_SCENARIOS = ["cross-stream", "event", "stream-sync", "legacy-nonblocking",
                    "legacy-blocking", "graph", "graph-sync", "free-async", "free-async-ordered"]
KERNEL_SCENARIOS = ["race", "event", "slices", "slices-overlap", "launch-ex", "launch-ex-event"]

CASES = (program_cases("stream_races", STREAM_SCENARIOS) +
         program_cases("stream_races_static", STREAM_SCENARIOS) +
         program_cases("kernel_races", KERNEL_SCENARIOS) +
         program_cases("kernel_races_static", KERNEL_SCENARIOS) +
         program_cases("kernel_races", ["slices", "slices-overlap"], summaries=True) +
         program_cases("kernel_races_static", ["slices", "slices-overlap"], summaries=True) +
         program_cases("driver_races", ["race", "event"]) +
         program_cases("host_accesses", ["d2h", "d2h-synced", "managed", "managed-synced"],
                       ["watch_host_accesses=1"]) +
         torch_cases("side_stream_producer.py", [], ["--fixed"]) +
         torch_cases("record_stream_missing.py", [], ["--fixed"]) +
         torch_cases("nonblocking_d2h.py", [], ["--fixed"]))


class CannotRun(Exception):
    pass


def frame_text(access):
    """The access's innermost frame with a file: the program's line, Python's or C++'s."""
    for frame in access.get("stack", []):
        if frame.get("file"):
            return "%s:%d" % (os.path.basename(frame["file"]), frame.get("line", 0))
    return "no source line"


def access_text(access):
    extent = "" if access.get("exact") else " [approximate extent]"
    api, mode = access.get("api", "?"), access.get("mode", "?")
    if access.get("on_host"):
        # The host's own loads and stores are named so by the tracer ("host read").
        what = "the host's %s" % mode if api.startswith("host") else "%s %s on the host" % (
            api, mode)
    else:
        what = "%s %s on a stream" % (api, mode)
    return "%s%s at %s" % (what, extent, frame_text(access))


def finding_lines(report):
    lines = []
    for finding in report.get("findings", []):
        text = "%s: %s" % (finding.get("kind", "?"), access_text(finding.get("access", {})))
        if finding.get("previous"):
            text += "; before it, " + access_text(finding["previous"])
        lines.append(text)
    if report.get("checking_pauses"):
        # Where and for how long depend on the machine: that checking paused at all is the
        # difference.
        lines.append("checking paused")
    return sorted(lines) or ["no finding"]


def kernel_summaries(build, cuda, scratch):
    """The analyzer's summaries of kernel_races.cu's kernels (their extents, from the indexing),
    or None when the build has no analyzer."""
    check = os.path.join(build, "bin", "streamrace-check")
    if not os.access(check, os.X_OK):
        return None
    summaries = os.path.join(scratch, "kernels.json")
    subprocess.run([check, "--kernel-summaries=" + summaries, KERNEL_SOURCE, "--",
                    "-I", os.path.join(ROOT, "tracer", "include"),
                    "-I", os.path.join(ROOT, "emulator", "include"),
                    "-I", os.path.join(cuda, "include")], capture_output=True)
    return summaries if os.path.exists(summaries) else None


def run_case(case, args, scratch, summaries):
    build, emulator = args.build, args.emulator
    streamrace = os.path.join(build, "bin", "streamrace")
    output = os.path.join(scratch, case.name.replace(" ", "_").replace("/", "_"))
    command = [os.path.join(build, case.command[0]) if case.command[0].startswith(PROGRAMS)
               else case.command[0]] + case.command[1:]
    environment = dict(os.environ)
    if case.python:
        command = [args.python] + command
    elif not emulator:
        # The programs link the toolkit's shared libraries without an RPATH (the suite puts the
        # emulator's in their place); a static runtime finds CUPTI there too.
        environment["LD_LIBRARY_PATH"] = os.pathsep.join(
            [os.path.join(args.cuda, "lib64")] +
            [path for path in [environment.get("LD_LIBRARY_PATH")] if path])
    options = list(case.options)
    if case.summaries:
        options.append("kernel_summaries=" + summaries)
    if emulator:
        options.append("cuda_libraries=" + os.path.join(build, "emulator", "lib"))
    given = ["--options=" + ":".join(options)] if options else []
    try:
        ran = subprocess.run([streamrace, "run", "--output=" + output] + given + ["--"] +
                             command, capture_output=True, text=True, timeout=CASE_TIMEOUT,
                             env=environment)
    except subprocess.TimeoutExpired:
        return ["error: no end after %d s" % CASE_TIMEOUT]
    if ran.returncode not in (0, 66):
        tail = (ran.stderr.strip().splitlines() or ["(nothing on stderr)"])[-1]
        return ["error: exit status %d: %s" % (ran.returncode, tail)]
    report = subprocess.run([streamrace, "report", "--format=json", output],
                            capture_output=True, text=True)
    if report.returncode not in (0, 66):
        return ["error: the report failed: %s" % report.stderr.strip()]
    return finding_lines(json.loads(report.stdout))


def read_expected(path):
    blocks, name = {}, None
    with open(path) as text:
        for line in text:
            line = line.rstrip("\n")
            if line.startswith("== "):
                name = line[3:]
                blocks[name] = []
            elif name is not None and line.strip() and not line.startswith("#"):
                blocks[name].append(line.strip())
    return blocks


def expected_file_problems(blocks):
    """A static case is expected to give what its shared twin gives, word for word."""
    problems = []
    for case in CASES:
        if case.name not in blocks:
            problems.append("%s: not in the expected file" % case.name)
        elif case.static and blocks[case.name] != blocks.get(case.shared_twin):
            problems.append("%s: expected otherwise than %s" % (case.name, case.shared_twin))
    return problems


def write_expected(path, results, expected):
    with open(path) as text:
        header = [line for line in text.read().splitlines() if line.startswith("#")]
    with open(path, "w") as out:
        out.write("\n".join(header) + "\n")
        for case in CASES:
            lines = results.get(case.shared_twin if case.static else case.name,
                                expected.get(case.name, []))
            out.write("\n== %s\n" % case.name)
            out.write("".join("  %s\n" % line for line in lines))


def device_description():
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return None
    query = subprocess.run([smi, "--query-gpu=name,driver_version", "--format=csv,noheader"],
                           capture_output=True, text=True)
    first = query.stdout.strip().splitlines()
    return first[0] if query.returncode == 0 and first else None


def overhead_bench(build, emulator):
    environment = dict(os.environ)
    if emulator:
        environment["LD_LIBRARY_PATH"] = os.path.join(build, "emulator", "lib")
    bench = subprocess.run([os.path.join(build, "bin", "tracer-overhead-bench"), "100"],
                           capture_output=True, text=True, env=environment)
    return (bench.stdout + bench.stderr).rstrip()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--cuda", default=os.environ.get("CUDA_HOME", "/usr/local/cuda"),
                        help="the CUDA toolkit whose libraries the C++ programs use")
    parser.add_argument("--python", help="a Python with torch (default: DIR/venv's)")
    parser.add_argument("--expected", default=EXPECTED, help="the expected findings")
    parser.add_argument("--emulator", action="store_true",
                        help="run on the emulator (the suite's check of this script)")
    parser.add_argument("--skip-bench", action="store_true",
                        help="leave out tracer-overhead-bench")
    parser.add_argument("--update", action="store_true",
                        help="rewrite the expected file from this run")
    args = parser.parse_args()
    build = args.build = os.path.abspath(args.build)
    args.python = args.python or os.path.join(build, "venv", "bin", "python")
    if not os.access(os.path.join(build, "bin", "streamrace"), os.X_OK) or \
            not os.path.isdir(os.path.join(build, PROGRAMS)):
        raise CannotRun("%s holds no built streamrace and test programs: build it first "
                        "(scripts/build.sh), then carry the folder" % build)
    device = device_description()
    if args.emulator:
        print("gpu-check: on the emulator (%s)" % os.path.join(build, "emulator", "lib"))
    elif device is None:
        raise CannotRun("no GPU answers nvidia-smi here; --emulator checks the script itself")
    else:
        print("gpu-check: on %s" % device)
    if args.update and not args.emulator:
        raise CannotRun("--update writes what the emulator gives: run it with --emulator")
    expected = read_expected(args.expected)
    problems = expected_file_problems(expected)
    results, differing = {}, []
    with tempfile.TemporaryDirectory(prefix="gpu-check-") as scratch:
        summaries = kernel_summaries(build, args.cuda, scratch)
        for case in CASES:
            if case.static and args.emulator:
                print("%-56s skipped: a static runtime runs on a GPU only" % case.name)
                continue
            if case.python and not os.access(args.python, os.X_OK):
                print("%-56s skipped: no Python at %s" % (case.name, args.python))
                continue
            if case.summaries and summaries is None:
                print("%-56s skipped: no analyzer in the build to summarize kernels" % case.name)
                continue
            lines = results[case.name] = run_case(case, args, scratch, summaries)
            same = lines == expected.get(case.name)
            if not same:
                differing.append(case.name)
            print("%-56s %s" % (case.name, "as expected" if same else "DIFFERS"))
            if not same:
                sys.stdout.writelines("    %s\n" % line for line in difflib.unified_diff(
                    expected.get(case.name, []), lines, "expected", "this run", lineterm="",
                    n=0))
    if args.update:
        write_expected(args.expected, results, expected)
        print("gpu-check: wrote %s" % args.expected)
        return 0
    for problem in problems:
        print("gpu-check: the expected file: %s" % problem)
    if not args.skip_bench:
        print("== tracer-overhead-bench (figures, not compared)")
        print(overhead_bench(build, args.emulator))
    checked = len(results)
    if differing or problems:
        print("gpu-check: %d of %d cases differ from the expected findings" %
              (len(differing), checked))
        return 1
    print("gpu-check: %d cases, every one with the expected findings" % checked)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except CannotRun as problem:
        print("gpu-check: %s" % problem, file=sys.stderr)
        sys.exit(2)
