#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks that every NCCL entry point is either interposed by the tracer or classified in
api_model's nccl_uninterposed.def, so that a new NCCL's calls are read before they are missed.

    nccl_coverage.py --tracer LIB --ledger DEF --header NCCL_H [--library LIBNCCL]...

The entry points are the functions the header declares and the `nccl*` symbols each library
exports (each --library a glob; what matches nothing is skipped: PyTorch's wheel is there only
once the demo made its venv). Prints one line per entry point that is neither, and per ledger entry the tracer does
interpose after all; exits 1 when there is any. Prints the counts otherwise.
"""
import argparse
import glob
import os
import re
import subprocess
import sys

DECLARATION = re.compile(r"^\s*(?:ncclResult_t|const\s+char\s*\*)\s*\*?\s*(nccl\w+)\s*\(",
                         re.MULTILINE)
LEDGER_ENTRY = re.compile(r"^STREAMRACE_NCCL_UNINTERPOSED\((nccl\w+),\s*(\w+),", re.MULTILINE)


def exported(library):
    listing = subprocess.run(["nm", "-D", "--defined-only", library], capture_output=True,
                             text=True, check=True).stdout
    names = set()
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[2].startswith("nccl"):
            names.add(fields[2].split("@")[0])
    return names


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tracer", required=True)
    parser.add_argument("--ledger", required=True)
    parser.add_argument("--header", required=True)
    parser.add_argument("--library", action="append", default=[])
    options = parser.parse_args()

    with open(options.header) as header:
        wanted = {name: "nccl.h" for name in DECLARATION.findall(header.read())}
    libraries = sorted({found for pattern in options.library for found in glob.glob(pattern)})
    for library in libraries:
        for name in exported(library):
            wanted.setdefault(name, library)
    interposed = exported(options.tracer)
    with open(options.ledger) as ledger:
        classified = dict(LEDGER_ENTRY.findall(ledger.read()))

    problems = []
    for name in sorted(wanted):
        if name not in interposed and name not in classified:
            problems.append("%s (from %s): neither interposed nor in %s" % (
                name, wanted[name], os.path.basename(options.ledger)))
    for name in sorted(classified):
        if name in interposed:
            problems.append("%s: interposed, yet listed in %s" % (
                name, os.path.basename(options.ledger)))
    for problem in problems:
        print("nccl coverage: " + problem)
    if problems:
        return 1
    kinds = list(classified.values())
    print("nccl coverage: %d entry points from the header and %d libraries: %d interposed, "
          "%d that order nothing, %d not modelled" % (
              len(wanted), len(libraries), len(set(wanted) & interposed),
              kinds.count("OrdersNothing"), kinds.count("NotModelled")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
