#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Holds `streamrace report --advise=sync` to its word on a program, by running it again.

    scripts/sync_self_check.py [--build DIR] [--launcher CMD] -- PYTHON SCRIPT [ARGUMENTS...]
    scripts/sync_self_check.py [--build DIR] [--launcher CMD] --compile COMMAND \
        -- SOURCE [ARGUMENTS...]

The advice judges each synchronization by replaying the recorded run without it. This runs the
program without it instead: the program's folder is copied, the program is run under
`streamrace run` and advised, and for each synchronization the advice calls redundant or
over-strong at a line of the copied folder, that line's statement is taken out (every line
keeping its number) and the program is run again. A redundant site holds when the run without
it has no finding the first run did not have; an over-strong one when every new finding is a
race between two streams that an event edge orders (no host side, the fix an event record and
wait). Each site prints one line, and the last line counts them. Exit status 0 when every site
held, 1 when one did not, 2 when the program could not be built, run or advised.

A Python script's statement becomes `pass`. A C++ or CUDA program is rebuilt for each run from
its one source file by COMMAND, a shell command in which `{source}` stands for the source file
(a copy), `{program}` for the executable to make and `{folder}` for the original's folder, where
its quoted includes are found (`clang++ -g -I{folder} {source} -o {program} -lcudart`; with
debug information, so that the tracer names the lines); the call's statement becomes
`(void)0;`, also inside the checking macro it is wrapped in (`CHECK(cudaStreamSynchronize(s));`).

The environment is the caller's (on the emulator, the preloads PyTorch needs or the emulator's
libraries; the lit tests give them). A site whose call does work besides waiting (a blocking
copy or collective, an `.item()`: the verdict means its asynchronous form would do), a wait made
inside another call (a collective's stream joining the caller's) and a wait whose value is used
are left in, and said so.
"""
import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EVENT_EDGES = frozenset({"record-and-wait", "wait-on-existing-event"})
# Calls that only wait: a blocking copy, a `.item()` or a blocking collective waits too, but
# taking out its line takes out its work (their verdict says the asynchronous form would do).
COMPILED_SOURCES = (".c", ".cc", ".cpp", ".cxx", ".cu")
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


def call_statement(text, line, api):
    """The offsets of the statement at `line` that calls `api` and does nothing else with its
    value than hand it to checking wrappers (`CHECK(api(...));`), from the outermost wrapper to
    its semicolon; None where the value is used (assigned, compared, returned)."""
    starts = [0] + [index + 1 for index, char in enumerate(text) if char == "\n"]
    if line > len(starts):
        return None
    end_of_line = text.find("\n", starts[line - 1])
    found = re.compile(r"\b%s\s*\(" % re.escape(api)).search(
        text, starts[line - 1], end_of_line if end_of_line >= 0 else len(text))
    if not found:
        return None
    first, position = found.start(), closing_parenthesis(text, found.end() - 1)
    if position is None:
        return None
    position += 1
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position >= len(text) or text[position] != ")":
            break
        wrapper = re.search(r"[A-Za-z_][\w:]*\s*\(\s*$", text[:first])
        if not wrapper:
            return None
        first, position = wrapper.start(), position + 1
    if position >= len(text) or text[position] != ";":
        return None
    before = text[:first].rstrip()
    if before and before[-1] not in "{};)" and not re.search(r"\belse$", before):
        return None
    return first, position + 1


def closing_parenthesis(text, opening):
    depth = 0
    for index in range(opening, len(text)):
        depth += {"(": 1, ")": -1}.get(text[index], 0)
        if depth == 0:
            return index
    return None


def holds(site, new_findings):
    """Whether the run without the site bears out its verdict, and why not."""
    if site["verdict"] == "redundant":
        return (not new_findings, "%d new findings" % len(new_findings))
    host_sides = [f for f in new_findings if f.get("fix", {}).get("kind") not in EVENT_EDGES or
                  f.get("access", {}).get("on_host") or f.get("previous", {}).get("on_host")]
    return (not host_sides, "%d new findings, %d of them with the host or without an event "
            "edge" % (len(new_findings), len(host_sides)))


def check_sites(first, folder, run_without):
    """Takes out, one at a time, each site the first run's advice calls redundant or over-strong
    in `folder`: `run_without(path, source, line, api, number)` runs the program without the
    statement and gives its findings, or a reason the statement is left in."""
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
        try:
            again = run_without(path, source, int(line), site["api"], number)
        finally:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(source)
        if isinstance(again, str):
            skipped += 1
            print("left in: %s (%s)" % (name, again))
            continue
        new = [f for f in again["findings"] if f["finding_id"] not in known]
        good, why = holds(site, new)
        held += good
        failed += not good
        print("%s: %s (%s)" % ("held" if good else "NOT HELD", name, why))
    print("sync self-check: %d sites taken out and run again, %d held, %d not; %d left in" % (
        held + failed, held, failed, skipped))
    return 1 if failed else 0


def copied_folder(path, scratch):
    folder = os.path.join(scratch, "program")
    shutil.copytree(os.path.dirname(os.path.abspath(path)), folder,
                    ignore=shutil.ignore_patterns("__pycache__"))
    return folder, os.path.join(folder, os.path.basename(path))


def check_python(streamrace, launcher, python, script, arguments, scratch):
    folder, program = copied_folder(script, scratch)
    command = [python, program] + arguments

    def run_without(path, source, line, api, number):
        statement = statement_lines(source, line)
        if statement is None:
            return "no waiting call of its own there: the wait is made inside another call, " \
                "or its value is used"
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(without_statement(source, *statement))
        return traced_findings(streamrace, launcher, command,
                               os.path.join(scratch, "without-%d" % number))

    first = traced_findings(streamrace, launcher, command, os.path.join(scratch, "run"),
                            advise=True)
    return check_sites(first, folder, run_without)


def check_compiled(streamrace, launcher, compile_command, source_path, arguments, scratch):
    folder, source = copied_folder(source_path, scratch)

    def built(name):
        program = os.path.join(scratch, name)
        command = compile_command.replace("{source}", source).replace(
            "{program}", program).replace("{folder}", os.path.dirname(os.path.abspath(source_path)))
        made = subprocess.run(command, shell=True, capture_output=True, text=True)
        if made.returncode != 0:
            raise Unrunnable("'%s' exited %d:\n%s" % (command, made.returncode,
                                                      made.stderr[-2000:]))
        return program

    def run_without(path, text, line, api, number):
        statement = call_statement(text, line, api)
        if statement is None:
            return "no call of its own there: its value is used"
        first, last = statement
        removed = text[first:last]
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text[:first] + "(void)0;" + "\n" * removed.count("\n") + text[last:])
        return traced_findings(streamrace, launcher,
                               [built("without-%d.bin" % number)] + arguments,
                               os.path.join(scratch, "without-%d" % number))

    first = traced_findings(streamrace, launcher, [built("program.bin")] + arguments,
                            os.path.join(scratch, "run"), advise=True)
    return check_sites(first, folder, run_without)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--launcher", help="as `streamrace run --launcher` takes it")
    parser.add_argument("--compile", metavar="COMMAND",
                        help="rebuild a C++ or CUDA program: {source} and {program} in it")
    parser.add_argument("command", nargs="+",
                        metavar="PYTHON SCRIPT [ARGUMENTS...] | SOURCE [ARGUMENTS...]")
    options = parser.parse_args()
    if options.compile is not None:
        if not options.command[0].endswith(COMPILED_SOURCES) or \
                "{source}" not in options.compile or "{program}" not in options.compile:
            parser.error("with --compile, give the source file (%s) first, and a command "
                         "naming {source} and {program}" % ", ".join(COMPILED_SOURCES))
    elif len(options.command) < 2 or not options.command[1].endswith(".py"):
        parser.error("give the Python interpreter, then the script (.py) and its arguments")
    streamrace = os.path.join(options.build, "bin", "streamrace")
    if not os.access(streamrace, os.X_OK):
        parser.error("%s is not built (scripts/build.sh)" % streamrace)
    with tempfile.TemporaryDirectory(prefix="sync-self-check-") as scratch:
        try:
            if options.compile is not None:
                return check_compiled(streamrace, options.launcher, options.compile,
                                      options.command[0], options.command[1:], scratch)
            return check_python(streamrace, options.launcher, options.command[0],
                                options.command[1], options.command[2:], scratch)
        except (Unrunnable, OSError, json.JSONDecodeError) as error:
            print("sync_self_check.py: %s" % error, file=sys.stderr)
            return 2


if __name__ == "__main__":
    sys.exit(main())
