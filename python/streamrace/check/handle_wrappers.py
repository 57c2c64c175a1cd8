# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Objects made to hold the handles they are given: Megatron-LM's `_LayerwiseAllGatherHandle(
handles)`, whose `wait()` waits for the last of them. Its constructor does no stream work, so the
walk does not follow it, and the new object's fields would be unknown: its `wait()` would then
wait for nothing it can name. The fields a constructor sets straight from its parameters
(`self.handles = handles`, unconditionally) are given the streams, events and work handles the
call passes, as following it would give them."""
import ast

from .values import HANDLES, Key, Symbol, Work, holds_handles


def fields_set_from_parameters(init):
    """{field: parameter} for the constructor's statements `self.field = parameter` that run on
    every call (at the top of its body)."""
    found = getattr(init.node, "_fields_from_parameters", None)
    if found is None:
        positional, _, keyword_only, _ = init.parameters()
        own, parameters = positional[:1], set(positional[1:]) | set(keyword_only)
        found = {}
        for statement in init.node.body:
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
                target, value = statement.targets[0], statement.value
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and \
                        (target.value.id,) == own and isinstance(value, ast.Name) and \
                        value.id in parameters:
                    found[target.attr] = value.id
        init.node._fields_from_parameters = found
    return found


def keep_given_handles(package, init, args, kwargs, instance, state):
    """The new object's fields its constructor, not followed for doing no stream work, sets
    from parameters given handles, or a list or dict of them."""
    if package.does_stream_work(init):
        return
    positional = init.parameters_after_self()
    for field, parameter in fields_set_from_parameters(init).items():
        value = None
        if parameter in positional and positional.index(parameter) < len(args):
            value = args[positional.index(parameter)][0]
        elif parameter in kwargs:
            value = kwargs[parameter][0]
        if isinstance(value, HANDLES) or (holds_handles(value) and value.items):
            state.attributes[instance.key.attribute(field)] = value


def wrapped_handles(value, state):
    """(field, what it holds) for an object the walk made whose field holds work handles (one, or
    a list of them); None for any other value."""
    if not isinstance(value, Symbol) or value.key.root[0] != "object" or value.key.path:
        return None
    for key, held in state.attributes.items():
        if key.root == value.key.root and len(key.path) == 1 and (
                isinstance(held, Work) or
                holds_handles(held) and any(isinstance(item, Work) for item in held.items)):
            return key.path[0], held
    return None


def wrapper_of(class_name, field, handles, serial):
    """An object of `class_name` made to hold `handles` in `field`, as a method finds it kept by
    another (outstanding_handles.py), and the attributes that say so."""
    wrapper = Symbol(Key(("object", class_name, 0, 0, serial, None)), class_name)
    return wrapper, {wrapper.key.attribute(field): handles}
