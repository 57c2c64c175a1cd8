# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""streamrace's static check of Python training code: the races between CUDA streams that
PyTorch programs write (a side stream reading what the current stream still writes, a buffer
overwritten while a collective reads it, a non-blocking copy read on the host before it lands,
a tensor handed between streams without record_stream), found before the program runs.

`streamrace-check` runs it on the .py files and folders it is given and reports its findings as
it does its C++ ones; `python -m streamrace.check` runs it alone.
"""
import fnmatch
import gc
import time
from dataclasses import dataclass, field
from typing import List

from .checks import NAMES, Checks
from .engine import Analysis
from .package import Package
from .sources import python_files, read_source
from .sync_advice import advise_host_waits
from .suppressions import NONE as NO_SUPPRESSIONS
from .user_model import EMPTY as EMPTY_MODEL


@dataclass
class Result:
    findings: List = field(default_factory=list)
    errors: List = field(default_factory=list)
    sources: dict = field(default_factory=dict)
    statistics: dict = field(default_factory=dict)
    advice: List = field(default_factory=list)   # with advise_syncs (sync_advice.py)


def check_filter(spec):
    """clang-tidy's --checks syntax: comma-separated globs, a leading '-' removes."""
    patterns = [(p.strip().startswith("-"), p.strip().lstrip("-"))
                for p in spec.split(",") if p.strip()]

    def enabled(name):
        on = False
        for negative, pattern in patterns:
            if fnmatch.fnmatchcase(name, pattern):
                on = not negative
        return on
    return enabled


# Allocations between two collections of the youngest objects while the check runs (Python's
# default is 700).
_YOUNG_COLLECTION_THRESHOLD = 10000


def check_paths(paths, checks="streamrace-*", user_model=EMPTY_MODEL,
                suppressions=NO_SUPPRESSIONS, advise_syncs=False):
    # Python's cyclic garbage collector, set for a usual program's mix, cost the check a third
    # of its time: the analysis allocates millions of short-lived values (states, keys,
    # accesses) that reference counting frees, as they form almost no cycles, and every
    # full collection traverses the parse trees again. So collections are made rarer while the
    # check runs, and the package, once indexed, is frozen out of their reach.
    threshold = gc.get_threshold()
    gc.set_threshold(max(threshold[0], _YOUNG_COLLECTION_THRESHOLD), *threshold[1:])
    try:
        return _check_paths(paths, checks, user_model, suppressions, advise_syncs)
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)


def _check_paths(paths, checks, user_model, suppressions, advise_syncs):
    started = time.perf_counter()
    result = Result()
    files, result.errors = python_files(paths)
    sources = []
    for path in files:
        source, error = read_source(path)
        if error is not None:
            result.errors.append(error)
        else:
            sources.append(source)
            result.sources[path] = source
    def findings_of(sources):
        package = Package(sources)
        gc.freeze()   # the parse trees and the index live until the check ends
        reporter = Checks({source.path: source for source in sources}, check_filter(checks),
                          suppressions)
        analysis = Analysis(package, reporter, user_model)
        analysis.run()
        reporter.finish(analysis.followed_while_reporting)
        return analysis, sorted(reporter.findings, key=lambda f: (
            f.location.path, f.location.line, f.location.column, f.check))

    analysis, result.findings = findings_of(sources)
    if advise_syncs:
        result.advice = advise_host_waits(sources, result.findings,
                                          lambda changed: findings_of(changed)[1],
                                          check_filter(checks))
    result.statistics = {
        "files": len(sources),
        "lines": sum(len(s.lines) for s in sources),
        "functions analyzed": analysis.roots_analyzed,
        "functions over the statement budget": sorted(analysis.over_budget),
        "functions given up": sorted(analysis.given_up),
        "methods left to bases not given": sorted(analysis.escapes.left_to_unseen_bases),
        "seconds": round(time.perf_counter() - started, 3),
    }
    return result


__all__ = ["check_paths", "NAMES", "Result"]
