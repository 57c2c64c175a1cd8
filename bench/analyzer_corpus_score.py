#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Scores streamrace-check on the analyzer corpus (test/analyzer_corpus): precision and recall.

    bench/analyzer_corpus_score.py [--build DIR] [--corpus DIR] [--jobs N] [--flags=FLAGS]
        [--min-precision P] [--min-recall R]

Every case is one source file analyzed twice: as written (the racy program) and with -DFIXED (its
synchronized twin, the same program with the fix the `#ifdef FIXED` blocks make). A file marks
each finding the racy program must produce with a comment line of its own just before the
statement the finding belongs to:

    // expect: streamrace-unsynchronized-cross-stream
    ncclAllGather(secondary_, gathered_, n, ncclFloat, comm_, comm_stream_);

The finding belongs to the next line that is neither blank nor a comment (the line where the
statement begins), which is where streamrace-check puts a warning: at the later access itself, in
whichever function makes it (docs/analyzer-corpus.md). A marker followed by a preprocessor line is
an error, and so is a file without a marker or without a FIXED twin.

Matching: in the racy run, a finding is a true positive (TP) when its file is the case, its line
is a marker's line and its check is the marker's check, and that marker is not matched yet (two
findings at one marker: one TP, one FP). Every other finding is a false positive (FP): in the racy
run any finding no marker takes, in the fixed run every finding. A marker no finding took is a
false negative (FN). Columns and messages are not compared. A case the analyzer fails to parse
(exit status 2) counts its markers as FNs and is listed.

The cases are analyzed in --jobs processes per variant, each taking its share of the files.
Prints one line per case and run (TP/FP/FN, then each FP and FN with its line), then

    summary: <cases> cases (<racy> racy, <fixed> fixed), <expected> expected, <findings> findings,
      TP <n>, FP <n>, FN <n>, precision <p>%, recall <r>%, time <s> s (<cpu> CPU s)

on one line. Exits 1 when precision or recall falls below --min-precision/--min-recall
(percentages), 2 on a malformed corpus or a missing build.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARKER = re.compile(r"^\s*// expect: (\S+)\s*$")
CHECK_NAME = re.compile(r"^streamrace-[a-z-]+$")
COMMENT_OR_BLANK = re.compile(r"^\s*(//.*)?$")


class CorpusError(Exception):
    pass


def read_expectations(path):
    """The (line, check) pairs the racy program must produce, from the file's markers."""
    with open(path) as source:
        lines = source.read().splitlines()
    expectations = []
    for index, text in enumerate(lines):
        marker = MARKER.match(text)
        if not marker:
            continue
        where = f"{path}:{index + 1}"
        if not CHECK_NAME.match(marker.group(1)):
            raise CorpusError(f"{where}: '{marker.group(1)}' is not a streamrace check name")
        target = index + 1
        while target < len(lines) and COMMENT_OR_BLANK.match(lines[target]):
            target += 1
        if target == len(lines):
            raise CorpusError(f"{where}: the marker is not followed by a statement")
        if lines[target].lstrip().startswith("#"):
            raise CorpusError(f"{where}: the marker is followed by a preprocessor line; put it "
                              "just before the statement")
        expectations.append((target + 1, marker.group(1)))
    if not expectations:
        raise CorpusError(f"{path}: no '// expect: <check>' marker; every case is a racy program")
    if not any(re.search(r"#\s*if(n?def)?\b.*\bFIXED\b", line) for line in lines):
        raise CorpusError(f"{path}: no '#ifdef FIXED' block; every case needs its fixed twin")
    return expectations


def analyze(job):
    """Runs streamrace-check once on a chunk of cases in one variant (one process a chunk saves
    the start-up per file); each case's findings and parse errors, the findings in no case's file,
    and the CPU seconds."""
    checker, paths, variant, flags = job
    defines = ["-DFIXED"] if variant == "fixed" else []
    with tempfile.NamedTemporaryFile(suffix=".json") as output, \
            tempfile.TemporaryFile("w+") as log:
        command = [checker, "--format=json", "--output=" + output.name] + paths + ["--"] + flags + \
            defines
        child = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, text=True)
        _, status, usage = os.wait4(child.pid, 0)
        log.seek(0)
        errors = [line for line in log.read().splitlines() if " error: " in line]
        findings = json.load(output) if os.path.getsize(output.name) else {}
    status = os.waitstatus_to_exitcode(status)
    if status not in (0, 1) and not errors:
        errors = [f"streamrace-check exited {status}"]
    stray = [finding for finding in findings.get("findings", [])
             if os.path.realpath(finding.get("file", "")) not in paths]
    results = []
    for path in paths:
        mine = [line for line in errors if line.startswith(path + ":")]
        if errors and not any(line.startswith(other + ":") for line in errors for other in paths):
            mine = errors  # not attributable to one case: every case of the chunk failed
        results.append({"path": path, "variant": variant, "errors": mine,
                        "findings": [f for f in findings.get("findings", [])
                                     if os.path.realpath(f.get("file", "")) == path]})
    return results, stray, usage.ru_utime + usage.ru_stime


def score(result, expectations):
    """TPs, FPs (findings) and FNs ((line, check) pairs) of one run."""
    unmatched = list(expectations) if result["variant"] == "racy" else []
    true_positives, false_positives = [], []
    for finding in sorted(result["findings"], key=lambda f: (f["line"], f["check"])):
        key = (finding["line"], finding["check"])
        if key in unmatched:
            unmatched.remove(key)
            true_positives.append(finding)
        else:
            false_positives.append(finding)
    return true_positives, false_positives, unmatched


def percent(part, whole):
    return 100.0 * part / whole if whole else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--corpus", default=os.path.join(ROOT, "test", "analyzer_corpus"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--flags", default="-std=c++17",
                        help="compiler flags for every case (one shell-quoted string)")
    parser.add_argument("--min-precision", type=float, default=0.0)
    parser.add_argument("--min-recall", type=float, default=0.0)
    options = parser.parse_args()

    checker = os.path.join(options.build, "bin", "streamrace-check")
    if not os.access(checker, os.X_OK):
        print(f"analyzer_corpus_score: build streamrace-check first ({checker})", file=sys.stderr)
        return 2
    if not os.path.isdir(options.corpus):
        print(f"analyzer_corpus_score: corpus '{options.corpus}' is not a directory",
              file=sys.stderr)
        return 2
    corpus = os.path.realpath(options.corpus)
    paths = sorted(os.path.join(corpus, name) for name in os.listdir(corpus)
                   if name.endswith((".cu", ".cpp")))
    try:
        expectations = {path: read_expectations(path) for path in paths}
    except CorpusError as error:
        print(f"analyzer_corpus_score: {error}", file=sys.stderr)
        return 2
    if not paths:
        print(f"analyzer_corpus_score: no .cu or .cpp case in '{options.corpus}'", file=sys.stderr)
        return 2

    flags = shlex.split(options.flags)
    workers = max(1, options.jobs)
    chunks = [paths[start::workers] for start in range(workers) if paths[start::workers]]
    jobs = [(checker, chunk, variant, flags) for variant in ("racy", "fixed") for chunk in chunks]
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        done = list(pool.map(analyze, jobs))
    wall = time.monotonic() - started
    cpu = sum(seconds for _, _, seconds in done)
    stray = [finding for _, findings, _ in done for finding in findings]
    order = {(path, variant): index for index, (path, variant) in
             enumerate((p, v) for p in paths for v in ("racy", "fixed"))}
    results = sorted((result for chunk, _, _ in done for result in chunk),
                     key=lambda result: order[(result["path"], result["variant"])])

    totals = {"TP": 0, "FP": 0, "FN": 0, "findings": 0}
    parse_failures = []
    for result in results:
        name = os.path.relpath(result["path"], corpus)
        true_positives, false_positives, false_negatives = score(result,
                                                                 expectations[result["path"]])
        if result["errors"]:
            parse_failures.append(f"{name} ({result['variant']})")
            if result["variant"] == "racy":
                false_negatives = list(expectations[result["path"]])
        totals["TP"] += len(true_positives)
        totals["FP"] += len(false_positives)
        totals["FN"] += len(false_negatives)
        totals["findings"] += len(result["findings"])
        print(f"{result['variant']:5} {name}: TP {len(true_positives)} FP {len(false_positives)} "
              f"FN {len(false_negatives)}")
        for finding in false_positives:
            print(f"      FP {name}:{finding['line']}: {finding['check']}: {finding['message']}")
        for line, check in false_negatives:
            print(f"      FN {name}:{line}: {check}")
        for error in result["errors"][:1]:
            print(f"      parse failure: {error}")

    for finding in stray:
        print(f"FP outside the cases: {finding['file']}:{finding['line']}: {finding['check']}: "
              f"{finding['message']}")
    totals["FP"] += len(stray)
    totals["findings"] += len(stray)
    expected = sum(len(pairs) for pairs in expectations.values())
    precision = percent(totals["TP"], totals["TP"] + totals["FP"])
    recall = percent(totals["TP"], expected)
    shown = lambda value: "n/a" if value is None else f"{value:.1f}%"
    print()
    if parse_failures:
        print("parse failures: " + ", ".join(parse_failures))
    print(f"summary: {len(results)} cases ({len(paths)} racy, {len(paths)} fixed), {expected} "
          f"expected, {totals['findings']} findings, TP {totals['TP']}, FP {totals['FP']}, "
          f"FN {totals['FN']}, precision {shown(precision)}, recall {shown(recall)}, "
          f"time {wall:.1f} s ({cpu:.1f} CPU s)")
    below = []
    if (precision or 0.0) < options.min_precision:
        below.append(f"precision {shown(precision)} is below the floor {options.min_precision}%")
    if (recall or 0.0) < options.min_recall:
        below.append(f"recall {shown(recall)} is below the floor {options.min_recall}%")
    for message in below:
        print(f"analyzer_corpus_score: {message}")
    return 1 if below else 0


if __name__ == "__main__":
    sys.exit(main())
