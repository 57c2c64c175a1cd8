# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The functions a package registers to run later, and as what: gradient hooks
(`register_hook`, `register_post_accumulate_grad_hook`, DeepSpeed's `register_grad_hook`), module
and optimizer hooks, and the pack hook of `saved_tensors_hooks` (called, a subclass's
`super().__init__(pack, unpack)`, or `saved_tensors_hooks.__init__(self, pack, unpack)`). Each
runs on the stream current when it fires (entry_work.py says what is pending then)."""
import ast

from .. import torch_model
from .syntax import breadth_first, expression_name


def registers_hook(call):
    """Whether a call registers a function autograd, a module or an optimizer calls later."""
    if isinstance(call.func, ast.Name):
        return call.func.id in torch_model.GRADIENT_HOOK_FUNCTIONS or \
            call.func.id == torch_model.SAVED_TENSORS_HOOKS
    if isinstance(call.func, ast.Attribute):
        return call.func.attr in torch_model.GRADIENT_HOOKS or \
            call.func.attr in torch_model.MODULE_HOOKS or \
            call.func.attr in torch_model.OPTIMIZER_HOOKS or \
            call.func.attr == torch_model.SAVED_TENSORS_HOOKS or _calls_base_init(call) or \
            _explicit_saved_tensors_init(call)
    return False


def _calls_base_init(call):
    return call.func.attr == "__init__" and isinstance(call.func.value, ast.Call) and \
        isinstance(call.func.value.func, ast.Name) and call.func.value.func.id == "super"


def _explicit_saved_tensors_init(call):
    """`saved_tensors_hooks.__init__(self, pack, unpack)`, a base named outright."""
    return call.func.attr == "__init__" and \
        (expression_name(call.func.value) or "").split(".")[-1] == \
        torch_model.SAVED_TENSORS_HOOKS


def _saved_tensors_class(package, module, function):
    """Whether the function is a method of a class deriving from saved_tensors_hooks."""
    class_info = package.class_named(function.class_name, module) if function.class_name \
        else None
    return class_info is not None and any(
        base.split(".")[-1] == torch_model.SAVED_TENSORS_HOOKS for base in class_info.bases)


def find_hooks(package, module):
    """Functions given to register_hook and its kin run later, on the stream current when the
    hook fires."""
    for function in _module_functions(module):
        for node in function.hook_calls:
            name = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
            position = torch_model.GRADIENT_HOOK_FUNCTIONS.get(name, 0)
            kind = "gradient" if name in torch_model.GRADIENT_HOOKS or \
                name in torch_model.GRADIENT_HOOK_FUNCTIONS else "module"
            if name == "__init__":
                if _explicit_saved_tensors_init(node):
                    position = 1   # after the object itself
                elif not _saved_tensors_class(package, module, function):
                    continue
                name = torch_model.SAVED_TENSORS_HOOKS
            if name == torch_model.SAVED_TENSORS_HOOKS:
                kind = "saved tensor"
            if len(node.args) <= position:
                continue
            for target in _hook_targets(package, module, function, node.args[position]):
                package.hooks.setdefault(target, (kind, name, module.path, node.lineno,
                                                  node.col_offset + 1))


def _module_functions(module):
    seen = []

    def walk(info):
        seen.append(info)
        for nested in info.nested.values():
            walk(nested)

    for info in module.functions.values():
        walk(info)
    for class_info in module.classes.values():
        for info in class_info.methods.values():
            walk(info)
    return seen


def _hook_targets(package, module, function, argument):
    """The functions a hook argument names: a function, a bound method, functools.partial of
    one, or a function that a call returns (a hook factory's nested function)."""
    from .package import FunctionInfo   # the package module imports this one
    if isinstance(argument, ast.Call):
        name = expression_name(argument.func) or ""
        if name.split(".")[-1] == "partial" and argument.args:
            return _hook_targets(package, module, function, argument.args[0])
        made_by = _hook_targets(package, module, function, argument.func)
        returned = []
        for factory in made_by:
            for node in breadth_first(factory.node):
                if isinstance(node, ast.Return) and isinstance(node.value, ast.Name):
                    nested = factory.nested.get(node.value.id)
                    if nested is not None:
                        returned.append(nested)
        return returned
    if isinstance(argument, ast.Name):
        found = package.resolve_name(module, function, argument.id)
        return [found] if isinstance(found, FunctionInfo) else []
    if isinstance(argument, ast.Attribute):
        if isinstance(argument.value, ast.Name) and argument.value.id == "self" \
                and function.class_name:
            found = package.method(package.class_named(function.class_name, module), argument.attr)
            return [found] if found is not None else []
        found = package.unique_method(argument.attr)
        return [found] if found is not None else []
    return []
