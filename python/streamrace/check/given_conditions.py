# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Flags a caller hands to a callee's parameter: `release(out, config.deallocate)`, where
`release` tests `if deallocate:`. Followed into the callee, the parameter's test is the caller's
condition (`config.deallocate`), so a path on which the caller decided the flag takes the same
branch inside the callee: a caller that waits under the flag and a callee that releases under it
pair only where both happen.

Only a parameter the callee tests as it is (`if deallocate:`, `not deallocate`, a part of an
`and`/`or`) and never assigns is taken so, and only an argument that is a name or an attribute
(what a condition's text names)."""
import ast

from .condition_texts import condition_text
from .syntax import bound_names


def flags_tested(test):
    """The plain names a test tests as flags: itself, a part of an `and`/`or`, negated or not."""
    parts = [test]
    while parts:
        part = parts.pop()
        if isinstance(part, ast.BoolOp):
            parts += part.values
        elif isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.Not):
            parts.append(part.operand)
        elif isinstance(part, ast.Name):
            yield part.id


def tested_parameters(function):
    """The parameters a function tests as flags (`if`, `while`, `assert`) and never rebinds."""
    cached = getattr(function.node, "_tested_parameters", None)
    if cached is None:
        positional, _, keyword_only, _ = function.parameters()
        tested = function.flag_names.intersection(positional + keyword_only)
        if tested:
            tested -= bound_names(function.node)
        cached = function.node._tested_parameters = frozenset(tested)
    return cached


def flags_given(function, positional_nodes, keyword_nodes):
    """(parameter, argument node) for each tested parameter given a name or an attribute."""
    tested = tested_parameters(function)
    if not tested:
        return []
    given = []
    positional = function.parameters_after_self()
    for index, name in enumerate(positional):
        node = positional_nodes[index] if index < len(positional_nodes) else \
            keyword_nodes.get(name)
        given.append((name, node))
    given += [(name, keyword_nodes.get(name)) for name in function.parameters()[2]]
    return [(name, node) for name, node in given
            if name in tested and isinstance(node, (ast.Name, ast.Attribute))]


def conditions_given(function, args, kwargs, text_of):
    """{parameter: the caller's condition text} for a call being followed; `args` and `kwargs`
    as the call's effects hold them ((value, node) pairs), `text_of` the caller's condition
    text of a node. None when nothing is handed on."""
    if not tested_parameters(function):
        return None
    keyword_nodes = {name: node for name, (_, node) in kwargs.items()}
    given = {}
    for name, node in flags_given(function, [node for _, node in args], keyword_nodes):
        text = text_of(node)
        if text is not None:
            given[name] = text
    return given or None


def count_given_conditions(package):
    """Counts, among the package's conditions, each flag handed to a parameter its callee
    tests: the callee's test is a test of that flag (a flag tested once by the caller and once
    through the callee is correlated)."""
    counts = package.condition_counts
    for function in list(package.all_functions()):
        if function.name == "<module>":
            continue   # its calls are its functions' (Package.__init__ summarizes them in)
        for call in function.own_call_nodes():
            name = call.func.attr if isinstance(call.func, ast.Attribute) else \
                getattr(call.func, "id", None)
            callees = [callee for callee in package.functions_by_name.get(name, ())
                       if tested_parameters(callee)]
            if not callees:
                continue
            positional_nodes = []
            for argument in call.args:
                if isinstance(argument, ast.Starred):
                    break
                positional_nodes.append(argument)
            keyword_nodes = {k.arg: k.value for k in call.keywords if k.arg is not None}
            for callee in callees:
                for _, node in flags_given(callee, positional_nodes, keyword_nodes):
                    text = condition_text(node, function.class_name)
                    if text is not None:
                        counts[text] = counts.get(text, 0) + 1
