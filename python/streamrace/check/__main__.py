# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""python -m streamrace.check [--format=text|findings-json] [--checks=GLOBS] [--stats] PATH...

Text prints each finding as a compiler does (PATH:LINE:COL: warning: ... [check], then its
notes); findings-json is the document streamrace-check reads. Exit status: 0 without findings,
1 with findings, 2 when a file could not be checked (the others are)."""
import argparse
import json
import os
import signal
import sys

from . import check_paths
from .findings import findings_document
from .suppressions import NONE as NO_SUPPRESSIONS, SuppressionError, load as load_suppressions
from .user_model import EMPTY as EMPTY_MODEL, ModelError, load as load_user_model


def text_report(result, out):
    for error in result.errors:
        out.write("%s:%d:%d: error: %s\n" % (error.path, error.line, error.column, error.message))
    for level, finding in [("warning", f) for f in result.findings] + \
            [("remark", a) for a in result.advice]:
        location = finding.location
        out.write("%s:%d:%d: %s: %s [%s]\n" % (location.path, location.line, location.column,
                                                level, finding.message, finding.check))
        for note_location, text in finding.notes:
            out.write("%s:%d:%d: note: %s\n" % (note_location.path, note_location.line,
                                                note_location.column, text))


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m streamrace.check",
                                     description="Static check of stream races in Python.")
    parser.add_argument("paths", nargs="+", help=".py files, or folders checked recursively")
    parser.add_argument("--format", choices=["text", "findings-json"], default="text")
    parser.add_argument("--checks", default="streamrace-*",
                        help="comma-separated globs of checks; a leading '-' removes")
    parser.add_argument("--model", metavar="FILE",
                        help="JSON models of wrapper functions (entries with \"language\": "
                             "\"python\"): which arguments they read and write, on which stream")
    parser.add_argument("--suppressions", metavar="FILE",
                        help="a suppressions file (race:<pattern>, called_from:<pattern>, ...; "
                             "the tracer's format): the findings it hides do not count")
    parser.add_argument("--advise", choices=["sync"],
                        help="sync: also advise on host waits a stream's wait could replace")
    parser.add_argument("--stats", action="store_true",
                        help="print what was analyzed and how long it took on standard error")
    args = parser.parse_args(argv)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    try:
        user_model = load_user_model(args.model) if args.model else EMPTY_MODEL
        suppressions = load_suppressions(args.suppressions) if args.suppressions else \
            NO_SUPPRESSIONS
    except (ModelError, SuppressionError) as error:
        sys.stderr.write("streamrace-check: %s\n" % error)
        return 2
    try:
        result = check_paths(args.paths, args.checks, user_model, suppressions,
                             advise_syncs=args.advise == "sync")
    except Exception as error:  # noqa: BLE001 - say what broke instead of a traceback
        sys.stderr.write("streamrace-check: internal error in the Python check: %s: %s (run "
                         "with STREAMRACE_CHECK_DEBUG=1 for the traceback)\n"
                         % (type(error).__name__, error))
        if os.environ.get("STREAMRACE_CHECK_DEBUG"):
            raise
        return 3
    try:
        if args.format == "findings-json":
            json.dump(findings_document(result.findings, result.sources, result.errors,
                                        result.advice if args.advise else None), sys.stdout)
            sys.stdout.write("\n")
        else:
            text_report(result, sys.stdout)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader closed the pipe (`| head`): it has what it wanted. Later flushes (the
        # interpreter's at exit) go nowhere; the status is a shell's for a writer SIGPIPE ended.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE
    if suppressions.summary():
        sys.stderr.write("streamrace-check: %s\n" % suppressions.summary())
    if args.stats:
        for name, value in result.statistics.items():
            sys.stderr.write("streamrace-check: %s: %s\n" % (name, value))
    else:
        given_up = result.statistics["functions given up"]
        if given_up:
            # Races in those functions may be missed: the run must not look complete.
            if len(given_up) == 1:
                sys.stderr.write("streamrace-check: a function was not analyzed to the end, so "
                                 "races in it may be missed: %s\n" % given_up[0])
            else:
                sys.stderr.write("streamrace-check: %d functions were not analyzed to the end, so "
                                 "races in them may be missed: %s and %d more (--stats lists "
                                 "them)\n" % (len(given_up), given_up[0], len(given_up) - 1))
    if result.errors:
        return 2
    return 1 if result.findings else 0


if __name__ == "__main__":
    status = main()
    # The package's parse trees and index, millions of objects that refer to each other in
    # cycles, would be traversed and freed one by one by the interpreter's teardown, a tenth of
    # the run's time: the output is flushed and the process ends without it.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
