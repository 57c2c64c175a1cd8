#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Recall of the Python check on real training code, measured by removing one ordering at a time.

    bench/python_mutation_recall.py --repos DIR [--build DIR] [--labels FILE] [--only PATH...]
    bench/python_mutation_recall.py --repos DIR --sites REPO COMMIT PATH...

bench/python_mutation_recall/labels.json names files of public projects at a commit. DIR holds
the projects' clones (or bare git directories), named `owner+name` or `owner+name/repo`, as for
bench/python_bug_corpus.py; nothing of them lives here. Every ordering statement of a labelled
file (`wait_stream`, `wait_event`, `record_stream`, `synchronize`, an event's `record`, an
event's or a work handle's `wait`, each a statement of its own) is removed alone: it becomes
`pass`, its other lines blank, so that every line keeps its number. The check runs on the file
(with the files of its `with` list, where the race spans modules) and on each mutant, and a
mutant is reported when a warning the unmutated file does not get names a line of each access
the label says the removal leaves unordered (its location and notes; a labelled line stands for
the whole statement it is in, a compound statement's header only).

Labels were written once by reading the code: `racy` (`first`, `second`: the lines of the two
accesses now unordered, each a line of the mutated file or `PATH:LINE` of a file of its `with`
list) or `neutral` (another path orders them, or the ordering guards nothing
the file can see). A file's `latent` list names the warnings its unmutated code gets that were
read and found true; the others are false by the goal's definition. A removal the labels do
not name is run and counted apart as unlabelled.

--sites  prints each ordering statement of the files at that commit (to label them), and runs
         nothing.
"""
import argparse
import ast
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from python_bug_corpus import (ROOT, findings, git_directory, lines_named,  # noqa: E402
                               mark_packages, statement_lines, widened)
LABELS = os.path.join(ROOT, "bench", "python_mutation_recall", "labels.json")

# Methods whose call, as a statement, orders two streams, the host and a stream, or a tensor's
# lifetime with a stream.
ORDERING_METHODS = frozenset({"wait_stream", "wait_event", "record_stream", "synchronize",
                              "record", "wait"})


def read_at(git_dir, commit, path):
    shown = subprocess.run(["git", "--git-dir", git_dir, "show", "%s:%s" % (commit, path)],
                           capture_output=True)
    if shown.returncode != 0:
        raise LookupError("cannot read %s at %s: %s" % (path, commit[:12],
                                                        shown.stderr.decode().strip()))
    return shown.stdout.decode("utf-8", errors="replace")


def ordering_sites(text):
    """The ordering statements of a module: (first line, last line, its text), each alone on
    its lines."""
    lines = text.splitlines()
    sites = []
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.Expr) or not isinstance(node.value, ast.Call):
            continue
        function = node.value.func
        if not isinstance(function, ast.Attribute) or function.attr not in ORDERING_METHODS:
            continue
        first, last = node.lineno, node.end_lineno
        before = lines[first - 1][:node.col_offset]
        after = lines[last - 1][node.end_col_offset:].strip()
        if before.strip() or (after and not after.startswith("#")):
            continue   # shares its line with another statement: no mutant keeps the lines
        sites.append((first, last, ast.get_source_segment(text, node).splitlines()[0]))
    return sorted(sites)


def without(text, first, last):
    lines = text.splitlines()
    indent = lines[first - 1][:len(lines[first - 1]) - len(lines[first - 1].lstrip())]
    lines[first - 1] = indent + "pass"
    for number in range(first, last):
        lines[number] = ""
    return "\n".join(lines) + "\n"


def identity(finding):
    return (finding["file"].rsplit("/", 1)[-1], finding["line"], finding["column"],
            finding["check"], finding["message"])


def check_file(build, git_dir, entry):
    """(what each site's mutant did, the unmutated file's findings)."""
    path = entry["path"]
    texts = {p: read_at(git_dir, entry["commit"], p) for p in [path] + entry.get("with", [])}
    with tempfile.TemporaryDirectory() as scratch:
        mark_packages(git_dir, entry["commit"], list(texts), scratch)

        def run(text):
            for p, content in texts.items():
                target = os.path.join(scratch, p)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "w") as out:
                    out.write(text if p == path else content)
            return findings(build, scratch)

        original = run(texts[path])
        known = {identity(f) for f in original}
        spans = {p: statement_lines(text) for p, text in texts.items()}
        outcomes = []
        for first, last, code in ordering_sites(texts[path]):
            new = [f for f in run(without(texts[path], first, last)) if identity(f) not in known]
            label = entry["sites"].get(str(first), {"label": "unlabelled"})
            hit = label["label"] == "racy" and any(
                names_one_of(f, label["first"], path, spans) and
                names_one_of(f, label["second"], path, spans) for f in new)
            outcomes.append((first, code, label["label"], hit, len(new)))
    return outcomes, original


def names_one_of(finding, accesses, path, spans):
    """Whether the finding names one of a label's lines: a number is a line of the mutated file,
    `PATH:LINE` a line of a file of its `with` list (the race spans the two modules)."""
    for access in accesses:
        file, line = (path, access) if isinstance(access, int) else access.rsplit(":", 1)
        if lines_named(finding, file) & widened([int(line)], spans.get(file, {})):
            return True
    return False


def print_sites(repos, repo, commit, paths):
    git_dir = git_directory(repos, repo)
    if git_dir is None:
        sys.exit("python_mutation_recall.py: no clone of %s in %s" % (repo, repos))
    for path in paths:
        for first, _, code in ordering_sites(read_at(git_dir, commit, path)):
            print("%s:%d: %s" % (path, first, code.strip()))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repos", required=True)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--labels", default=LABELS)
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--sites", nargs="+", metavar=("REPO COMMIT", "PATH"))
    args = parser.parse_args()
    if args.sites:
        if len(args.sites) < 3:
            parser.error("--sites takes a repository, a commit and at least one path")
        return print_sites(args.repos, args.sites[0], args.sites[1], args.sites[2:])
    with open(args.labels) as listing:
        entries = json.load(listing)["files"]
    racy = reported = neutral = neutral_warned = unlabelled = false = latent = 0
    for entry in entries:
        if args.only and entry["path"] not in args.only:
            continue
        git_dir = git_directory(args.repos, entry["repo"])
        if git_dir is None:
            print("%s: no clone of %s in %s" % (entry["path"], entry["repo"], args.repos))
            continue
        try:
            outcomes, original = check_file(args.build, git_dir, entry)
        except LookupError as error:
            print("%s: %s" % (entry["path"], error))
            continue
        true_lines = {(item["line"], item["check"]) for item in entry.get("latent", [])}
        kept = [f for f in original if f["file"].endswith(entry["path"])]
        file_latent = sum((f["line"], f["check"]) in true_lines for f in kept)
        latent += file_latent
        false += len(kept) - file_latent
        print("%s (%s %s): %d warnings unmutated, %d of them true" % (
            entry["path"], entry["repo"], entry["commit"][:12], len(kept), file_latent))
        for first, code, label, hit, new in outcomes:
            if label == "racy":
                racy += 1
                reported += hit
            elif label == "neutral":
                neutral += 1
                neutral_warned += new > 0
            else:
                unlabelled += 1
            print("  %5d %-10s %-8s %2d new  %s" % (
                first, label, "reported" if hit else "", new, code.strip()[:70]))
    print("python mutation recall: %d of %d racy mutants reported (%.0f%%); %d of %d neutral "
          "mutants with a new warning; unmutated files: %d warnings read true, %d false; "
          "%d removals unlabelled" % (reported, racy, 100.0 * reported / racy if racy else 0.0,
                                      neutral_warned, neutral, latent, false, unlabelled))


if __name__ == "__main__":
    main()
