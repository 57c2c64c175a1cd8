# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Findings as streamrace-check reports them for every language: a check name, a message at the
later access, notes (the other access, the calls leading to each, the fix), and fix-its as
text edits. Serialized in the analyzer's JSON findings document, which streamrace-check reads
to print them as it prints its own (text, JSON, SARIF)."""
from dataclasses import dataclass, field
from typing import List


@dataclass
class Location:
    path: str
    line: int
    column: int  # 1-based, in characters of the line as the file holds it

    def as_json(self):
        return {"file": self.path, "line": self.line, "column": self.column}


@dataclass
class Fix:
    location: Location
    length: int
    replacement: str


@dataclass(frozen=True)
class Side:
    """One access of a finding, as a suppression matches it: the functions on the way to it
    (the one making it first, then its callers), its file, its API and its stream's name."""
    stack: tuple
    path: str
    api: str = ""
    stream: str = ""


@dataclass
class Finding:
    check: str
    message: str
    location: Location
    notes: List = field(default_factory=list)   # (Location, text)
    fixes: List[Fix] = field(default_factory=list)
    # What identifies the race whatever way the analysis reached it: one finding per identity.
    identity: tuple = ()
    sides: tuple = ()


def _offset(lines, line, column):
    """The byte offset of a line and column in the file (UTF-8), as clang's tools count."""
    if not lines or line < 1:
        return 0
    offset = sum(len(text.encode("utf-8")) + 1 for text in lines[:line - 1])
    if line - 1 < len(lines):
        offset += len(lines[line - 1][:max(column - 1, 0)].encode("utf-8"))
    return offset


def findings_document(findings, sources, errors, advice=None):
    """The document streamrace-check --format=json writes (one entry per finding: its location,
    check, message, notes and fixes), with `errors`, the files that were not checked, and the
    advice in the findings' shape when it was asked for."""
    def fix_json(fix):
        source = sources.get(fix.location.path)
        entry = fix.location.as_json()
        entry["offset"] = _offset(source.lines if source else [], fix.location.line,
                                  fix.location.column)
        entry["length"] = fix.length
        entry["replacement"] = fix.replacement
        return entry

    def finding_json(finding):
        entry = finding.location.as_json()
        entry["check"] = finding.check
        entry["message"] = finding.message
        entry["notes"] = [dict(location.as_json(), message=text)
                          for location, text in finding.notes]
        entry["fixes"] = [fix_json(fix) for fix in finding.fixes]
        return entry

    document = {"findings": [finding_json(finding) for finding in findings],
                "errors": [{"file": e.path, "line": e.line, "column": e.column,
                            "message": e.message} for e in errors]}
    if advice is not None:
        document["advice"] = [finding_json(entry) for entry in advice]
    return document
