#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Runs every command the documentation shows, so that no page tells a user to type something
that does not work.

    check_doc_commands.py --source-root SRC --build-dir BUILD --work DIR README.md docs/

Every fenced block marked sh, bash or shell in the given Markdown files (folders: their *.md) is
a block of commands. Per file, the blocks run in order, each in a fresh bash, in one working
folder that looks like a checkout after its build: every top-level entry of the source tree is
linked there, `build` points at BUILD, and BUILD/bin comes first on PATH. Files a page writes
stay for that page's later blocks, so a page can be a walk-through.

Conventions for writers of the docs:
- A block with a line `# illustrative: <why>` (e.g. `# illustrative: needs a GPU cluster`) is
  shown, not run.
- Each command must exit 0, unless its last line ends with a comment naming the status, as in
  `streamrace run -- ./train   # exits 66: races found`.
- A command that another test runs (the README's Quick start) is listed in RUN_ELSEWHERE with
  that test, instead of being run twice.
"""
import argparse
import os
import pathlib
import re
import subprocess
import sys

SHELL_LANGUAGES = {"sh", "bash", "shell"}
ILLUSTRATIVE = re.compile(r"^\s*#\s*illustrative:\s*(\S.*)$")
# `cat > file <<'CODE'` ... `CODE`: the lines up to the delimiter belong to the one command.
HEREDOC = re.compile(r"<<-?\s*(['\"]?)(\w+)\1")
EXPECTED_STATUS = re.compile(r"#[^#'\"]*\bexit(?:s| status)\s+(\d+)\b[^#'\"]*$")
FENCE = re.compile(r"^(\s{0,3})(```+|~~~+)\s*([\w+-]*)")
RUN_ELSEWHERE = {
    "scripts/demo.sh": "test/lit/demo/demo.test",
    "scripts/test.sh": "the whole suite (.ci/run runs it)",
    "scripts/gpu-check.sh --emulator --skip-bench": "test/lit/torch/gpu_check.test",
}
BLOCK_TIMEOUT_SECONDS = 600


class Block:
    def __init__(self, path, line, language, lines):
        self.path, self.line, self.language, self.lines = path, line, language, lines

    def illustrative_reason(self):
        for text in self.lines:
            match = ILLUSTRATIVE.match(text)
            if match:
                return match[1]
        return None

    def commands(self):
        """(first line number, command text, expected status) per command; comments and blank
        lines dropped, backslash continuations and here-documents joined."""
        commands, pending, start, delimiter = [], [], None, None
        for offset, text in enumerate(self.lines):
            stripped = text.strip()
            if delimiter:
                pending.append(text)
                if stripped == delimiter:
                    delimiter = None
                    commands.append((start, "\n".join(pending), 0))
                    pending = []
                continue
            if not pending and (not stripped or stripped.startswith("#")):
                continue
            if not pending:
                start = self.line + 1 + offset
            pending.append(text)
            heredoc = HEREDOC.search(text)
            if heredoc:
                delimiter = heredoc[2]
                continue
            if text.rstrip().endswith("\\"):
                continue
            command = "\n".join(pending)
            match = EXPECTED_STATUS.search(pending[-1])
            commands.append((start, command, int(match[1]) if match else 0))
            pending = []
        if delimiter:
            raise SystemExit(f"{self.path}:{start}: a here-document never reaches '{delimiter}'")
        if pending:
            raise SystemExit(f"{self.path}:{start}: a command ends with a backslash and nothing after it")
        return commands


def blocks_of(path):
    blocks, fence, language, start, lines = [], None, None, 0, []
    for number, text in enumerate(path.read_text().splitlines(), start=1):
        match = FENCE.match(text)
        if fence is None:
            if match:
                fence, language, start, lines = match[2], match[3].lower(), number, []
        elif match and match[2].startswith(fence) and not match[3]:
            if language in SHELL_LANGUAGES:
                blocks.append(Block(path, start, language, lines))
            fence = None
        else:
            lines.append(text)
    if fence is not None:
        raise SystemExit(f"{path}:{start}: a fenced block is never closed")
    return blocks


def script_for(commands):
    """One bash script that runs the commands in order and stops at the first unexpected status."""
    # No pipefail: a pipeline's status is its last command's, as in the shell a reader types in.
    parts = []
    for line, command, expected in commands:
        quoted = command.replace("'", "'\\''")
        parts.append(command)
        parts.append(f"doc_status=$?; if [ $doc_status -ne {expected} ]; then "
                     f"printf '%s\\n' 'line {line}: exited '$doc_status', expected {expected}:' "
                     f"'{quoted}' >&2; exit 1; fi")
    return "\n".join(parts) + "\n"


def prepare_workspace(work, source_root, build_dir):
    work.mkdir(parents=True, exist_ok=True)
    for entry in source_root.iterdir():
        if entry.name in {"build", "out", ".git"}:
            continue
        link = work / entry.name
        if not link.exists() and not link.is_symlink():
            link.symlink_to(entry)
    build_link = work / "build"
    if not build_link.is_symlink():
        build_link.symlink_to(build_dir)


def markdown_files(paths):
    for path in paths:
        if path.is_dir():
            yield from sorted(path.glob("*.md"))
        else:
            yield path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source-root", required=True, type=pathlib.Path)
    parser.add_argument("--build-dir", required=True, type=pathlib.Path)
    parser.add_argument("--work", required=True, type=pathlib.Path,
                        help="a scratch folder (one subfolder per page)")
    parser.add_argument("files", nargs="+", type=pathlib.Path)
    arguments = parser.parse_args()
    source_root = arguments.source_root.resolve()
    build_dir = arguments.build_dir.resolve()
    environment = dict(os.environ)
    environment["PATH"] = os.pathsep.join([str(build_dir / "bin"), environment.get("PATH", "")])

    totals = {"run": 0, "illustrative": 0, "elsewhere": 0, "failed": 0}
    for path in markdown_files(arguments.files):
        shown = path.resolve().relative_to(source_root)
        work = arguments.work.resolve() / str(shown).replace("/", "_")
        prepare_workspace(work, source_root, build_dir)
        for block in blocks_of(path):
            reason = block.illustrative_reason()
            if reason:
                print(f"{shown}:{block.line}: illustrative ({reason})")
                totals["illustrative"] += 1
                continue
            to_run = []
            for line, command, expected in block.commands():
                if command.strip() in RUN_ELSEWHERE:
                    print(f"{shown}:{line}: '{command.strip()}' is run by {RUN_ELSEWHERE[command.strip()]}")
                    totals["elsewhere"] += 1
                else:
                    to_run.append((line, command, expected))
            if not to_run:
                continue
            try:
                result = subprocess.run(["bash", "-c", script_for(to_run)], cwd=work,
                                        env=environment, capture_output=True, text=True,
                                        timeout=BLOCK_TIMEOUT_SECONDS)
                failed, output = result.returncode != 0, result.stdout + result.stderr
            except subprocess.TimeoutExpired:
                failed, output = True, f"timed out after {BLOCK_TIMEOUT_SECONDS} s"
            if failed:
                totals["failed"] += 1
                print(f"{shown}:{block.line}: FAILED in {work}\n" +
                      "\n".join("  | " + text for text in output.splitlines()[-40:]))
            else:
                totals["run"] += len(to_run)
                print(f"{shown}:{block.line}: ran {len(to_run)} command{'s' if len(to_run) != 1 else ''}")
    print(f"docs: {totals['run']} commands run, {totals['elsewhere']} run by other tests, "
          f"{totals['illustrative']} blocks illustrative, {totals['failed']} blocks failed")
    sys.exit(1 if totals["failed"] else 0)


if __name__ == "__main__":
    main()
