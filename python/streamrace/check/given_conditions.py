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

from .condition_texts import condition_text, mentions_name
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


def conditions_in_the_callee(function, args, kwargs, conditions, given):
    """The conditions a followed callee starts with, and what `conditions_after_the_call` needs
    to give the caller its own back. A caller's condition on a name of its own that a callee's
    parameter shadows (the caller's `stream is None`, where the callee's parameter `stream` is
    given another stream) says nothing inside the callee. A parameter given the caller's
    variable of its name (`register(param)` for `def register(self, param)`) is that variable,
    and a text `conditions_given` hands to the callee is read there as its own."""
    passed = _passed_by_their_names(function, args, kwargs)
    positional, vararg, keyword_only, kwarg = function.parameters()
    shadowing = [name for name in positional + keyword_only if name not in passed] + \
        [node.arg for node in (vararg, kwarg) if node is not None]
    kept = set(given.values()) if given else set()
    shadowed = {text: value for text, value in conditions.items() if text not in kept and
                any(mentions_name(text, name) for name in shadowing)}
    if not shadowed:
        return conditions, (shadowing, shadowed)
    return {text: value for text, value in conditions.items() if text not in shadowed}, \
        (shadowing, shadowed)


def conditions_after_the_call(conditions, shadowing):
    """The caller's conditions once the callee returns: what the callee found of the
    parameters that shadowed the caller's names dropped, the caller's conditions on them back."""
    names, shadowed = shadowing
    kept = {text: value for text, value in conditions.items()
            if not any(mentions_name(text, name) for name in names)}
    kept.update(shadowed)
    return kept


def _passed_by_their_names(function, args, kwargs):
    """The parameters a call gives the caller's variables of their own names."""
    positional = function.parameters_after_self()
    passed = {name for name, (_, node) in zip(positional, args)
              if isinstance(node, ast.Name) and node.id == name}
    return passed | {name for name, (_, node) in kwargs.items()
                     if isinstance(node, ast.Name) and node.id == name}


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
