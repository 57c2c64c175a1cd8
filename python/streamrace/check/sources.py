# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Reading Python sources as the interpreter would: the files of the paths given (folders
recursively), decoded by their coding declaration, parsed; a file that cannot be read or parsed
is one diagnostic naming it, and the others are still checked."""
import ast
import io
import os
import re
import tokenize
from dataclasses import dataclass, field
from typing import List, Optional

SKIPPED_FOLDERS = {".git", "__pycache__", ".hg", ".svn", ".tox", ".venv", "venv", "node_modules",
                   ".mypy_cache", ".pytest_cache", "build", "dist"}

# `# streamrace: ignore` or `# streamrace: ignore[check, check]` on the line of a finding.
_IGNORE = re.compile(r"#\s*streamrace:\s*ignore(?:\[([^\]]*)\])?")


@dataclass
class SourceFile:
    path: str
    text: str
    tree: ast.Module
    lines: List[str]
    # line -> the checks ignored there (an empty set ignores every check)
    ignored: dict = field(default_factory=dict)

    def ignores(self, line, check):
        checks = self.ignored.get(line)
        return checks is not None and (not checks or check in checks)


@dataclass
class SourceError:
    path: str
    line: int
    column: int
    message: str


def python_files(paths):
    """The .py files the paths name, folders searched recursively in a stable order; a path that
    is neither a file nor a folder is an error."""
    files, errors = [], []
    for path in paths:
        if os.path.isdir(path):
            for folder, subfolders, names in os.walk(path):
                subfolders[:] = sorted(d for d in subfolders
                                       if d not in SKIPPED_FOLDERS and not d.endswith(".egg-info"))
                files.extend(os.path.join(folder, n) for n in sorted(names) if n.endswith(".py"))
        elif os.path.isfile(path):
            files.append(path)
        else:
            errors.append(SourceError(path, 0, 0, "no such file or folder"))
    return files, errors


def read_source(path) -> "tuple[Optional[SourceFile], Optional[SourceError]]":
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as error:
        return None, SourceError(path, 0, 0, "cannot read the file: %s" % error.strerror)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except (SyntaxError, LookupError):
        encoding = "utf-8"   # no valid declaration: the bytes say what is wrong below
    try:
        text = data.decode("utf-8-sig" if encoding == "utf-8" else encoding)
    except (LookupError, UnicodeDecodeError) as error:
        start = getattr(error, "start", 0)
        line = data[:start].count(b"\n") + 1
        column = start - (data.rfind(b"\n", 0, start) + 1) + 1
        if isinstance(error, UnicodeDecodeError):
            message = "the file is not valid %s (byte 0x%02x) and declares no other encoding; " \
                      "it is not checked" % (error.encoding.upper(), data[start])
        else:
            message = "the file declares an unknown encoding '%s'; it is not checked" % encoding
        return None, SourceError(path, line, column, message)
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        tree = ast.parse(text, filename=path, type_comments=False)
    except SyntaxError as error:
        return None, SourceError(path, error.lineno or 0, error.offset or 0,
                                 "syntax error: %s; the file is not checked" % error.msg)
    except (ValueError, RecursionError, MemoryError) as error:
        return None, SourceError(path, 0, 0, "cannot parse the file (%s); it is not checked"
                                 % _reason(error))
    lines = text.splitlines()
    return SourceFile(path, text, tree, lines, _ignore_comments(text)), None


def _reason(error):
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _ignore_comments(text):
    ignored = {}
    if "streamrace" not in text:
        return ignored
    try:
        tokens = tokenize.generate_tokens(io.StringIO(text).readline)
        for token in tokens:
            if token.type != tokenize.COMMENT:
                continue
            match = _IGNORE.search(token.string)
            if match:
                names = match.group(1)
                checks = {n.strip() for n in names.split(",") if n.strip()} if names else set()
                ignored[token.start[0]] = checks
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return ignored
