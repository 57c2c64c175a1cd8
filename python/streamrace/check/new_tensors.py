# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Whether a helper of the package that the analysis does not follow (it does no stream work)
hands back a tensor it made: `bucket.get_flatten_grad()` returning
`_flatten_dense_tensors(grads)`. Its result is then a new tensor made on the stream current at
the call, as a torch function's is, so that dropping it gives its block back to that stream's
pool; otherwise the result is an object of unknown kind.

Every `return` of the function's own body (not of functions nested in it) must give a call
that makes a tensor, or a local name last bound to one on the way to it. A call makes a tensor
when it is a torch function that is no view and writes no `out=`, or `clone()` or one of the
`new_*` methods of a tensor. `.to()` and `.contiguous()` may return their receiver, so they do
not count; nor does a factory that makes a host tensor (`torch.tensor(xs)` without a device,
`device="cpu"`, `pin_memory=True`): its drop frees no device block.
"""
import ast

from .. import torch_model
from .syntax import bound_names

_MAKING_METHODS = torch_model.NEW_TENSOR_METHODS | {"clone"}
_NOT_MAKING = torch_model.VIEW_FUNCTIONS | torch_model.NON_ACCESSING_FUNCTIONS
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def returns_new_tensor(function):
    if function.returns_new_tensor is None:
        function.returns_new_tensor = _returns_new_tensor(function)
    return function.returns_new_tensor


def _returns_new_tensor(function):
    if not isinstance(function.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    returned = []
    return _returns_made(function.node.body, {}, function.module.imports, returned) and \
        bool(returned)


def _returns_made(statements, bound, imports, returned):
    """Whether every return in `statements` gives a tensor made here. `bound`: the value each
    local was last given by a plain `name = value` on the way there (None when bound otherwise,
    or on some branch); `returned` collects the returns met."""
    bound = dict(bound)
    for statement in statements:
        if isinstance(statement, ast.Return):
            value = statement.value
            if isinstance(value, ast.Name):
                value = bound.get(value.id)
            if not _makes_tensor(value, imports):
                return False
            returned.append(statement)
            continue
        if not isinstance(statement, _NESTED):
            for inner in _inner_statement_lists(statement):
                if not _returns_made(inner, bound, imports, returned):
                    return False
        for name in bound_names(statement):
            bound[name] = None
        if isinstance(statement, _NESTED):
            bound[statement.name] = None
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and \
                isinstance(statement.targets[0], ast.Name):
            bound[statement.targets[0].id] = statement.value
    return True


def _inner_statement_lists(statement):
    for field in ("body", "orelse", "finalbody"):
        inner = getattr(statement, field, None)
        if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
            yield inner
    for holder in getattr(statement, "handlers", []) + getattr(statement, "cases", []):
        yield holder.body


def _makes_tensor(value, imports):
    if not isinstance(value, ast.Call) or any(k.arg == "out" for k in value.keywords):
        return False
    if isinstance(value.func, ast.Attribute) and value.func.attr in _MAKING_METHODS:
        return True
    dotted = _dotted(value.func, imports)
    if dotted is None:
        return False
    module, _, name = dotted.rpartition(".")
    return module in torch_model.TENSOR_FUNCTION_MODULES and name not in _NOT_MAKING and \
        name not in ("Stream", "Event") and not _on_the_host(value, name)


def _on_the_host(call, name):
    keywords = {keyword.arg: keyword.value for keyword in call.keywords}
    device, pinned = keywords.get("device"), keywords.get("pin_memory")
    if isinstance(pinned, ast.Constant) and pinned.value is True:
        return True
    if device is None:
        return name in torch_model.HOST_BY_DEFAULT_FACTORIES
    return isinstance(device, ast.Constant) and str(device.value).startswith("cpu")


def _dotted(func, imports):
    """The dotted name a called expression stands for through the module's imports
    (`_flatten_dense_tensors` -> `torch._utils._flatten_dense_tensors`), or None."""
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name) or func.id not in imports:
        return None
    return ".".join([imports[func.id]] + parts[::-1])
