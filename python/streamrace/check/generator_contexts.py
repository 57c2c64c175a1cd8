# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Context managers written as generators (`@contextlib.contextmanager`): what runs before the
`yield` runs where the `with` is entered, what runs after it where the `with` is left.

Projects wrap stream switching in them (`torch.cuda.set_stream(to)`, `yield`, then `set_stream`
back in a `finally`; or `with torch.cuda.stream(s): yield` and a join after it). Walked whole
at the call, the switch back ran before the `with` body, which then ran on the caller's stream.
The body is split at its one `yield` into the statements up to it (a `with` around the yield
entered, a `try` around it opened) and those after it (the rest of each block, the `finally`,
the contexts left), and the walk of a `with` runs the first part on entry and the second on exit,
with the generator's locals alive in between.
"""
import ast
from dataclasses import dataclass
from typing import Optional, Tuple

from .syntax import child_nodes


class YieldPoint(ast.stmt):
    """Where the generator stops until the `with` body has run: its value is what `as` binds."""
    _fields = ("value",)


class EnterContexts(ast.stmt):
    """The items of a `with` around the yield, entered and left open."""
    _fields = ("items",)


class ExitContexts(ast.stmt):
    """Leaves the stream contexts `EnterContexts` entered at `statement` ((line, column))."""
    _fields = ("statement",)


@dataclass(frozen=True)
class GeneratorParts:
    enter: Tuple[ast.stmt, ...]
    leave: Tuple[ast.stmt, ...]


def generator_parts(function_node) -> Optional[GeneratorParts]:
    """The two parts of a context manager generator with one `yield`, or None where it is no
    such function or its yield sits where the split does not reach (a branch, a loop)."""
    if not any(_names_contextmanager(d) for d in getattr(function_node, "decorator_list", ())):
        return None
    split = _split(function_node.body)
    if split is None:
        return None
    enter, leave = split
    if any(_yields(statement) for statement in leave):
        return None
    return GeneratorParts(tuple(enter), tuple(leave))


def _names_contextmanager(decorator):
    name = decorator.attr if isinstance(decorator, ast.Attribute) else \
        decorator.id if isinstance(decorator, ast.Name) else None
    return name == "contextmanager"


def _split(statements):
    for position, statement in enumerate(statements):
        if not _yields(statement):
            continue
        before, after = list(statements[:position]), list(statements[position + 1:])
        value = statement.value if isinstance(statement, (ast.Expr, ast.Assign)) else None
        if isinstance(value, ast.Yield):
            point = ast.copy_location(YieldPoint(value=value.value), statement)
            return before + [point], after
        if isinstance(statement, ast.With):
            inner = _split(statement.body)
            if inner is None:
                return None
            entered = ast.copy_location(EnterContexts(items=statement.items), statement)
            left = ast.copy_location(
                ExitContexts(statement=(statement.lineno, statement.col_offset)), statement)
            return before + [entered] + inner[0], inner[1] + [left] + after
        if isinstance(statement, ast.Try):
            inner = _split(statement.body)
            if inner is None:
                return None
            return before + inner[0], inner[1] + statement.orelse + statement.finalbody + after
        return None
    return None


def _yields(statement):
    """Whether the statement yields, outside the functions it defines."""
    stack = [statement]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        if node is not statement and isinstance(
                node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        stack.extend(child_nodes(node))
    return False


@dataclass(eq=False)
class GeneratorContext:
    """A context manager generator entered by a `with`: its frame, the statements left to run
    when the `with` is left, and what it yielded."""
    frame: object
    leave: Tuple[ast.stmt, ...]
    yielded: object
