# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Host waits stronger than what they order (`streamrace-check --advise=sync`), in Python.

A statement that only makes the host wait (`torch.cuda.synchronize()`, a stream's, an event's
or the accelerator's `synchronize()`) is taken out, the program checked again, and the wait
advised when every finding new without it is a race between two streams: a `wait_stream` or an
event's `wait` orders it without blocking the host. A host read the check models (`.item()`,
`.cpu()`, a non-blocking copy's host tensor read or handed out) gives a finding of another
check, and so no advice; a tensor on the device is read by the host only through such calls.
A race whose later access makes the host wait for its own stream anyway (`.item()`, `.cpu()`)
gains nothing from a stream's wait, and alone gives no advice. The tracer's advisor gives the
same verdict from a run (docs/sync-advice.md).
"""
import ast
from dataclasses import replace

from ..torch_model import HOST_BLOCKING_METHODS
from .findings import Finding, Location

ADVICE = "streamrace-sync-over-strong"
_CROSS_STREAM = "streamrace-unsynchronized-cross-stream"


def advise_host_waits(sources, findings, findings_without, enabled):
    """The advice on the host waits of `sources`, in source order; `findings_without(sources)`
    checks the program with one file changed. Off when `enabled(ADVICE)` is false (--checks), and
    at a wait whose line says `# streamrace: ignore[streamrace-sync-over-strong]`."""
    if not enabled(ADVICE):
        return []
    known = {_identity(finding) for finding in findings}
    advice = []
    for index, source in enumerate(sources):
        for statement in _host_wait_statements(source):
            if source.ignores(statement.lineno, ADVICE):
                continue
            changed = _without(source, statement)
            if changed is None:
                continue
            unordered = [finding for finding in
                         findings_without(sources[:index] + [changed] + sources[index + 1:])
                         if _identity(finding) not in known]
            if unordered and all(finding.check == _CROSS_STREAM for finding in unordered) and \
                    not all(map(_host_waits_there, unordered)):
                advice.append(_advice(source, statement, unordered))
    return advice


def _host_waits_there(race):
    """Whether the race's later access is a call that makes the host wait for its stream."""
    return bool(race.sides) and \
        race.sides[-1].api.rpartition(".")[2] in HOST_BLOCKING_METHODS


def _identity(finding):
    return (finding.check, finding.location.path, finding.location.line, finding.message)


def _host_wait_statements(source):
    """Statements that are one call of `synchronize` and nothing else, each on lines of its own
    (what can be taken out without changing the lines around it)."""
    for node in ast.walk(source.tree):
        if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
            continue
        function = node.value.func
        if isinstance(function, ast.Attribute) and function.attr == "synchronize" and \
                not node.value.keywords and len(node.value.args) <= 1 and \
                _alone_on_its_lines(source, node):
            yield node


def _alone_on_its_lines(source, node):
    first, last = source.lines[node.lineno - 1], source.lines[node.end_lineno - 1]
    rest = last[node.end_col_offset:].strip()
    return not first[:node.col_offset].strip() and (not rest or rest.startswith("#"))


def _without(source, statement):
    """The source with the statement replaced by `pass`, every other line where it was."""
    lines = list(source.lines)
    first = statement.lineno - 1
    lines[first] = lines[first][:statement.col_offset] + "pass"
    for number in range(first + 1, statement.end_lineno):
        lines[number] = ""
    text = "\n".join(lines) + "\n"
    try:
        tree = ast.parse(text, filename=source.path)
    except SyntaxError:
        return None
    return replace(source, text=text, tree=tree, lines=lines)


def _advice(source, statement, unordered):
    call = ast.get_source_segment(source.text, statement.value) or "synchronize()"
    notes = []
    for race in unordered:
        notes.append((race.location, "without it: " + race.message))
        notes.extend(race.notes)
    plural = "that race" if len(unordered) == 1 else "%d races" % len(unordered)
    return Finding(ADVICE, "'%s' makes the host wait, but only work on other streams needs what "
                   "it waits for: a stream's wait orders %s without blocking the host"
                   % (call, plural),
                   Location(source.path, statement.lineno, statement.col_offset + 1), notes)
