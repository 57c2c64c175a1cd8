# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The stream a private helper starts on, told by the package's calls of it.

Analyzed alone, a function starts on the stream current where it is called, which the analysis
takes as the step's current stream. A private helper (`_reduce_grad`, a leading underscore) is
called from the package only; when every call of it is made inside `with ....stream(S):`, with
one S the helper can spell itself (reached from `self`, or from a parameter the call passes
under the same name), it runs on S, not on the step's stream: FSDP reduce-scatters a gradient in
`_reduce_grad` under its post-backward stream, and taking the step's stream there reports races
between streams that are one. The callers' own walks still follow the helper on S.
"""
import ast

from .. import torch_model
from .syntax import child_nodes


def start_on_the_callers_stream(walker, function, state, frame):
    entries = walker.analysis.entry_streams
    if function not in entries:
        entries[function] = entry_stream(walker.package, function)
    expression = entries[function]
    if expression is None:
        return
    stream = walker.as_stream(walker.evaluate(expression, state, frame), expression)
    if stream is not None and stream.kind in ("created", "named"):
        state.current = stream


def entry_stream(package, function):
    """The expression of the stream every call of `function` enters first, in the terms of
    the function's own parameters, or None."""
    name = function.name
    if not name.startswith("_") or name.startswith("__") or function.parent is not None or \
            len(package.functions_by_name.get(name, ())) != 1:
        return None
    found = None
    for caller in package.all_functions():
        if caller is function or name not in caller.calls:
            continue
        for call, stream in _calls_with_their_stream(caller.node, name):
            if stream is None or not _nameable_by_the_callee(stream, call, function):
                return None
            if found is not None and ast.dump(found) != ast.dump(stream):
                return None
            found = stream
    return found


def _calls_with_their_stream(root, name):
    """The calls of `name` under `root`, each with the stream of the innermost `with
    ....stream(S):` around it (None outside any). A nested function's body runs where it is
    called, not where it is defined: its calls are taken outside every stream context."""
    stack = [(root, None)]
    while stack:
        node, stream = stack.pop()
        if isinstance(node, ast.Call) and _called_name(node.func) == name:
            yield node, stream
        if isinstance(node, (ast.With, ast.AsyncWith)):
            inside = stream
            for item in node.items:
                inside = _stream_entered(item.context_expr) or inside
            stack += [(item, stream) for item in node.items]
            stack += [(child, inside) for child in node.body]
            continue
        if node is not root and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                  ast.Lambda)):
            stream = None
        stack += [(child, stream) for child in child_nodes(node)]


def _called_name(func):
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _stream_entered(expression):
    """S of `torch.cuda.stream(S)` and its kin, else None."""
    if not isinstance(expression, ast.Call) or not expression.args or \
            torch_model.DEVICE_CALLS.get(_called_name(expression.func)) != "stream_context":
        return None
    return expression.args[0]


def _base_name(expression):
    while isinstance(expression, ast.Attribute):
        expression = expression.value
    return expression.id if isinstance(expression, ast.Name) else None


def _nameable_by_the_callee(stream, call, function):
    """Whether the callee spells `stream` as the caller does: a name or an attribute chain whose
    base is `self` in a call of a method of self, or a parameter the call passes the caller's
    variable of that name to."""
    base = _base_name(stream)
    if base is None:
        return False
    if base == "self":
        return function.is_method() and isinstance(call.func, ast.Attribute) and \
            isinstance(call.func.value, ast.Name) and call.func.value.id == "self"
    positional = function.parameters()[0]
    if function.is_method() and isinstance(call.func, ast.Attribute):
        positional = positional[1:]
    passed = {keyword.arg: keyword.value for keyword in call.keywords}
    passed.update(zip(positional, call.args))
    argument = passed.get(base)
    return isinstance(argument, ast.Name) and argument.id == base
