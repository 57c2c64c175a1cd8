# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Which of its parameters a helper of the package may read the bytes of.

A helper that does no stream work is not followed into: its tensor arguments are taken as read
on the current stream where it is called. Many such helpers only cut a buffer into views
(`shard_buffer(buf, n)` returns `[buf[i * s:(i + 1) * s] ...]`) or ask for its shape; reading
them as accesses reports races on bytes nobody touched. A parameter is left out when every use
of it, and of each view of it the body names, is a view, a metadata query, or what the helper
returns, stores in a container it returns, or keeps in an attribute, a dict or a list (a
reference stored copies no bytes: a constructor that keeps its arguments reads none of them).
"""
import ast
import functools

from .. import torch_model
from .syntax import breadth_first, child_nodes

_VIEWS = torch_model.VIEW_METHODS | torch_model.VIEW_FUNCTIONS
_METADATA = torch_model.METADATA_METHODS | torch_model.METADATA_ATTRIBUTES
_NOT_READING_BUILTINS = frozenset({"len", "isinstance", "id", "type", "hasattr", "getattr"})


def arguments_read(function, args, kwargs):
    """The (args, kwargs) of a call of `function` whose bytes it may read."""
    if function.parameters_read is None:
        function.parameters_read = frozenset(_parameters_read(function))
    read = function.parameters_read
    positional = function.parameters_after_self()
    vararg = function.parameters()[1]
    kept_args = [argument for index, argument in enumerate(args)
                 if (positional[index] if index < len(positional)
                     else vararg.arg if vararg is not None else None) in read]
    kept_kwargs = {name: argument for name, argument in kwargs.items()
                   if name in read or name not in positional}
    return kept_args, kept_kwargs


def _parameters_read(function):
    """The names of the parameters whose bytes `function` may read (all of them when its body
    does more than the shapes above can tell)."""
    positional, vararg, keyword_only, kwarg = function.parameters()
    names = set(positional + keyword_only)
    for extra in (vararg, kwarg):
        if extra is not None:
            names.add(extra.arg)
    parents = {}
    for node in breadth_first(function.node):
        for child in child_nodes(node):
            parents[child] = node
    views = _views_of(function.node, names)
    return {name for name in names
            if _may_read(name, views[name], function.node, parents, function)}


_CONTAINER_FACTORIES = frozenset({"dict", "list", "defaultdict", "OrderedDict"})


def _is_container(node, function):
    """Whether a name (`buckets`) or an attribute of self (`self._tensors`) is one the function's
    body, or its class's methods, bind to a dict or a list: `name[key] = tensor` stores a
    reference there, where on a tensor it would copy bytes."""
    text = _expression_text(node)
    if text is None or not text.startswith("self."):
        return text is not None and text in _containers_bound_in(function.node)
    class_info = function.module.classes.get(function.class_name) \
        if function.class_name is not None else None
    return class_info is not None and text in _containers_bound_in(class_info.node)


@functools.cache
def _containers_bound_in(body):
    """The names and attributes of self a definition binds to a dict or a list anywhere inside,
    found once per definition (a class's methods ask about the class's)."""
    return frozenset(_expression_text(target) for node in breadth_first(body)
                     if isinstance(node, ast.Assign) and _makes_container(node.value)
                     for target in node.targets) - {None}


def _makes_container(node):
    if isinstance(node, (ast.Dict, ast.List, ast.DictComp, ast.ListComp)):
        return True
    return isinstance(node, ast.Call) and \
        getattr(node.func, "id", getattr(node.func, "attr", None)) in _CONTAINER_FACTORIES


def _expression_text(node):
    """`name` or `self.attr`, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
            node.value.id == "self":
        return "self." + node.attr
    return None


def _views_of(body, parameters):
    """For each parameter, the local names bound to views of it (`shard = buf[a:b]`)."""
    views = {name: {name} for name in parameters}
    changed = True
    while changed:
        changed = False
        for node in breadth_first(body):
            if not isinstance(node, ast.Assign) or len(node.targets) != 1 or \
                    not isinstance(node.targets[0], ast.Name):
                continue
            root = _view_root(node.value)
            target = node.targets[0].id
            for name, aliases in views.items():
                if root in aliases and target not in aliases:
                    aliases.add(target)
                    changed = True
    return views


def _view_root(node):
    """The name an expression is a view of (through slices, view methods and lists of views),
    or None."""
    while True:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Attribute) and node.attr in torch_model.VIEW_ATTRIBUTES:
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in _VIEWS:
            node = node.func.value
        elif isinstance(node, (ast.ListComp, ast.GeneratorExp)):
            node = node.elt
        elif isinstance(node, (ast.List, ast.Tuple)) and len(node.elts) == 1:
            node = node.elts[0]
        else:
            return None


def _may_read(parameter, aliases, body, parents, function):
    for node in breadth_first(body):
        if isinstance(node, ast.Name) and node.id in aliases and isinstance(node.ctx, ast.Load):
            if not _use_reads_nothing(node, aliases, parents, function):
                return True
    return False


def _use_reads_nothing(node, aliases, parents, function):
    """Whether this use of a view name only makes views, asks metadata, or hands the view back."""
    while True:
        parent = parents.get(node)
        if isinstance(parent, ast.Subscript) and parent.value is node:
            node = parent
        elif isinstance(parent, ast.Attribute) and parent.value is node:
            if parent.attr in _METADATA:
                return True
            if parent.attr in torch_model.VIEW_ATTRIBUTES:
                node = parent
                continue
            call = parents.get(parent)
            if parent.attr in _VIEWS and isinstance(call, ast.Call) and call.func is parent:
                node = call
                continue
            return False
        elif isinstance(parent, ast.Call) and node in parent.args and \
                isinstance(parent.func, ast.Name) and parent.func.id in _NOT_READING_BUILTINS:
            return True
        elif isinstance(parent, (ast.List, ast.Tuple, ast.ListComp, ast.GeneratorExp)):
            node = parent
        elif isinstance(parent, ast.Compare):
            return all(isinstance(op, (ast.Is, ast.IsNot)) for op in parent.ops)
        elif isinstance(parent, ast.Return):
            return True
        elif isinstance(parent, ast.Assign) and parent.value is node:
            return all(isinstance(t, ast.Name) and t.id in aliases or
                       isinstance(t, ast.Attribute) or
                       isinstance(t, ast.Subscript) and _is_container(t.value, function)
                       for t in parent.targets)
        else:
            return False
