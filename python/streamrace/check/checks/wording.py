# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""How findings name streams and accesses, the notes that lead to each access, and the fix-its:
shared by the checks so every message reads alike."""
import ast

from ..findings import Fix, Location, Side
from ..values import Stream


def stream_name(stream):
    if stream.kind == "ambient":
        return "the current stream"
    if stream.kind == "default":
        return "the default stream"
    if stream.kind == "host":
        return "the host"
    if stream.kind == "collective":
        group = stream.spelling
        if group == "point-to-point":
            return "the process group's point-to-point stream"
        return "the process group's stream (%s)" % (
            "the default group" if group in ("default", "") else "group=" + group)
    return "stream '%s'" % (stream.spelling or stream.key)


def verb(mode, present=True):
    return {"read": "reads", "write": "writes", "read_write": "reads and writes"}[mode] \
        if present else {"read": "read", "write": "written", "read_write": "read and written"}[mode]


def location(site):
    return Location(site.path, site.line, site.column)


def side(site, api="", stream=None):
    """A finding's access as suppressions match it."""
    stack = (site.function,) + tuple(call.function for call in reversed(site.chain))
    name = stream.spelling or stream.key if stream is not None else ""
    return Side(stack, site.path, api, name)


def access_side(access):
    return side(access.site, access.api, access.stream)


def chain_notes(site, shared=()):
    notes = []
    for index, call in enumerate(site.chain):
        if call in shared:
            continue
        callee = site.chain[index + 1].function if index + 1 < len(site.chain) else site.function
        notes.append((location(call), "'%s' is called here" % callee.rsplit(".", 1)[-1]))
    return notes


def pair_notes(earlier, later):
    """The calls leading to the later access, the earlier access, and the calls leading to it
    that the later one's do not share."""
    notes = chain_notes(later.site)
    notes.append((location(earlier.site), describe_access(earlier) + " here"))
    notes += chain_notes(earlier.site, shared=later.site.chain)
    return notes


def left_pending(earlier, what):
    """The message's tail for a pair across two calls: the call that returned is the one the
    analysis started from, the outermost of the access's call chain."""
    outermost = earlier.site.chain[0] if earlier.site.chain else earlier.site
    return " (%s is left pending when '%s' returns)" % (
        what, outermost.function.rsplit(".", 1)[-1])


def across_firings(earlier, later, what, walker):
    """The message's tail for a pair across two firings of one gradient hook, or two calls of
    one method (next_call.py)."""
    if later.firing <= earlier.firing:
        return ""
    if walker.analysis.package.hooks.get(walker.root) is None:
        return " (%s is left pending by the previous call to '%s')" % (what, walker.root.name)
    return " (%s is left pending by the hook's firing for the previous gradient)" % what


def device_spelling(frame):
    """How the function names the device module: DeepSpeed code through get_accelerator(),
    device-generic code through torch.accelerator."""
    names = frame.function.names if frame is not None else ()
    if "get_accelerator" in names:
        return "get_accelerator()"
    if "accelerator" in names and "cuda" not in names:
        return "torch.accelerator"
    return "torch.cuda"


def stream_spelling(stream, state, frame, source):
    """An expression naming `stream` at the later access, or None when none is sure to."""
    if stream.key == state.current.key:
        return device_spelling(frame) + ".current_stream()"
    if stream.kind == "default":
        return device_spelling(frame) + ".default_stream()"
    if stream.kind in ("created", "named"):
        text = stream.spelling
        if not text or "(" in text:
            return None
        if text.startswith("self.") and frame.class_info is not None:
            return text
        head = text.split(".")[0].split("[")[0]
        positional, _, keyword_only, _ = frame.function.parameters()
        value = state.locals.get((frame.ident, head))
        if head in positional or head in keyword_only or isinstance(value, Stream) and \
                value.key == stream.key:
            return text   # a name of this function: the same object at the later access
        return None
    return None


def insertion_fix(source, statement, text):
    """A line inserted before `statement` (line, column), with its indentation."""
    if source is None or not statement:
        return None
    line = statement[0]
    if line < 1 or line > len(source.lines):
        return None
    current = source.lines[line - 1]
    indentation = current[:len(current) - len(current.lstrip())]
    return Fix(Location(source.path, line, 1), 0, indentation + text + "\n")


def appended_fix(source, statement, text):
    """A line inserted after `statement` (an AST statement: a return gets it before it), with
    its indentation."""
    if isinstance(statement, ast.Return):
        return insertion_fix(source, (statement.lineno, statement.col_offset + 1), text)
    if source is None or not statement.end_lineno or statement.end_lineno > len(source.lines):
        return None
    indentation = " " * statement.col_offset
    return Fix(Location(source.path, statement.end_lineno + 1, 1), 0, indentation + text + "\n")


def statement_of(node):
    return getattr(node, "_statement", None)


def describe_access(access):
    return "%s %s '%s' on %s" % (access.api, verb(access.mode), access.key.text(),
                                 stream_name(access.stream))
