# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Objects handed between streams whole: a class with a `record_stream(self, stream)` method
(a context of tensors an input pipeline fills on its own stream, a batch) promises that
recording a stream on one of its objects records every tensor the object keeps, and its holders
rely on it: they record the receiving stream on the object, not on each tensor. A tensor the
program makes and keeps in such an object, in a field the method does not record or in a
closure kept there, is left in the pool of the stream that made it: once the object is dropped,
the caching allocator can give the tensor's block to new work on that stream while the stream
the object was handed to may still use it.

Found without following the streams: the method says which fields it records, the stores into
an object of the class (through `self` in its constructor, a parameter annotated with the class,
or a local its constructor made) say which fields hold what, and the expression stored says
whether it is a tensor made on the device (a torch operation, arithmetic on one, a package
function returning one) or a closure over one. Stores in the class's other methods are left
alone: a field one of them caches may be made on the receiving stream, after the hand-over.
"""
import ast
from dataclasses import dataclass
from typing import Optional

from .. import torch_model as model
from .package import FunctionInfo
from .syntax import breadth_first, child_nodes, expression_name, parsed_annotation

# How deep calls of the package's functions are followed to find what their result is.
_MAX_CALL_DEPTH = 2
# Methods of a tensor made here whose result is a tensor on its device.
_DEVICE_PRESERVING_METHODS = model.VIEW_METHODS | model.NEW_TENSOR_METHODS | frozenset({
    "clone", "to", "float", "half", "bfloat16", "double", "int", "long", "bool", "abs", "sqrt",
    "exp", "log", "sum", "mean", "add", "sub", "mul", "div", "pow", "masked_fill", "cumsum"})
# Methods that put their argument into a list or a dict field.
_CONTAINER_STORES = frozenset({"append", "extend", "insert", "add", "setdefault"})


@dataclass
class Made:
    """A tensor the expression keeps: the name it goes by, where it is made and, when a closure
    keeps it, where the closure reads it."""
    name: str
    path: str
    node: ast.AST
    read_path: Optional[str] = None
    read_node: Optional[ast.AST] = None


@dataclass
class Contract:
    class_info: object       # the ClassInfo whose record_stream the holder relies on
    method: FunctionInfo     # that record_stream
    covered: Optional[frozenset]   # the fields it records; None: every field (it hands `self` on)


@dataclass
class UnrecordedStore:
    path: str
    function: FunctionInfo
    node: ast.AST            # the statement that stores
    holder: str              # how the source spells the object's field (`ctx.divisor`)
    field: str
    contract: Contract
    made: Made
    may_be_none: bool        # the class sets the field to None somewhere (its fix then tests)


def unrecorded_stores(package):
    """The stores of tensors made on the device into fields of objects whose record_stream does
    not record those fields, one per class and field."""
    contracts = {}
    classes = {}
    for candidates in package.classes_by_name.values():
        for class_info in candidates:
            contract = _contract(package, class_info, contracts)
            if contract is not None and contract.covered is not None:
                classes.setdefault(class_info.name, []).append(class_info)
    if not classes:
        return []
    found = {}
    for function in package.all_functions():
        constructor = function.name == "__init__" and function.class_name in classes
        if not constructor and not function.names & classes.keys():
            continue
        holders = _holders(package, function, contracts)
        if not holders:
            continue
        for store in _stores(package, function, holders):
            key = (id(store.contract.class_info), store.field)
            if key not in found:
                found[key] = store
    return sorted(found.values(), key=lambda s: (s.path, s.node.lineno, s.node.col_offset))


def _contract(package, class_info, contracts):
    if class_info in contracts:
        return contracts[class_info]
    contracts[class_info] = None   # a class among its own bases records nothing more
    method = package.method(class_info, model.RECORD_STREAM)
    contract = None
    if method is not None and len(method.parameters()[0]) == 2:
        owner = package.class_named(method.class_name, method.module) or class_info
        covered = _fields_recorded(package, method, owner, contracts)
        contract = Contract(class_info, method, covered)
    contracts[class_info] = contract
    return contract


def _fields_recorded(package, method, owner, contracts):
    """The fields of `self` the method mentions (a field named in it is taken as recorded,
    whatever it does with it); None when it hands `self` itself on, calls another method of
    the object, or defers to a base class the package does not hold."""
    this = method.parameters()[0][0]
    fields = set()
    attribute_bases = set()
    for node in breadth_first(method.node):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                node.value.id == this:
            if package.method(owner, node.attr) is not None:
                return None
            fields.add(node.attr)
            attribute_bases.add(id(node.value))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                isinstance(node.func.value, ast.Call) and \
                expression_name(node.func.value.func) == "super":
            inherited = _base_contract(package, owner, contracts)
            if inherited is None or inherited.covered is None:
                return None
            fields |= inherited.covered
    for node in breadth_first(method.node):
        if isinstance(node, ast.Name) and node.id == this and id(node) not in attribute_bases:
            return None
    return frozenset(fields)


def _base_contract(package, class_info, contracts):
    for base in class_info.bases:
        base_info = package.class_named(base.split(".")[-1], class_info.module)
        if base_info is not None:
            contract = _contract(package, base_info, contracts)
            if contract is not None:
                return contract
    return None


def _holders(package, function, contracts):
    """The names that stand for an object of a class with a record_stream contract in the
    function: `self` in the class's constructor, parameters annotated with the class, locals
    its constructor made."""
    holders = {}
    arguments = getattr(function.node, "args", None)   # a module's statements have none
    for argument in (arguments.posonlyargs + arguments.args + arguments.kwonlyargs
                     if arguments else ()):
        contract = _annotated_contract(package, function, argument.annotation, contracts)
        if contract is not None:
            holders[argument.arg] = contract
    if function.name == "__init__" and function.is_method() and function.parameters()[0]:
        class_info = package.class_named(function.class_name, function.module)
        contract = contracts.get(class_info)
        if contract is not None:
            holders[function.parameters()[0][0]] = contract
    for node in _own_nodes(function.node):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call):
            name = expression_name(node.value.func)
            class_info = package.class_named(name.split(".")[-1], function.module) \
                if name else None
            if class_info is not None and contracts.get(class_info) is not None:
                holders[node.targets[0].id] = contracts[class_info]
    return {name: contract for name, contract in holders.items() if contract.covered is not None}


def _annotated_contract(package, function, annotation, contracts):
    annotation = parsed_annotation(annotation)
    if annotation is None:
        return None
    for node in breadth_first(annotation):
        name = node.id if isinstance(node, ast.Name) else \
            node.attr if isinstance(node, ast.Attribute) else None
        if name is None:
            continue
        class_info = package.class_named(name, function.module)
        if class_info is not None and contracts.get(class_info) is not None:
            return contracts[class_info]
    return None


def _stores(package, function, holders):
    for node in _own_nodes(function.node):
        targets = []
        if isinstance(node, ast.Assign):
            targets = [(target, node.value) for target in node.targets]
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [(node.target, node.value)]
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and \
                isinstance(node.value.func, ast.Attribute) and \
                node.value.func.attr in _CONTAINER_STORES and node.value.args:
            targets = [(node.value.func.value, argument) for argument in node.value.args]
        for target, value in targets:
            if isinstance(target, ast.Subscript):
                target = target.value
            if not isinstance(target, ast.Attribute) or not isinstance(target.value, ast.Name):
                continue
            contract = holders.get(target.value.id)
            if contract is None or target.attr in contract.covered:
                continue
            made = _made(package, function, value, 0, set())
            if made is not None:
                yield UnrecordedStore(function.module.path, function, node,
                                      "%s.%s" % (target.value.id, target.attr), target.attr,
                                      contract, made,
                                      _set_to_none(contract.class_info.node, target.attr))


def _set_to_none(class_node, field):
    """Whether the class gives the field None (`self.f = None`, or `f: T = None` in its body)."""
    for node in breadth_first(class_node):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and \
                isinstance(node.value, ast.Constant) and node.value.value is None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                name = target.attr if isinstance(target, ast.Attribute) else \
                    target.id if isinstance(target, ast.Name) else None
                if name == field:
                    return True
    return False


def _made(package, function, node, depth, seen):
    """Whether the expression is a tensor made on the device by the program, or a closure over
    one: the Made, else None."""
    if isinstance(node, ast.Name):
        nested = function.nested.get(node.id)
        if nested is not None:
            return _closure(package, nested, function, depth, seen)
        binding = _last_binding(function, node.id, node.lineno)
        if binding is None or (id(function), node.id, binding.lineno) in seen:
            return None
        seen.add((id(function), node.id, binding.lineno))
        made = _made(package, function, binding, depth, seen)
        if made is not None and made.read_node is None:
            made.name = node.id
        return made
    if isinstance(node, ast.BinOp):
        if _made(package, function, node.left, depth, seen) or \
                _made(package, function, node.right, depth, seen):
            return Made(_spelling(node), function.module.path, node)
        return None
    if isinstance(node, ast.IfExp):
        return _made(package, function, node.body, depth, seen) or \
            _made(package, function, node.orelse, depth, seen)
    if isinstance(node, ast.Subscript):
        return _made(package, function, node.value, depth, seen)
    if isinstance(node, ast.Lambda):
        return _closure(package, node, function, depth, seen)
    if isinstance(node, ast.Call):
        return _made_by_call(package, function, node, depth, seen)
    return None


def _made_by_call(package, function, call, depth, seen):
    name = expression_name(call.func) or ""
    head, _, rest = name.partition(".")
    dotted = function.module.imports.get(head, head) + ("." + rest if rest else "")
    module, _, operation = dotted.rpartition(".")
    if module in model.TENSOR_FUNCTION_MODULES:
        if operation in model.NON_ACCESSING_FUNCTIONS or operation in model.TORCH_CONSTRUCTORS:
            return None
        if operation in model.VIEW_FUNCTIONS:
            return _made(package, function, call.args[0], depth, seen) if call.args else None
        if operation in model.FACTORY_FUNCTIONS and not _on_the_device(call, operation) or \
                operation in model.HOST_TENSOR_TYPES and module == "torch":
            return None
        return Made(_spelling(call), function.module.path, call)
    if isinstance(call.func, ast.Attribute):
        if call.func.attr == "cuda":
            return Made(_spelling(call), function.module.path, call)
        if call.func.attr in _DEVICE_PRESERVING_METHODS:
            return _made(package, function, call.func.value, depth, seen)
    callee = _package_function(package, function, call.func)
    if callee is None or depth >= _MAX_CALL_DEPTH:
        return None
    for node in _own_nodes(callee.node):
        if isinstance(node, ast.Return) and node.value is not None:
            made = _made(package, callee, node.value, depth + 1, seen)
            if made is not None:
                return made
    return None


def _on_the_device(call, operation):
    """A factory's result is device memory when it is given a device that is not the host, or
    made like another tensor (`zeros_like`); without a device it is made on the host."""
    for keyword in call.keywords:
        if keyword.arg == "device":
            return "cpu" not in ast.unparse(keyword.value)
    return operation.endswith("_like")


def _package_function(package, function, func):
    if isinstance(func, ast.Name):
        found = package.resolve_name(function.module, function, func.id)
        return found if isinstance(found, FunctionInfo) else None
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
            function.class_name and function.parameters()[0] and \
            func.value.id == function.parameters()[0][0]:
        return package.method(package.class_named(function.class_name, function.module),
                              func.attr)
    return None


def _closure(package, nested, maker, depth, seen):
    """A function defined in `maker` (or a lambda) keeps the tensors of `maker` it reads."""
    node = nested.node if isinstance(nested, FunctionInfo) else nested
    own = {a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs}
    body = node.body if isinstance(node.body, list) else [node.body]
    own |= {n.id for statement in body for n in breadth_first(statement)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    reads = sorted((n for statement in body for n in breadth_first(statement)
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and
                    n.id not in own), key=lambda n: (n.lineno, n.col_offset))
    for read in reads:
        binding = _last_binding(maker, read.id, None)
        if binding is None or (id(maker), read.id, binding.lineno) in seen:
            continue
        seen.add((id(maker), read.id, binding.lineno))
        made = _made(package, maker, binding, depth, seen)
        if made is not None:
            return Made(read.id, made.path, made.node, maker.module.path, read)
    return None


def _last_binding(function, name, before_line):
    """The value last assigned to the plain name in the function's own body (before the line
    given, if one is), or None."""
    last = None
    for node in _own_nodes(function.node):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if not any(isinstance(t, ast.Name) and t.id == name for t in targets):
                continue
            if before_line is not None and node.lineno >= before_line:
                continue
            if last is None or (node.lineno, node.col_offset) > (last.lineno, last.col_offset):
                last = node
    return last.value if last is not None else None


def _own_nodes(root):
    """The nodes of a function's body, not those of the functions and lambdas it defines."""
    stack = list(child_nodes(root))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                 ast.ClassDef)):
            stack += child_nodes(node)


def _spelling(node):
    text = ast.unparse(node)
    return text if len(text) <= 40 else text[:37] + "..."
