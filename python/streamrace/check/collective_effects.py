# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Collectives: the process group's stream each runs on, what it reads and writes there, its work
handle, and the waits for handles (one, or every collective the analysis lost the handle of).
As PyTorch documents it, a collective runs after the current stream's earlier work; with
`async_op` its output is ready once the handle is waited for, without it once the call returns
on the current stream. A collective given host tensors only runs on the host (Gloo): without
`async_op` it is done when the call returns, with it the host waits for it in `wait()`."""
import ast

from .. import torch_model as model
from .handle_wrappers import wrapped_handles
from .state import HOST_STREAM
from .values import Constant, Container, Stream, Tensor, Work, is_coalescing


class CollectiveEffects:
    def group_stream(self, kwargs, args, group_position):
        group = kwargs.get("group") or kwargs.get("process_group")
        if group is None and group_position is not None and group_position < len(args):
            group = args[group_position]   # `_coalescing_manager(group)`
        if group and isinstance(group[0], Constant) and group[0].value is None:
            group = None                   # `group=None` is the default group
        text = self.spelling(group[1]) if group else "default"
        return Stream("collective:" + text, "collective", text)

    def waited_by_its_receiver(self, tensor, state, frame):
        """A tensor registered with a work handle: the code the function hands it to waits for
        the handle before using it, so the work pending on it is ordered for the stream the
        function was called on."""
        key = getattr(tensor, "key", None)
        if key is None:
            return None
        caller = state.stream_at_entry(frame).key
        for ident, ordered in list(state.pending.items()):
            if self.accesses[ident].key.overlaps(key):
                state.pending[ident] = ordered | {caller}
        return None

    def keyword_true(self, kwargs, name):
        value = kwargs.get(name)
        return value is not None and isinstance(value[0], Constant) and bool(value[0].value)

    def flag_holds(self, kwargs, name, state, frame):
        """Whether a keyword flag is true on this path: a constant, or a condition the path has
        decided (the statement making the call split the path on it: statements.py)."""
        if self.keyword_true(kwargs, name):
            return True
        given = kwargs.get(name)
        if given is None or isinstance(given[0], Constant):
            return False
        text = self.condition_text(given[1], frame)
        return text is not None and state.conditions.get(text) is True

    def collective(self, name, args, kwargs, node, state, frame):
        spec = model.COLLECTIVES[name]
        operands = []
        for role, mode in (("read", "read"), ("write", "write"), ("read_write", "read_write")):
            if role not in spec:
                continue
            position, keyword = spec[role]
            given = args[position] if position < len(args) else kwargs.get(keyword)
            if given is not None:
                operands.append((mode, given))
        manager = state.works.get("<coalescing>")
        asynchronous = spec.get("always_async") or manager is not None or \
            self.flag_holds(kwargs, "async_op", state, frame)
        on_host = bool(operands) and all(isinstance(given[0], Tensor) and given[0].on_host
                                         for _, given in operands)
        if on_host:
            return self.host_collective(name, operands, asynchronous, kwargs, args, state, frame)
        # Under a coalescing manager the collective is issued on the manager's process group
        # and completes with it, whatever group the call names (Megatron-FSDP's manager of the
        # first bucket's group coalescing each bucket's collective on the bucket's own group).
        stream = manager[1] if manager is not None else self.group_stream(kwargs, args, None)
        # The process group's stream runs after the current stream's earlier work.
        state.stream_waits(self.accesses, stream, state.current)
        self.facts.waited(stream, state.current)
        made = []
        for mode, given in operands:
            made += self.access(given[0], mode, name, given[1], state, frame, stream=stream,
                                own_bytes=True, issued_on=state.current)
        if asynchronous:
            # Waiting for the handle waits for an event recorded after the collective on its
            # stream: for everything that stream has seen, the work of the current stream it
            # waited for at the launch included.
            return Work(stream.key, frozenset(a.ident for a in made) |
                        frozenset(state.covered_by(self.accesses, stream.key)))
        # Done for the current stream when the call returns: an ordering of this call's own
        # work, not a sign that the package orders the group's stream before the current one
        # elsewhere (another call's collective left pending with its handle).
        state.stream_waits(self.accesses, state.current, stream)
        if spec.get("blocks_host"):
            self.host_waits_for_the_current_stream(state)
        return None

    def host_collective(self, name, operands, asynchronous, kwargs, args, state, frame):
        """Host tensors are reduced by the host: in the call without `async_op`, else on a
        thread of the process group that the host waits for in `wait()`. Neither waits for a
        device stream, so a non-blocking copy still landing in the tensor races with it."""
        stream = self.group_stream(kwargs, args, None) if asynchronous else HOST_STREAM
        made = []
        for mode, given in operands:
            made += self.access(given[0], mode, name, given[1], state, frame, stream=stream,
                                own_bytes=True)
        if asynchronous:
            return Work(stream.key, frozenset(a.ident for a in made), on_host=True)
        return None

    def batch_p2p(self, args, node, state, frame):
        stream = Stream("collective:p2p", "collective", "point-to-point")
        state.stream_waits(self.accesses, stream, state.current)
        made = []
        operations = args[0][0] if args else None
        items = operations.items if isinstance(operations, Container) else ()
        for item in items:
            if is_p2p_operation(item):
                made += self.access(item.items[1], item.items[0].value, "batch_isend_irecv",
                                    node, state, frame, stream=stream, own_bytes=True,
                                    issued_on=state.current)
        return Container((Work(stream.key, frozenset(a.ident for a in made)),))

    def keep_handles(self, key, value, state):
        """Handles kept under an attribute (stored there, or appended to the list it holds),
        for another method to wait for."""
        field = key.field_name()
        if field is None:
            return
        holder = (key.root[1] if key.root[0] == "self" else None, field)
        wrapped = wrapped_handles(value, state)
        if wrapped is not None:
            inner_field, inner = wrapped
            self.facts.handle_kept(self.handled_collectives(inner, state), holder,
                                   (value.key.root[1], inner_field, isinstance(inner, Container)))
        else:
            self.facts.handle_kept(self.handled_collectives(value, state), holder)

    def handled_collectives(self, value, state):
        """The collectives' accesses whose completion waiting for `value` waits for: a work
        handle's, or those still pending on a coalescing manager's process group stream."""
        if isinstance(value, Work):
            return [ident for ident in value.accesses
                    if self.accesses[ident].stream.key == value.stream]
        if isinstance(value, Container) and value.key is None:
            # A list of handles (`self.handles.append(work)`), waited for one by one.
            return [ident for item in value.items if isinstance(item, Work)
                    for ident in self.handled_collectives(item, state)]
        if is_coalescing(value):
            return [ident for ident in state.pending
                    if self.accesses[ident].stream.key == value[1].key]
        return []

    def handle_waited(self, receiver_node, frame):
        """A wait for a handle: the attribute it is kept under (`self.handle.wait()`,
        `self.handles[-1].wait()`, `bucket.handle.wait()`), or one reached through no
        attribute."""
        node = receiver_node
        while isinstance(node, ast.Subscript):
            node = node.value
        if not isinstance(node, ast.Attribute):
            self.facts.handle_waited(None)
            return
        own = isinstance(node.value, ast.Name) and node.value.id == "self"
        self.facts.handle_waited((frame.function.class_name if own else None, node.attr))

    def work_wait(self, work, state):
        if work.on_host:
            state.host_waits_for_stream(self.accesses, Stream(work.stream, "collective"))
            return
        waiter = state.current
        for ident in work.accesses:
            if ident in state.pending:
                state.pending[ident] = state.pending[ident] | {waiter.key}
        state.waited = state.waited | {(waiter.key, work.stream)}
        self.facts.waited(waiter, Stream(work.stream, "collective"))

    def wait_outstanding_work(self, state):
        """`handle.wait()` on a handle the analysis lost track of (kept in a dict or a list):
        the current stream waits for every collective still pending."""
        waiter = state.current
        for ident in list(state.pending):
            access = self.accesses[ident]
            if access.stream.kind == "collective":
                state.pending[ident] = state.pending[ident] | {waiter.key}
                state.waited = state.waited | {(waiter.key, access.stream.key)}
                self.facts.waited(waiter, access.stream)
        # Handles kept in attributes are waited on in another method than the one that made
        # them: that method's waits order every collective stream of the package.
        self.facts.waits_for_all_collectives(waiter)


def is_p2p_operation(value):
    """Whether a value is what `dist.P2POp(op, tensor, peer)` stands for: the access its op
    makes of the tensor."""
    return isinstance(value, Container) and value.key is None and len(value.items) == 2 and \
        isinstance(value.items[0], Constant) and value.items[0].value in model.P2P_OPS.values()
