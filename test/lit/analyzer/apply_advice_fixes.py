#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Applies the fix-its of every advice in a streamrace-check JSON document to the files they
edit (`--fix` leaves advice alone), so a test can check that the code the advice proposes
compiles and is silent: apply_advice_fixes.py DOCUMENT."""
import json
import sys
from collections import defaultdict


def main():
    with open(sys.argv[1]) as document:
        advice = json.load(document).get("advice", [])
    edits = defaultdict(set)
    for entry in advice:
        for fix in entry["fixes"]:
            edits[fix["file"]].add((fix["offset"], fix["length"], fix["replacement"]))
    for path, changes in edits.items():
        with open(path, "rb") as source:
            text = source.read()
        # From the end, so that earlier offsets stay valid.
        for offset, length, replacement in sorted(changes, reverse=True):
            text = text[:offset] + replacement.encode() + text[offset + length:]
        with open(path, "wb") as source:
            source.write(text)
    print("applied %d advice to %d file(s)" % (len(advice), len(edits)))


if __name__ == "__main__":
    main()
