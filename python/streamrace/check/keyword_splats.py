# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""`f(x, **options)`: the keywords a dict the function built may hand the call. A copy's
`non_blocking` and a collective's `async_op` are often chosen this way (`kwargs =
dict(non_blocking=True) if isinstance(data, torch.Tensor) else {}`). What the statements
filling the dict put there counts, either arm of a conditional expression too (the flags asked
about are dangerous when set on some path). A put inside an `if` counts on a path that decided
the test the way the put needs, and where the path left it open (a configuration flag tested
once), except when the test reads what the call is given: there the program chose the flag by
what the call does (`if device not in CPU_DEVICES: kwargs["non_blocking"] = True`)."""
import ast

from .condition_texts import is_not_none, none_test
from .syntax import breadth_first, expression_name
from .values import Constant


def splatted_keywords(splat, call, function, text_of, conditions):
    """{keyword: (Constant, node)} that `**splat` in `call` may give on a path with these
    `conditions` (a condition's text, as `text_of` names it -> its value), when `splat` names a
    dict the function fills with constant keywords: `name = dict(k=v)`, `name = {"k": v}`,
    `name["k"] = v`, `name.update(k=v)`. A keyword given several constants keeps a true one."""
    if not isinstance(splat, ast.Name) or \
            not isinstance(function.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return {}
    known = function.node.__dict__.setdefault("_splatted_keywords", {})
    puts = known.get(splat.id)
    if puts is None:
        puts = known[splat.id] = list(_puts(function.node.body, splat.id, ()))
    found = {}
    given = None
    for keyword, value, guards in puts:
        if keyword in found and not value.value:
            continue
        for test, holds in guards:
            outcome = _outcome(test, text_of, conditions)
            if outcome is None:
                given = _names_read(_given_to(call)) if given is None else given
                if _names_read([test]) & given:
                    break
            elif outcome is not holds:
                break
        else:
            found[keyword] = (Constant(value.value), value)
    return found


def _given_to(call):
    """What a call is given: its receiver, arguments and keywords (`**` splats left out)."""
    receiver = [call.func.value] if isinstance(call.func, ast.Attribute) else []
    return receiver + list(call.args) + [keyword.value for keyword in call.keywords
                                         if keyword.arg is not None]


def _names_read(nodes):
    """The whole names and attribute paths the expressions read (`device`, `self.device`, not
    the `self` inside it)."""
    parts = [part for node in nodes for part in breadth_first(node)]
    inner = {id(part.value) for part in parts if isinstance(part, ast.Attribute)}
    return {expression_name(part) for part in parts
            if isinstance(part, (ast.Name, ast.Attribute)) and id(part) not in inner} - {None}


def _puts(statements, name, guards):
    """(keyword, constant node, the `if` tests around it with the outcome it needs)."""
    for statement in statements:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(statement, ast.If):
            yield from _puts(statement.body, name, guards + ((statement.test, True),))
            yield from _puts(statement.orelse, name, guards + ((statement.test, False),))
            continue
        for keyword, value in _keywords_put(statement, name):
            if isinstance(value, ast.Constant):
                yield keyword, value, guards
        for field in ("body", "orelse", "finalbody", "handlers"):
            inner = getattr(statement, field, None)
            if isinstance(inner, list):
                yield from _puts(inner, name, guards)


def _outcome(test, text_of, conditions):
    """What the path decided `test` to be: True, False, or None where it left it open."""
    negate = False
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) or is_not_none(test):
        negate = not negate
        test = test.operand if isinstance(test, ast.UnaryOp) else none_test(test.left)
    if isinstance(test, ast.BoolOp):
        outcomes = [_outcome(part, text_of, conditions) for part in test.values]
        ending = not isinstance(test.op, ast.And)   # the part value that decides the chain
        outcome = ending if ending in outcomes else None if None in outcomes else not ending
    else:
        text = text_of(test)
        outcome = conditions.get(text) if text is not None else None
    return None if outcome is None else outcome != negate


def _keywords_put(statement, name):
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
        if isinstance(target, ast.Name) and target.id == name:
            return _dict_keywords(statement.value)
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and \
                target.value.id == name and isinstance(target.slice, ast.Constant) and \
                isinstance(target.slice.value, str):
            return [(target.slice.value, statement.value)]
    call = statement.value if isinstance(statement, ast.Expr) else None
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
            call.func.attr == "update" and isinstance(call.func.value, ast.Name) and \
            call.func.value.id == name:
        return [(keyword.arg, keyword.value) for keyword in call.keywords if keyword.arg]
    return []


def _dict_keywords(value):
    if isinstance(value, ast.IfExp):
        return _dict_keywords(value.body) + _dict_keywords(value.orelse)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and \
            value.func.id == "dict":
        return [(keyword.arg, keyword.value) for keyword in value.keywords if keyword.arg]
    if isinstance(value, ast.Dict):
        return [(key.value, item) for key, item in zip(value.keys, value.values)
                if isinstance(key, ast.Constant) and isinstance(key.value, str)]
    return []
