# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The suppressions file the tracer's reports read (docs/suppressions.md), applied to the Python
check's findings: one `type:pattern` a line, `*` matching any run of characters.

A static finding has what a run's finding has, for each of its accesses: the functions on the
way to it (the one making the access first, then its callers as far as the analysis followed
them), its file, the API that made it, and its stream. So `race:` and the other finding types
match a function (its qualified name or its last component), a file (its path or its name) or
an API of either access; `called_from:` the callers only; `stream:` a stream's name.
"""
from dataclasses import dataclass
import os
import re

# The finding type of the suppressions file each check's findings are.
_TYPE_OF_CHECK = {
    "streamrace-unsynchronized-cross-stream": "race",
    "streamrace-host-access-before-sync": "race",
    "streamrace-free-while-pending": "use_after_free",
    "streamrace-wait-unrecorded-event": "unrecorded_event",
}
# Types a run reports that no static finding is (a collective mismatch, a use before the
# allocation, a verdict on a synchronization), accepted so that one file serves both.
_TYPES = frozenset(_TYPE_OF_CHECK.values()) | {"use_before_alloc", "collective", "called_from",
                                              "stream", "sync"}


class SuppressionError(Exception):
    pass


@dataclass
class Rule:
    type: str
    pattern: str
    hits: int = 0

    def __post_init__(self):
        self.expression = re.compile(".*".join(re.escape(p) for p in self.pattern.split("*")))


class Suppressions:
    def __init__(self, rules):
        self.rules = rules

    def suppresses(self, finding):
        """True, and the hit counted, when a rule hides `finding`."""
        for rule in self.rules:
            if _matches(rule, finding):
                rule.hits += 1
                return True
        return False

    def summary(self):
        """`N findings suppressed: <hits> <type:pattern>; ...`, or None when none was."""
        hit = [rule for rule in self.rules if rule.hits]
        if not hit:
            return None
        return "%d findings suppressed: %s" % (
            sum(rule.hits for rule in hit),
            "; ".join("%d %s:%s" % (rule.hits, rule.type, rule.pattern) for rule in hit))


NONE = Suppressions([])


def load(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as source:
            text = source.read()
    except OSError as error:
        raise SuppressionError("cannot read the suppressions file '%s': %s" % (
            path, error.strerror))
    return parse(text, path)


def parse(text, origin):
    rules = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        kind, colon, pattern = line.partition(":")
        if not colon or kind not in _TYPES or not pattern:
            raise SuppressionError(
                "%s:%d: not a suppression: '%s' (expected type:pattern, the type one of %s)"
                % (origin, number, line, ", ".join(sorted(_TYPES))))
        rules.append(Rule(kind, pattern))
    return Suppressions(rules)


def _matches(rule, finding):
    sides = finding.sides
    if rule.type == "called_from":
        return any(_any(rule, _function_names(side.stack[1:])) for side in sides)
    if rule.type == "stream":
        return any(side.stream and rule.expression.fullmatch(side.stream) for side in sides)
    if rule.type != _TYPE_OF_CHECK.get(finding.check):
        return False
    return any(_any(rule, _function_names(side.stack)) or
               _any(rule, (side.path, os.path.basename(side.path))) or
               (side.api and rule.expression.fullmatch(side.api)) for side in sides)


def _function_names(stack):
    for name in stack:
        yield name
        yield name.rsplit(".", 1)[-1]


def _any(rule, names):
    return any(rule.expression.fullmatch(name) for name in names)
