#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks the rules the repository keeps about itself, over a source tree:

  house_rules.py self-contained ROOT   no file points at material outside the repository
  house_rules.py spdx ROOT [--fix]     every source file names its license in its first lines
  house_rules.py format ROOT CLANG_FORMAT
                                       every C++ file is as clang-format leaves it
  house_rules.py file-size ROOT        no source file outside test/ is over 800 lines

Each prints one line per violation and a summary line, and exits 1 when a rule is broken.
Test inputs under test/lit (their line numbers are part of what the tests check) and data
files are outside the SPDX and format rules.
"""
import os
import re
import subprocess
import sys

SPDX = "SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception"
SKIPPED_DIRS = {".git", "build", "out", "__pycache__"}
CXX_SUFFIXES = (".cpp", ".h", ".cu", ".cuh", ".inc", ".def")
SCRIPT_SUFFIXES = (".py", ".sh", ".cfg", ".py.in")
MAX_LINES = 800
# Names of design notes that lived beside the repository once; the repository's own design is
# in docs/. Spelled in pieces so this file does not match itself.
OUTSIDE = re.compile(r"\.\./" + "shared|shared/" + "design|\\b(SEMANTICS|HPZ|ARCHITECTURE|PLUMBING|"
                     "MEASURING)\\.md\\b")


def source_files(root):
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if d not in SKIPPED_DIRS)
        for name in sorted(files):
            yield os.path.relpath(os.path.join(directory, name), root)


def is_test_input(path):
    parts = path.split(os.sep)
    if parts[:2] != ["test", "lit"]:
        return False
    return "Inputs" in parts or path.endswith((".test", ".cu", ".cpp", ".json"))


def comment_prefix(path):
    name = os.path.basename(path)
    if is_test_input(path):
        return None
    if name.endswith(CXX_SUFFIXES):
        return "//"
    if name.endswith(SCRIPT_SUFFIXES) or name == "CMakeLists.txt" or name.endswith(".cmake"):
        return "#"
    return None


def check_self_contained(root):
    bad = 0
    for path in source_files(root):
        try:
            with open(os.path.join(root, path), encoding="utf-8") as f:
                lines = f.readlines()
        except (UnicodeDecodeError, OSError):
            continue
        for number, line in enumerate(lines, 1):
            if OUTSIDE.search(line):
                print(f"{path}:{number}: points outside the repository: {line.strip()}")
                bad += 1
    print(f"self-contained: {bad} reference(s) to files outside the repository")
    return bad == 0


def with_spdx(lines, prefix):
    insert_at = 1 if lines and lines[0].startswith("#!") else 0
    return lines[:insert_at] + [f"{prefix} {SPDX}\n"] + lines[insert_at:]


def check_spdx(root, fix):
    bad = checked = 0
    for path in source_files(root):
        prefix = comment_prefix(path)
        if prefix is None:
            continue
        checked += 1
        full = os.path.join(root, path)
        with open(full, encoding="utf-8") as f:
            lines = f.readlines()
        if any(SPDX in line for line in lines[:3]):
            continue
        if fix:
            with open(full, "w", encoding="utf-8") as f:
                f.writelines(with_spdx(lines, prefix))
            print(f"{path}: license line added")
        else:
            print(f"{path}: no '{SPDX}' in its first lines")
            bad += 1
    print(f"spdx: {checked} source files, {bad} without a license line")
    return bad == 0


def check_format(root, clang_format):
    bad = checked = 0
    for path in source_files(root):
        if not path.endswith(CXX_SUFFIXES) or is_test_input(path):
            continue
        checked += 1
        result = subprocess.run([clang_format, "--dry-run", "-Werror", path], cwd=root,
                                capture_output=True, text=True)
        if result.returncode != 0:
            first = next((l for l in result.stderr.splitlines() if "error" in l), "")
            print(f"{path}: not formatted: {first}")
            bad += 1
    print(f"format: {checked} C++ files, {bad} not as clang-format leaves them")
    return bad == 0


def check_file_size(root):
    bad = checked = 0
    for path in source_files(root):
        if path.split(os.sep)[0] == "test" or not path.endswith(CXX_SUFFIXES + SCRIPT_SUFFIXES):
            continue
        checked += 1
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            lines = sum(1 for _ in f)
        if lines > MAX_LINES:
            print(f"{path}: {lines} lines, over {MAX_LINES}: split it by concern")
            bad += 1
    print(f"file-size: {checked} source files, {bad} over {MAX_LINES} lines")
    return bad == 0


def main(argv):
    rules = ("self-contained", "spdx", "format", "file-size")
    if len(argv) < 3 or argv[1] not in rules:
        print(__doc__, file=sys.stderr)
        return 2
    rule, root = argv[1], argv[2]
    if rule == "self-contained":
        ok = check_self_contained(root)
    elif rule == "spdx":
        ok = check_spdx(root, "--fix" in argv[3:])
    elif rule == "file-size":
        ok = check_file_size(root)
    else:
        if len(argv) < 4:
            print("format needs the clang-format to use", file=sys.stderr)
            return 2
        ok = check_format(root, argv[3])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
