# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The dispatch mode that states every aten operator's byte ranges to the tracer.

It sits below autograd, so it sees the operators that actually run on the device, backward ones
included (the autograd engine carries the mode to its threads). For each one it tells the tracer
the ranges of the tensor arguments before the operator runs (read, or written when the schema
marks the argument as written: in-place `self` is read and written, an `out=` argument only
written) and those of its new outputs after it ran; the tracer gives those ranges to every
kernel the operator launched, and reports them under the operator's name with the Python lines
that called it. View operators launch nothing and pass straight through.
"""
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from .extents import READ, READ_WRITE, WRITE, add_value

_PLAIN_TENSORS = (torch.Tensor, torch.nn.Parameter)


class _Operator:
    """What the mode needs of an operator's schema, worked out once per operator."""

    __slots__ = ("name", "arguments", "returns", "passes_through")

    def __init__(self, func):
        schema = func._schema
        overload = func._overloadname
        self.name = schema.name + ("." + overload if overload and overload != "default" else "")
        self.arguments = []
        for index, argument in enumerate(schema.arguments):
            alias = argument.alias_info
            if alias is not None and alias.is_write:
                mode = WRITE if argument.is_out else READ_WRITE
            else:
                mode = READ
            self.arguments.append((index, argument.name, mode))
        # Positions of the returns that are new tensors (not views or the arguments written).
        self.returns = [i for i, ret in enumerate(schema.returns) if ret.alias_info is None]
        self.passes_through = bool(schema.returns) and all(
            ret.alias_info is not None and not ret.alias_info.is_write for ret in schema.returns)


class StreamraceMode(TorchDispatchMode):
    def __init__(self, tracer):
        super().__init__()
        self._tracer = tracer
        self._operators = {}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if any(t not in _PLAIN_TENSORS for t in types):
            # Tensor subclasses (DTensor, ...) unwrap themselves and call plain operators,
            # which this mode sees then.
            return NotImplemented
        operator = self._operators.get(func)
        if operator is None:
            operator = self._operators[func] = _Operator(func)
        if operator.passes_through:
            return func(*args, **kwargs)
        ranges = []
        for index, name, mode in operator.arguments:
            value = args[index] if index < len(args) else kwargs.get(name)
            if value is not None:
                add_value(value, mode, ranges)
        name = operator.name
        node = torch._C._current_autograd_node()
        if node is not None:
            name = "%s (%s)" % (name, node.name())
        tracer = self._tracer
        tracer.begin_op(name, ranges, 0)
        outputs = []
        try:
            result = func(*args, **kwargs)
            if operator.returns:
                if isinstance(result, tuple):
                    for position in operator.returns:
                        add_value(result[position], WRITE, outputs)
                else:
                    add_value(result, WRITE, outputs)
        finally:
            tracer.end_op(outputs)
        return result
