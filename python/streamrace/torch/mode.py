# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The dispatch mode that states every aten operator's byte ranges to the tracer.

It sits below autograd, so it sees the operators that actually run on the device, backward ones
included (the autograd engine carries the mode to its threads). It also sizes the caching
allocator's blocks the operators' new outputs live in (the allocator tells only their address)
and passes record_stream on. For each one it tells the tracer
the ranges of the tensor arguments before the operator runs (read, or written when the schema
marks the argument as written: in-place `self` is read and written, an `out=` argument only
written) and those of its new outputs after it ran; the tracer gives those ranges to every
kernel the operator launched, and reports them under the operator's name with the Python lines
that called it. View operators launch nothing and pass straight through.
"""
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from .. import torch_model
from .extents import READ, READ_WRITE, WRITE, add_value

_PLAIN_TENSORS = (torch.Tensor, torch.nn.Parameter)


class _BackwardCall:
    """The Python stack of the latest backward() or autograd.grad() call."""

    stack = 0


backward_call = _BackwardCall()


def follow_backward_calls(tracer, note):
    """Wraps torch.autograd.backward and grad (Tensor.backward calls the former) so each call
    gives `note` its Python stack, for the backward operators it runs."""
    import functools

    import torch.autograd

    def noting(function):
        @functools.wraps(function)
        def call(*args, **kwargs):
            note(tracer.capture_stack(0))
            return function(*args, **kwargs)

        return call

    torch.autograd.backward = noting(torch.autograd.backward)
    torch.autograd.grad = noting(torch.autograd.grad)


def lending_python_lines(tracer, function):
    """`function` wrapped so that the CUDA and NCCL calls it makes carry the Python lines that
    called it: it makes them with the GIL released, and the tracer reads Python lines only from a
    thread holding it."""
    import functools

    @functools.wraps(function)
    def call(*args, **kwargs):
        # Closes only its own scope: a failed begin must not end an enclosing op.
        opened = tracer.begin_python_lines(0)
        try:
            return function(*args, **kwargs)
        finally:
            if opened:
                tracer.end_op([], [])

    return call


def follow_coalesced_blocks(tracer):
    """A coalesced block (batch_isend_irecv, _coalescing_manager) issues its NCCL calls when it
    ends, in ProcessGroup._end_coalescing, outside the dispatcher: give them the Python lines
    that ended the block (their names and extents are the tracer's own, exact for NCCL)."""
    import torch.distributed

    if not torch.distributed.is_available():
        return
    from torch.distributed import ProcessGroup

    end_coalescing = getattr(ProcessGroup, "_end_coalescing", None)
    if end_coalescing is not None:
        ProcessGroup._end_coalescing = lending_python_lines(tracer, end_coalescing)


# The stream, event and work-handle methods, and the module functions, that wait or record
# outside the dispatcher: a report names each by the program's line (`side.wait_stream(main)`), where it
# would otherwise name PyTorch's C++ file, and two lines making the same call stay two sites.
_STREAM_CALLS = {
    "torch.cuda.Stream": ("wait_stream", "wait_event", "record_event", "synchronize", "query"),
    "torch.cuda.Event": ("record", "wait", "synchronize", "query", "elapsed_time"),
    "torch.cuda": ("synchronize",),
    "torch.accelerator": ("synchronize",),
    # A collective's work handle: wait() makes the current stream wait for the NCCL stream.
    "torch.distributed.Work": ("wait", "synchronize"),
}


def follow_stream_calls(tracer):
    """Wraps `_STREAM_CALLS` to lend them their Python lines. The 2.x `torch.Stream` and
    `torch.Event` are built-in types, which take no new attributes: their calls keep the lines
    of the C++ file that makes them."""
    import importlib

    for owner_name, names in _STREAM_CALLS.items():
        module_name, _, class_name = owner_name.rpartition(".")
        try:
            module = importlib.import_module(module_name)
            owner = getattr(module, class_name)
        except (ImportError, AttributeError):
            continue   # a PyTorch without it (torch.accelerator came with 2.6)
        for name in names:
            function = getattr(owner, name, None)
            if callable(function):
                setattr(owner, name, lending_python_lines(tracer, function))


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
        # Views launch nothing; metadata queries (`is_pinned`, `size`) touch no bytes.
        self.passes_through = schema.name in torch_model.METADATA_OPERATORS or (
            bool(schema.returns) and all(ret.alias_info is not None and not ret.alias_info.is_write
                                         for ret in schema.returns))


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
        host = []
        for index, name, mode in operator.arguments:
            value = args[index] if index < len(args) else kwargs.get(name)
            if value is not None:
                add_value(value, mode, ranges, None, host)
        tracer = self._tracer
        node = torch._C._current_autograd_node()
        if node is None:
            tracer.begin_op(operator.name, ranges, 0)
        else:
            # A backward operator, named by its autograd node; its Python lines are those of a
            # Python hook or autograd.Function running it on the engine's thread, if any, then
            # those of the backward() call.
            tracer.begin_op_with_stack(
                "%s (%s)" % (operator.name, node.name()), ranges, backward_call.stack)
        outputs = []
        blocks = []
        try:
            if host and not ranges:
                # An operator with no device tensor runs on the host, here on pinned memory that
                # copies also use (one with a device tensor, copy_, moves it by a copy instead).
                tracer.host_access(host)
            if func is _RECORD_STREAM:
                _record_stream(tracer, *args)
            result = func(*args, **kwargs)
            if operator.returns:
                if isinstance(result, tuple):
                    for position in operator.returns:
                        add_value(result[position], WRITE, outputs, blocks)
                else:
                    add_value(result, WRITE, outputs, blocks)
        finally:
            tracer.end_op(outputs, blocks)
        return result


_RECORD_STREAM = torch.ops.aten.record_stream.default


def _record_stream(tracer, tensor, stream):
    """tensor.record_stream(stream): the allocator waits for `stream` before reusing the block."""
    if tensor.device.type == "cuda":
        handle = torch.cuda.Stream(
            stream_id=stream.stream_id, device_index=stream.device_index,
            device_type=stream.device_type).cuda_stream
        tracer.block_stream_use(tensor.untyped_storage().data_ptr(), handle)
