#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The Python check on public stream-race bugs, taken from the projects' own histories.

    bench/python_bug_corpus.py --repos DIR [--build DIR] [--only ID...]

bench/python_bugs/bugs.json lists each bug: the repository, the commit that fixed it and its
parent, the file the fix went into (and files of the same commit the race spans, `with`), and
the lines of the two racing accesses in the buggy file (`first`, `second`: each a list of lines
that count). Nothing of the projects lives here: DIR holds their clones (or bare git
directories), named `owner+name` (`deepspeedai+DeepSpeed`), or `owner+name/repo`.

For each bug the files are taken from both commits into a scratch folder and checked. A bug is
found when a finding of the buggy version names a first line and a second line (its location
and notes). Its fixed version is judged twice: whether it still reports the race (a finding
naming the two accesses, which the fix ordered: their lines taken to the fixed file through the
diff of the two versions, since a fix moves the lines after it), and whether it reports nothing
at all (a file can hold other races than the one fixed). Prints one line a bug and the totals.
"""
import argparse
import ast
import difflib
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def git_directory(repos, repo):
    base = os.path.join(repos, repo.replace("/", "+"))
    for candidate in (os.path.join(base, "repo"), os.path.join(base, ".git"), base):
        if os.path.isdir(candidate) and os.path.exists(os.path.join(candidate, "HEAD")):
            return candidate
    return None


def extract(git_dir, commit, paths, folder):
    for path in paths:
        shown = subprocess.run(["git", "--git-dir", git_dir, "show", "%s:%s" % (commit, path)],
                               capture_output=True)
        if shown.returncode != 0:
            return "cannot read %s at %s: %s" % (path, commit[:12],
                                                 shown.stderr.decode().strip())
        target = os.path.join(folder, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as out:
            out.write(shown.stdout)
    mark_packages(git_dir, commit, paths, folder)
    return None


def mark_packages(git_dir, commit, paths, folder):
    """An empty `__init__.py` in each folder around the paths that is a package at that commit:
    a checkout has them, and the check names modules by their packages, which is how an import
    of one of the files from another resolves. Empty, so that only the files given are read."""
    for path in paths:
        package = os.path.dirname(path)
        while package:
            marker = package + "/__init__.py"
            present = subprocess.run(["git", "--git-dir", git_dir, "cat-file", "-e",
                                      "%s:%s" % (commit, marker)], capture_output=True)
            target = os.path.join(folder, marker)
            if present.returncode == 0 and marker not in paths and not os.path.exists(target):
                os.makedirs(os.path.dirname(target), exist_ok=True)
                open(target, "w").close()
            package = os.path.dirname(package)


def findings(build, folder):
    package = os.path.join(build, "lib", "streamrace", "python")
    run = subprocess.run([sys.executable, "-m", "streamrace.check", "--format=findings-json",
                          folder], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=package))
    if run.returncode not in (0, 1, 2):
        raise SystemExit("the Python check failed on %s:\n%s" % (folder, run.stderr))
    return json.loads(run.stdout)["findings"]


def lines_named(finding, path):
    lines = set()
    for entry in [finding] + finding["notes"]:
        if entry["file"].endswith(path):
            lines.add(entry["line"])
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repos", required=True)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--only", nargs="*")
    args = parser.parse_args()
    with open(os.path.join(ROOT, "bench", "python_bugs", "bugs.json")) as listing:
        bugs = json.load(listing)
    found = silent = silent_on_race = measured = 0
    for bug in bugs:
        if args.only and bug["id"] not in args.only:
            continue
        git_dir = git_directory(args.repos, bug["repo"])
        if git_dir is None:
            print("%-42s no clone of %s in %s" % (bug["id"], bug["repo"], args.repos))
            continue
        paths = [bug["path"]] + bug.get("with", [])
        results, texts = {}, {}
        with tempfile.TemporaryDirectory() as scratch:
            for version, commit in (("buggy", bug["parent"]), ("fixed", bug["fix"])):
                folder = os.path.join(scratch, version)
                error = extract(git_dir, commit, paths, folder)
                if error:
                    results = None
                    print("%-42s %s" % (bug["id"], error))
                    break
                results[version] = findings(args.build, folder)
                with open(os.path.join(folder, bug["path"]), errors="replace") as source:
                    texts[version] = source.read().splitlines()
        if results is None:
            continue
        measured += 1
        spans = {version: statement_lines("\n".join(text)) for version, text in texts.items()}
        hit = any(names_the_race(f, bug["path"], widened(bug["first"], spans["buggy"]),
                                 widened(bug["second"], spans["buggy"]))
                  for f in results["buggy"])
        first_fixed = lines_after_the_fix(texts["buggy"], texts["fixed"], bug["first"])
        second_fixed = lines_after_the_fix(texts["buggy"], texts["fixed"], bug["second"])
        still = any(names_the_race(f, bug["path"], widened(first_fixed, spans["fixed"]),
                                   widened(second_fixed, spans["fixed"]))
                    for f in results["fixed"])
        fixed_count = len(results["fixed"])
        found += hit
        silent_on_race += hit and not still
        silent += hit and fixed_count == 0
        print("%-42s %-6s buggy: %2d findings  fixed: %2d findings%s" % (
            bug["id"], "found" if hit else "missed", len(results["buggy"]), fixed_count,
            "  (the race still reported)" if still else ""))
    print("python bug corpus: %d of %d found on their lines; of them, %d with the fixed version "
          "no longer reporting the race, %d with the fixed version silent" % (
              found, measured, silent_on_race, silent))


def statement_lines(text):
    """Each line of a module -> the lines of the statement it belongs to (a compound statement's
    header only), so that a label naming a statement's first line matches a finding placed at
    one of its arguments. A module that does not parse has no spans."""
    spans = {}
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return spans
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        body = getattr(node, "body", None)
        last = body[0].lineno - 1 if isinstance(body, list) and body and \
            isinstance(body[0], ast.stmt) else node.end_lineno
        span = range(node.lineno, max(last, node.lineno) + 1)
        for line in span:
            if line not in spans or len(span) < len(spans[line]):
                spans[line] = span
    return spans


def widened(lines, spans):
    return {covered for line in lines for covered in spans.get(line, (line,))}


def names_the_race(finding, path, first, second):
    """A finding whose location and notes name a line of each racing access."""
    lines = lines_named(finding, path)
    return bool(lines & set(first) and lines & set(second))


def lines_after_the_fix(buggy, fixed, lines):
    """The lines of the fixed file that the buggy file's `lines` (numbered from 1) became: a line
    the fix left is where the diff of the two versions puts it, one the fix rewrote is each line
    that replaced it, one it deleted is none."""
    found = set()
    opcodes = difflib.SequenceMatcher(None, buggy, fixed, autojunk=False).get_opcodes()
    for tag, buggy_start, buggy_end, fixed_start, fixed_end in opcodes:
        for line in lines:
            if not buggy_start < line <= buggy_end:
                continue
            if tag == "equal":
                found.add(fixed_start + line - buggy_start)
            elif tag == "replace":
                found.update(range(fixed_start + 1, fixed_end + 1))
    return found


if __name__ == "__main__":
    main()
