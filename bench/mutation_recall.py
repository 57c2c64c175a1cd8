#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Recall of streamrace-check on real code, measured by removing one ordering at a time.

    bench/mutation_recall.py --repo NAME=DIR [--repo NAME=DIR ...] [--labels FILE]
        [--build DIR] [--jobs N] [--sites]

Each NAME is a repository of the labels file (bench/mutation_recall/labels.json), checked out or
extracted at DIR at the commit the file names (nothing of it lives in this repository). For each
labelled source file, every labelled ordering (cudaStreamWaitEvent, cudaEventRecord, a stream,
event or device synchronize, ncclGroupEnd) is removed alone: its statement becomes `(void)0;` on
the same lines, or the call becomes `cudaSuccess` where its value is used. streamrace-check runs
on the file and on each mutant with the flags the project builds the file with, and a mutant is
reported when a warning that the unmutated file does not get names both lines of the pair the
label says the removal leaves unordered.

Labels were written once by reading the code: `racy` (with the two lines now unordered; `pairs`
lists them all where the removal leaves several pairs unordered, any one of which counts) or
`neutral` (another path orders them, or the ordering was redundant). A file's `latent` list names
the warnings its unmodified code gets that reading found true (line, check, why): they are
counted apart from the warnings on unmutated files, which are false by the goal's definition. A file whose content no
longer has the labelled hash is skipped and said so: its labels describe other code.

--sites  print every ordering of every stream-using file of the repositories, labelled or not,
         and run nothing (to label more).
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import real_code_survey as survey  # noqa: E402  (the survey's project flags and analysis run)

LABELS = os.path.join(survey.ROOT, "bench", "mutation_recall", "labels.json")
ORDERING_CALL = re.compile(r"\b(cudaStreamWaitEvent|cudaEventRecordWithFlags|cudaEventRecord|"
                           r"cudaStreamSynchronize|cudaEventSynchronize|cudaDeviceSynchronize|"
                           r"ncclGroupEnd)\s*\(")


def content_hash(path):
    with open(path, "rb") as source:
        return hashlib.sha256(source.read()).hexdigest()[:16]


def code_only(text):
    """The text with comments and string/character literals blanked (newlines kept), so that
    offsets match the original and only code is searched."""
    kept = list(text)
    index, length = 0, len(text)
    while index < length:
        two = text[index:index + 2]
        if two == "//":
            end = text.find("\n", index)
            end = length if end < 0 else end
        elif two == "/*":
            end = text.find("*/", index + 2)
            end = length if end < 0 else end + 2
        elif text[index] in "\"'":
            end = index + 1
            while end < length and text[end] not in (text[index], "\n"):
                end += 2 if text[end] == "\\" else 1
            end += 1
        else:
            index += 1
            continue
        for blank in range(index, min(end, length)):
            if kept[blank] != "\n":
                kept[blank] = " "
        index = end
    return "".join(kept)


def removal_sites(text):
    """(line, call name) of every ordering call in the code."""
    code = code_only(text)
    return [(code.count("\n", 0, match.start()) + 1, match.group(1))
            for match in ORDERING_CALL.finditer(code)]


def closing_paren(code, open_index):
    depth = 0
    for index in range(open_index, len(code)):
        if code[index] == "(":
            depth += 1
        elif code[index] == ")":
            depth -= 1
            if depth == 0:
                return index
    return -1


def statement_start(code, call_index):
    """Where the statement holding the call starts: after the last `;`, `{`, `}`, `:` label,
    closed `)` of an `if`/`for` head or preprocessor line (`#ifdef`) that precedes it at the same
    nesting, so that a call wrapped in a checking macro (`CHECK(cudaEventRecord(e, s));`) is
    removed whole and the directives around it stay."""
    depth = 0
    index = call_index - 1
    while index >= 0:
        char = code[index]
        if char == "(":
            if depth == 0:
                index -= 1
                continue  # the wrapper macro's own parenthesis: keep going out
            depth -= 1
        elif char == ")":
            if depth == 0:
                return index + 1  # the head of an if/for/while governing this statement
            depth += 1
        elif char in ";{}" and depth == 0:
            return index + 1
        elif char == "\n" and depth == 0 and \
                code[code.rfind("\n", 0, index) + 1:index].lstrip().startswith("#"):
            return index + 1  # a preprocessor line before the statement stays
        elif re.match(r"\belse\b", code[index:index + 5]) and depth == 0 and (
                index == 0 or not (code[index - 1].isalnum() or code[index - 1] == "_")):
            return index + 4
        index -= 1
    return 0


def mutant_text(text, line, call):
    """The text with the ordering call of that line removed, lines kept; None when the line has
    no such call."""
    code = code_only(text)
    line_start = 0
    for _ in range(line - 1):
        line_start = code.index("\n", line_start) + 1
    line_end = code.find("\n", line_start)
    match = re.compile(r"\b" + call + r"\s*\(").search(code, line_start,
                                                         line_end if line_end >= 0 else len(code))
    if not match:
        return None
    call_end = closing_paren(code, match.end() - 1) + 1
    start = statement_start(code, match.start())
    head = code[start:match.start()]
    # The value is used (assigned, returned, compared): keep the statement, drop only the call.
    if re.search(r"(?<![=!<>])=(?!=)|\breturn\b", head) or re.match(r"\s*[!=<>]=|\s*[|&?]",
                                                                     code[call_end:]):
        return text[:match.start()] + "cudaSuccess" + text[call_end:]
    end = code.index(";", call_end) + 1
    removed = text[start:end]
    return text[:start] + " (void)0;" + "\n" * removed.count("\n") + text[end:]


def project_flags(name, repo, top, path):
    """The flags the project builds the file with: the survey's for the projects it knows, else
    the labels file's (`{top}` is the checkout, `{stubs}` bench/real_code), the repository's then
    the file's own."""
    if name in survey.PROJECTS:
        return dict(survey.PROJECTS[name](top))[path]
    relative = os.path.relpath(path, top)
    flags = repo.get("flags", []) + repo["files"].get(relative, {}).get("flags", [])
    return [flag.format(top=top, stubs=survey.STUBS) for flag in flags]


def run_checker(checker, name, top, path, flags, source_text=None):
    """The analysis of the file, or of source_text in its place: a copy in a scratch folder, its
    quoted includes found in the original's folder by -iquote."""
    options = argparse.Namespace(time=False, nvcc=False)
    if source_text is None:
        return survey.analyze((checker, name, top, path, flags, options))
    with tempfile.TemporaryDirectory(prefix="streamrace-mutant-") as folder:
        mutant = os.path.join(folder, os.path.basename(path))
        with open(mutant, "w") as out:
            out.write(source_text)
        flags = flags + ["-iquote", os.path.dirname(path)]
        return survey.analyze((checker, name, folder, mutant, flags, options))


def finding_key(finding):
    return (finding["check"], finding["line"], finding["message"])


def finding_lines(finding):
    """The finding's own line and the lines its notes point to in the analyzed file."""
    lines = {finding["line"]}
    for note in finding.get("notes", []):
        if note.get("file", finding["file"]) == finding["file"] and "line" in note:
            lines.add(note["line"])
    return lines


def read_labels(path):
    with open(path) as labels:
        return json.load(labels)["repos"]


def checkouts(arguments, labels):
    tops = {}
    for argument in arguments:
        name, _, top = argument.partition("=")
        if name not in labels or not os.path.isdir(top):
            sys.exit(f"mutation_recall: --repo {argument}: expected NAME=DIR with NAME one of "
                     f"{', '.join(sorted(labels))} and DIR a folder")
        tops[name] = os.path.abspath(top)
    return tops


def stream_sources(top):
    """The survey's stream-using files, and .cc ones too (NCCL's examples are C++ in .cc)."""
    for folder, _, names in os.walk(top):
        for name in sorted(names):
            path = os.path.join(folder, name)
            if name.endswith((".cu", ".cpp", ".cc")):
                with open(path, errors="replace") as source:
                    if survey.USES_STREAMS.search(source.read()):
                        yield path


def print_sites(tops, labels):
    for name, top in tops.items():
        files = labels[name]["files"]
        for path in stream_sources(top):
            relative = os.path.relpath(path, top)
            labelled = {m["line"]: m["label"] for m in files.get(relative, {}).get("mutants", [])}
            with open(path, errors="replace") as source:
                for line, call in removal_sites(source.read()):
                    print(f"{labelled.get(line, '?'):7} {name}/{relative}:{line} {call}")


def plan(tops, labels):
    """The files to analyze (name, top, path, flags, labels) and the unmutated-file jobs."""
    files = []
    for name, top in tops.items():
        repo = labels[name]
        for relative, entry in repo["files"].items():
            path = os.path.join(top, relative)
            if not os.path.exists(path):
                print(f"missing: {name}/{relative}")
                continue
            if content_hash(path) != entry["sha256"]:
                print(f"stale: {name}/{relative} has changed since it was labelled; skipped")
                continue
            files.append((name, top, path, project_flags(name, repo, top, path), entry))
    return files


def judge(mutant, result, baseline_keys):
    """What the run says about the mutant: reported, other (a new warning not naming the pair),
    silent or error."""
    if "error" in result:
        return "error", [str(result["error"])]
    new = [f for f in result["findings"] if finding_key(f) not in baseline_keys]
    if not new:
        return "silent", []
    said = [f"{f['line']}: {f['check']}: {f['message']}" for f in new]
    pairs = [set(pair) for pair in mutant.get("pairs", [mutant.get("pair", [])]) if pair]
    if any(pair <= finding_lines(f) for pair in pairs for f in new):
        return "reported", said
    return "other", said


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("--labels", default=LABELS)
    parser.add_argument("--build", default=os.path.join(survey.ROOT, "build"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--sites", action="store_true")
    options = parser.parse_args()
    labels = read_labels(options.labels)
    tops = checkouts(options.repo, labels)
    if not tops:
        sys.exit("mutation_recall: give at least one --repo NAME=DIR; names: "
                 + ", ".join(sorted(labels)))
    if options.sites:
        print_sites(tops, labels)
        return
    checker = os.path.join(options.build, "bin", "streamrace-check")
    if not os.access(checker, os.X_OK):
        sys.exit(f"mutation_recall: build streamrace-check first ({checker})")

    files = plan(tops, labels)
    latent = {path: {(race["line"], race["check"]) for race in entry.get("latent", [])}
              for _, _, path, _, entry in files}
    jobs = []
    for name, top, path, flags, entry in files:
        with open(path) as source:
            text = source.read()
        jobs.append((name, top, path, flags, None, None))
        for mutant in entry["mutants"]:
            jobs.append((name, top, path, flags, mutant,
                         mutant_text(text, mutant["line"], mutant["call"])))

    def run(job):
        name, top, path, flags, mutant, text = job
        if mutant is not None and text is None:
            return {"error": f"no {mutant['call']} call on line {mutant['line']}"}
        return run_checker(checker, name, top, path, flags, text)

    with concurrent.futures.ThreadPoolExecutor(max_workers=options.jobs) as pool:
        results = list(pool.map(run, jobs))

    baselines = {}
    for job, result in zip(jobs, results):
        if job[4] is None:
            baselines[job[2]] = result
    totals = {}
    for job, result in zip(jobs, results):
        name, top, path, _, mutant, _ = job
        where = f"{name}/{os.path.relpath(path, top)}"
        count = totals.setdefault(name, {"racy": 0, "reported": 0, "neutral": 0,
                                         "neutral_warned": 0, "files": 0, "file_warnings": 0,
                                         "errors": 0, "latent": 0})
        if mutant is None:
            count["files"] += 1
            if "error" in result:
                count["errors"] += 1
                print(f"error      {where}: {result['error']}")
            for finding in result["findings"]:
                true = (finding["line"], finding["check"]) in latent[path]
                count["latent" if true else "file_warnings"] += 1
                print(f"{'latent' if true else 'unmutated':<10} {where}:{finding['line']}: "
                      f"{finding['check']}: {finding['message']}")
            continue
        baseline_keys = {finding_key(f) for f in baselines[path]["findings"]}
        verdict, said = judge(mutant, result, baseline_keys)
        label = mutant["label"]
        site = f"{where}:{mutant['line']} -{mutant['call']}"
        if verdict == "error":
            count["errors"] += 1
        if label == "racy":
            count["racy"] += 1
            count["reported"] += verdict == "reported"
            pair = " or ".join("/".join(str(line) for line in pair)
                               for pair in mutant.get("pairs", [mutant.get("pair")]))
            outcome = {"reported": "REPORTED", "other": "MISSED (other warning)",
                       "silent": "MISSED", "error": "ERROR"}[verdict]
            cause = f" [{mutant['blind_spot']}]" if verdict != "reported" and \
                "blind_spot" in mutant else ""
            print(f"racy       {site}: {outcome}, pair {pair}{cause}")
        else:
            count["neutral"] += 1
            count["neutral_warned"] += verdict in ("reported", "other")
            outcome = {"silent": "silent", "error": "ERROR"}.get(verdict, "WARNED")
            print(f"neutral    {site}: {outcome}")
        for line in said:
            print(f"             {line}")

    print()
    grand = {}
    for name, count in totals.items():
        for key, value in count.items():
            grand[key] = grand.get(key, 0) + value
        print(summary(name, count))
    if len(totals) > 1:
        print(summary("total", grand))


def summary(name, count):
    recall = f"{100 * count['reported'] / count['racy']:.0f}%" if count["racy"] else "n/a"
    errors = f", {count['errors']} errors" if count["errors"] else ""
    latent = f"; latent races labelled true {count['latent']}" if count["latent"] else ""
    return (f"{name}: racy reported {count['reported']}/{count['racy']} (recall {recall}); "
            f"warnings on neutral mutants {count['neutral_warned']}/{count['neutral']}; "
            f"warnings on unmutated files {count['file_warnings']} ({count['files']} files)"
            f"{latent}{errors}")


if __name__ == "__main__":
    main()
