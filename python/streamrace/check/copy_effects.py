# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Copies between the host and the device: `to`, `cuda`, `pin_memory`, `copy_` and the host's
blocking reads. A copy runs on the current stream, reading and writing host memory there too
until it is done; without `non_blocking`, a copy to or from the host is done when the call
returns (PyTorch synchronizes the stream), and so it is with `non_blocking` from or into host
memory known not to be pinned (PyTorch documents that the flag then has no effect; rule 7 of
docs/semantics.md). A copy between host tensors, or a dtype conversion of one, runs on the host
at once."""
import ast

from .. import torch_model as model
from .state import HOST_STREAM
from .values import Constant, Symbol, Tensor


class CopyEffects:
    def host_blocking_read(self, tensor, name, node, state, frame):
        """`x.item()`, `print(x)`: a copy to the host on the current stream, which the host
        waits for."""
        self.access(tensor, "read", name, node, state, frame, own_bytes=True)
        self.host_waits_for_the_current_stream(state)

    def host_waits_for_the_current_stream(self, state):
        state.host_waits_for_stream(self.accesses, state.current)
        self.facts.host_waited(state.current)

    def to_host(self, args, kwargs):
        for value, node in list(args) + list(kwargs.values()):
            text = self.spelling(node)
            if isinstance(value, Constant) and isinstance(value.value, str):
                return value.value.startswith("cpu")
            if "cpu" in text and "cuda" not in text:
                return True
        return False

    def converts_dtype_only(self, args, kwargs):
        """Whether `to(...)` is given a dtype and nothing that may name a device: `torch.int32`,
        `other.dtype`, `dtype=...`."""
        def names_a_dtype(node):
            text = self.spelling(node)
            return text.endswith(".dtype") or (
                text.startswith("torch.") and text[len("torch."):] in model.DTYPE_NAMES)

        return bool(args or "dtype" in kwargs) and \
            all(names_a_dtype(argument_node) for _, argument_node in args) and \
            set(kwargs) <= model.DTYPE_CONVERSION_KEYWORDS

    def to_a_device_tensors_device(self, tensor, args, kwargs, state, frame):
        """`x.to(y.device)`, y a device tensor, x not known to be on the host, and nothing else
        asked (no dtype, no `copy=True`): PyTorch returns x itself when it is already where y
        is, as the tensors of one process's GPU are. No copy is made; what reads the result
        reads x. (Code that also serves tensors offloaded to the CPU moves those: that copy is
        not seen where x's placement is unknown.)"""
        if not isinstance(tensor, (Tensor, Symbol)) or getattr(tensor, "on_host", False) or \
                set(kwargs) - {"device", "non_blocking"} or \
                len(args) != (0 if "device" in kwargs else 1):
            return False
        _, device_node = kwargs["device"] if "device" in kwargs else args[0]
        if not isinstance(device_node, ast.Attribute) or device_node.attr != "device":
            return False
        base = device_node.value
        while isinstance(base, ast.Attribute):
            base = base.value
        if not isinstance(base, ast.Name):
            return False   # a call in the chain would run twice
        owner = self.evaluate(device_node.value, state, frame)
        return isinstance(owner, Tensor) and not owner.on_host

    def device_copy(self, tensor, name, args, kwargs, node, state, frame):
        non_blocking = self.keyword_true(kwargs, "non_blocking") or (
            name == "cuda" and args and isinstance(args[-1][0], Constant) and
            args[-1][0].value is True)
        if name == "pin_memory":
            self.access(tensor, "read", name, node.func.value, state, frame,
                        stream=HOST_STREAM, own_bytes=True)
            return self.fresh_tensor(node, state, frame, on_host=True, on_host_stream=True)
        if name == "to" and self.to_a_device_tensors_device(tensor, args, kwargs, state, frame):
            return tensor
        host_source = isinstance(tensor, Tensor) and tensor.on_host
        # PyTorch: non_blocking has no effect unless the host memory is pinned.
        non_blocking = non_blocking and not (host_source and tensor.pageable)
        if name == "to" and host_source and self.converts_dtype_only(args, kwargs):
            self.access(tensor, "read", name, node.func.value, state, frame,
                        stream=HOST_STREAM, own_bytes=True)
            return self.fresh_tensor(node, state, frame, on_host=True, on_host_stream=True)
        if name == "to" and self.to_host(args, kwargs):
            if host_source:
                return tensor
            self.access(tensor, "read", name, node.func.value, state, frame, own_bytes=True)
            if non_blocking:
                return self.fresh_tensor(node, state, frame, on_host=True)
            state.host_waits_for_stream(self.accesses, state.current)
            self.facts.host_waited(state.current)
            return self.fresh_tensor(node, state, frame, on_host=True, on_host_stream=True)
        if name == "to" and non_blocking and not host_source:
            self.analysis.handing_out.copied_to_callers_device(args, kwargs, node, frame, self)
        # A copy to the device: its stream reads the source (host memory too, until it is
        # done when non_blocking).
        self.access(tensor, "read", name, node.func.value, state, frame, stream=state.current,
                    blocking=not non_blocking, own_bytes=True)
        if host_source and not non_blocking:
            # PyTorch's blocking copy from the host synchronizes the stream it ran on.
            state.host_waits_for_stream(self.accesses, state.current)
            return self.fresh_tensor(node, state, frame, complete=True)
        return self.fresh_tensor(node, state, frame)

    def copy_into(self, target, args, kwargs, node, state, frame):
        if not args:
            return target
        source, source_node = args[0]
        non_blocking = self.keyword_true(kwargs, "non_blocking") or (
            len(args) > 1 and isinstance(args[1][0], Constant) and args[1][0].value is True)
        target_host = isinstance(target, Tensor) and target.on_host
        source_host = isinstance(source, Tensor) and source.on_host
        non_blocking = non_blocking and not (target_host and target.pageable or
                                             source_host and source.pageable)
        if target_host and source_host:
            self.access(source, "read", "copy_", source_node, state, frame, stream=HOST_STREAM,
                        own_bytes=True)
            self.access(target, "write", "copy_", node.func.value, state, frame,
                        stream=HOST_STREAM, own_bytes=True)
            return target
        # A copy between the device and the host: the stream does it, reading and writing host
        # memory as well.
        self.access(source, "read", "copy_", source_node, state, frame, stream=state.current,
                    own_bytes=True, blocking=not non_blocking)
        self.access(target, "write", "copy_", node.func.value, state, frame,
                    stream=state.current, own_bytes=True, blocking=not non_blocking)
        if (target_host or source_host) and not non_blocking:
            # A blocking copy between host and device: the host waits for it.
            state.host_waits_for_stream(self.accesses, state.current)
            self.facts.host_waited(state.current)
        return target
