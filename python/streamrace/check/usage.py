# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Which names hold tensors, from how the package uses them: a name that is the receiver of a
tensor-only method (`x.copy_`, `x.narrow`, `x.numel()`), that has a tensor's attributes read
(`x.dtype`), that is given to a collective, that is annotated as a tensor (a parameter
`x: torch.Tensor`, `self.buf: Optional[Tensor] = None`, a dataclass field `grad: Tensor`), or
that an assertion says is one (`assert isinstance(x, (torch.Tensor, Multistreamable))`)
is a tensor wherever it appears. Python has no types to check; this is how `n += 1` on a counter
stays no device write while `flat /= world` on a gradient buffer is one.
"""
import ast

from .. import torch_model as model
from .syntax import expression_name, unwrapped_annotation

TENSOR_ONLY_METHODS = frozenset({
    "copy_", "narrow", "view", "view_as", "numel", "element_size", "data_ptr", "record_stream",
    "zero_", "fill_", "add_", "mul_", "div_", "sub_", "clamp_", "masked_fill_", "index_select",
    "item", "tolist", "float", "half", "bfloat16", "contiguous", "flatten", "norm", "clone",
    "detach", "split", "chunk", "untyped_storage", "resize_", "is_pinned", "pin_memory",
    "unsqueeze", "squeeze", "reshape", "permute", "transpose", "expand", "expand_as", "sum",
    "mean", "abs", "sqrt", "addcmul_", "addcdiv_", "lerp_", "nelement", "storage",
    "storage_offset", "stride", "is_contiguous", "as_strided", "numpy", "unbind", "scatter_",
    "index_add_", "index_copy_", "normal_", "uniform_", "baddbmm", "matmul", "mm", "bmm",
    "floor_divide", "max", "min", "argmax", "cumsum", "to_dense", "type_as", "new_empty",
    "new_zeros", "new_ones", "new_full", "new_tensor", "sign", "exp", "log", "pow", "sqrt_",
    "div", "mul", "add", "sub", "backward", "nonzero", "argwhere", "masked_select",
})
TENSOR_ATTRIBUTES = frozenset({"dtype", "shape", "is_cuda", "grad_fn", "ndim", "data",
                               "requires_grad", "grad", "is_leaf"})
# What a stream or a tensor tells of itself, never a tensor, whatever call it is given to
# (`lib.recv(ptr, n, stream.cuda_stream)` of a library whose method shares a collective's name).
HANDLE_ATTRIBUTES = frozenset({"cuda_stream", "stream_id", "device", "device_index",
                               "device_type"})
TENSOR_TYPES = frozenset({"torch.Tensor", "torch.nn.Parameter", "torch.nn.parameter.Parameter"})


class TensorUsage:
    def __init__(self, package):
        self.attributes = set()     # attribute names that hold tensors somewhere
        self.locals = {}            # function node -> names of its locals that hold tensors
        for function in package.all_functions():
            self.locals[function.node] = self._function_names(function)
        for module in package.modules:
            for class_info in module.classes.values():
                for statement in class_info.node.body:
                    if isinstance(statement, ast.AnnAssign) and \
                            isinstance(statement.target, ast.Name) and \
                            annotates_tensor(statement.annotation, module.imports):
                        self.attributes.add(statement.target.id)

    def _function_names(self, function):
        names = set()
        imports = function.module.imports
        arguments = getattr(function.node, "args", None)
        if arguments is not None:
            for argument in arguments.posonlyargs + arguments.args + arguments.kwonlyargs:
                if argument.annotation is not None and \
                        annotates_tensor(argument.annotation, imports):
                    names.add(argument.arg)
        for node in function.annotated_assignments:
            if annotates_tensor(node.annotation, imports):
                self._note(node.target, names)
        for test in function.asserted_tests:
            # `assert isinstance(batch, (torch.Tensor, Multistreamable))`
            if isinstance(test, ast.Call) and expression_name(test.func) == "isinstance" and \
                    len(test.args) == 2 and any(
                        annotates_tensor(kind, imports) for kind in
                        (test.args[1].elts if isinstance(test.args[1], ast.Tuple) else
                         (test.args[1],))):
                self._note(test.args[0], names)
        for node in function.attribute_nodes:
            if node.attr in TENSOR_ONLY_METHODS or node.attr in TENSOR_ATTRIBUTES:
                self._note(node.value, names)
        for node in function.call_nodes:
            name = expression_name(node.func)
            last = name.rsplit(".", 1)[-1] if name else ""
            module = (name or "").rpartition(".")[0]
            if last in model.TENSOR_COLLECTIVES or module in model.TENSOR_FUNCTION_MODULES and \
                    last not in model.FACTORY_FUNCTIONS and \
                    last not in model.NON_ACCESSING_FUNCTIONS:
                for argument in node.args:
                    self._note(argument, names)
                for keyword in node.keywords:
                    if keyword.arg in ("out", "tensor", "output", "input", "input_tensor",
                                       "output_tensor"):
                        self._note(keyword.value, names)
        return frozenset(names)

    def _note(self, node, names):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            if (node.attr not in TENSOR_ATTRIBUTES or node.attr == "grad") and \
                    node.attr not in HANDLE_ATTRIBUTES:
                self.attributes.add(node.attr)
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            # A slice of it is a tensor (an element of a dict or a list may be one without the
            # container being one).
            self._note(node.value, names)
        elif isinstance(node, (ast.List, ast.Tuple)):
            for element in node.elts:
                self._note(element, names)
        elif isinstance(node, ast.Starred):
            self._note(node.value, names)

    def holds_tensor(self, key, function_node):
        """Whether a key names a tensor by the package's use of its name."""
        if key.path:
            for part in reversed(key.path):
                if not part.startswith("[") and not part.startswith("@"):
                    return part in self.attributes or part == "grad"
            # An element of a container: the container's name decides.
        name = key.root[-1] if key.root[0] in ("local", "param", "global") else None
        if name is None:
            return False
        return name in self.locals.get(function_node, ())


def annotates_tensor(annotation, imports):
    """Whether a type annotation names a tensor or an optional one, by the names the module
    imported (`Tensor` from `from torch import Tensor`). Not a container of tensors: storing into
    a dict of them (`self.cache[key] = t`) is no write of a tensor's bytes."""
    annotation = unwrapped_annotation(annotation)
    name = expression_name(annotation) if isinstance(annotation, (ast.Name, ast.Attribute)) \
        else None
    if name is None:
        return False
    head, dot, rest = name.partition(".")
    return imports.get(head, head) + dot + rest in TENSOR_TYPES
