# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What the reference-table scripts share: a Markdown table kept between two marker lines of a
document, printed, checked against the document, or written into it."""
import argparse
import pathlib
import sys


def parse_arguments(description, binary, binary_help):
    """--<binary> PATH, and at most one of --check DOCUMENT and --update DOCUMENT."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--" + binary, required=True, help=binary_help)
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--check", type=pathlib.Path, help="fail when the file's table differs")
    action.add_argument("--update", type=pathlib.Path, help="rewrite the file's table")
    return parser.parse_args()


def split_document(path, begin, end, tool):
    text = path.read_text()
    if text.count(begin) != 1 or text.count(end) != 1:
        sys.exit(f"{tool}: {path} needs exactly one line\n  {begin}\nand one line\n  {end}")
    before, rest = text.split(begin + "\n", 1)
    current, after = rest.split(end, 1)
    return before, current, after


def print_check_or_update(arguments, expected, *, begin, end, tool, noun, source, regenerate):
    """Prints `expected`, or with --check fails when the document's table differs (naming the
    `regenerate` command), or with --update writes it in."""
    if arguments.check:
        _, current, _ = split_document(arguments.check, begin, end, tool)
        if current != expected:
            sys.stdout.write(f"{tool}: the {noun} table in {arguments.check} differs from "
                             f"'{source}'; regenerate it with\n  {regenerate} --update "
                             f"{arguments.check}\nexpected:\n{expected}")
            sys.exit(1)
        print(f"{tool}: {arguments.check} lists the {len(expected.splitlines()) - 2} {noun} "
              f"of '{source}'")
    elif arguments.update:
        before, _, after = split_document(arguments.update, begin, end, tool)
        arguments.update.write_text(before + begin + "\n" + expected + end + after)
    else:
        sys.stdout.write(expected)
