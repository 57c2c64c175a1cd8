#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Holds `streamrace report --advise=sync` to its word on a Python program, by running it again.

    scripts/sync_self_check.py [--build DIR] [--launcher CMD] -- PYTHON SCRIPT [ARGUMENTS...]

The advice judges each synchronization by replaying the recorded run without it. This runs the
program without it instead: the script's folder is copied, the program is run under
`streamrace run` and advised, and for each synchronization the advice calls redundant or
over-strong at a line of the copied folder, that line's statement is taken out (it becomes
`pass`, its other lines blank, so that every line keeps its number) and the program is run
again. A redundant site holds when the run without it has no finding the first run did not
have; an over-strong one when every new finding is a race between two streams that an event
edge orders (no host side, the fix an event record and wait). Each site prints one line, and
the last line counts them. Exit status 0 when every site held, 1 when one did not, 2 when the
program could not be run or advised.

The environment is the caller's (on the emulator, the preloads PyTorch needs; the lit tests
give them). A site whose call does work besides waiting (a blocking copy or collective, an
`.item()`: the verdict means its asynchronous form would do), a wait made inside another call
(a collective's stream joining the caller's) and a wait whose value is used are left in, and
said so.
"""
import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EVENT_EDGES = frozenset({"record-and-wait", "wait-on-existing-event"})
# Calls that only wait: a blocking copy, a `.item()` or a blocking collective waits too, but
# taking out its line takes out its work (their verdict says the asynchronous form would do).
WAITS_ONLY = frozenset({"cudaStreamSynchronize", "cudaEventSynchronize", "cudaDeviceSynchronize",
                        "cudaStreamWaitEvent"})


class Unrunnable(Exception):
    pass


def traced_findings(streamrace, launcher, command, output, advise=False):
    """The run's JSON report: its findings, and the advice when asked for."""
    run = [streamrace, "run", "--output=" + output]
    if launcher:
        run.append("--launcher=" + launcher)
    ran = subprocess.run(run + ["--"] + command, capture_output=True, text=True)
    if ran.returncode not in (0, 66):
        raise Unrunnable("'%s' exited %d:\n%s" % (" ".join(command), ran.returncode,
                                                  ran.stderr[-2000:]))
    report = [streamrace, "report", "--format=json"] + (["--advise=sync"] if advise else [])
    reported = subprocess.run(report + [output], capture_output=True, text=True)
    if reported.returncode not in (0, 66):
        raise Unrunnable("streamrace report failed on %s:\n%s" % (output, reported.stderr))
    return json.loads(reported.stdout)


# The methods and functions whose call is the wait itself: a wait PyTorch makes inside another
# call (a collective's stream joining the caller's, a barrier's) is that call's own business.
WAITING_CALLS = frozenset({"wait_stream", "wait_event", "wait", "synchronize"})


def statement_lines(source, line):
    """The first and last line of the waiting call that is a statement of its own at `line`, or
    None."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and \
                node.lineno <= line <= node.end_lineno:
            function = node.value.func
            name = function.attr if isinstance(function, ast.Attribute) else \
                getattr(function, "id", "")
            return (node.lineno, node.end_lineno) if name in WAITING_CALLS else None
    return None


def without_statement(source, first, last):
    lines = source.splitlines(keepends=True)
    indent = lines[first - 1][:len(lines[first - 1]) - len(lines[first - 1].lstrip())]
    lines[first - 1] = indent + "pass\n"
    for index in range(first, last):
        lines[index] = "\n"
    return "".join(lines)


def holds(site, new_findings):
    """Whether the run without the site bears out its verdict, and why not."""
    if site["verdict"] == "redundant":
        return (not new_findings, "%d new findings" % len(new_findings))
    host_sides = [f for f in new_findings if f.get("fix", {}).get("kind") not in EVENT_EDGES or
                  f.get("access", {}).get("on_host") or f.get("previous", {}).get("on_host")]
    return (not host_sides, "%d new findings, %d of them with the host or without an event "
            "edge" % (len(new_findings), len(host_sides)))


def check(streamrace, launcher, python, script, arguments, scratch):
    folder = os.path.join(scratch, "program")
    shutil.copytree(os.path.dirname(os.path.abspath(script)), folder,
                    ignore=shutil.ignore_patterns("__pycache__"))
    program = os.path.join(folder, os.path.basename(script))
    first = traced_findings(streamrace, launcher, [python, program] + arguments,
                            os.path.join(scratch, "run"), advise=True)
    known = {finding["finding_id"] for finding in first["findings"]}
    sites = first.get("synchronization", {}).get("sites", [])
    held = failed = skipped = 0
    for number, site in enumerate(sites):
        path, _, line = site["location"].rpartition(":")
        if site["verdict"] not in ("redundant", "over-strong") or \
                not path.startswith(folder + os.sep) or not line.isdigit():
            continue
        name = "%s %s at %s:%s" % (site["verdict"], site["api"], os.path.relpath(path, folder),
                                   line)
        if site["api"] not in WAITS_ONLY:
            skipped += 1
            print("left in: %s (the call does work besides waiting)" % name)
            continue
        with open(path, encoding="utf-8") as handle:
            source = handle.read()
        statement = statement_lines(source, int(line))
        if statement is None:
            skipped += 1
            print("left in: %s (no waiting call of its own there: the wait is made inside "
                  "another call, or its value is used)" % name)
            continue
        try:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(without_statement(source, *statement))
            again = traced_findings(streamrace, launcher, [python, program] + arguments,
                                    os.path.join(scratch, "without-%d" % number))
        finally:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(source)
        new = [f for f in again["findings"] if f["finding_id"] not in known]
        good, why = holds(site, new)
        held += good
        failed += not good
        print("%s: %s (%s)" % ("held" if good else "NOT HELD", name, why))
    print("sync self-check: %d sites taken out and run again, %d held, %d not; %d left in" % (
        held + failed, held, failed, skipped))
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--launcher", help="as `streamrace run --launcher` takes it")
    parser.add_argument("command", nargs="+", metavar="PYTHON SCRIPT [ARGUMENTS...]")
    options = parser.parse_args()
    if len(options.command) < 2 or not options.command[1].endswith(".py"):
        parser.error("give the Python interpreter, then the script (.py) and its arguments")
    streamrace = os.path.join(options.build, "bin", "streamrace")
    if not os.access(streamrace, os.X_OK):
        parser.error("%s is not built (scripts/build.sh)" % streamrace)
    python, script, arguments = options.command[0], options.command[1], options.command[2:]
    with tempfile.TemporaryDirectory(prefix="sync-self-check-") as scratch:
        try:
            return check(streamrace, options.launcher, python, script, arguments, scratch)
        except (Unrunnable, OSError, json.JSONDecodeError) as error:
            print("sync_self_check.py: %s" % error, file=sys.stderr)
            return 2


if __name__ == "__main__":
    sys.exit(main())
