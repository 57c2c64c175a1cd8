# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The caller's work on what it hands in.

A function the package never calls by name is called from outside, and the caller's last work
on what it hands in ran on the stream current at the call. A stream the package made is not
ordered after that work (PyTorch's stream semantics): touching what the function was given on
such a stream before the stream waits for the current one may run before the caller's writes
land. Only a stream that waits for no stream and no event anywhere in the package is held to
this: one that waits somewhere may follow a protocol the analysis cannot see across calls (a
wait in another method, or under a flag), and a path that synchronized the host first is left
out too. So is a copy that reads what it was given: an upload's source is host memory (a data
loader's batch), which no stream writes. A collective called under such a stream is held to the
same, through the stream it was called on.
"""
from .. import torch_model
from .state import AMBIENT, Site

CALLERS_WORK = "the caller's work"


class CallerWork:
    def __init__(self):
        self._reported = set()

    def check(self, access, state, frame, walker):
        stream = access.stream
        if stream.kind == "collective":
            # The process group's stream waits for the stream the collective was called on,
            # and for nothing else: that one must have waited for the caller. Held to the
            # tensors handed in themselves: a collective on an attribute of an object handed
            # in (ZeRO's `param.ds_tensor`) reads what the package's own earlier calls made
            # there, which the check across calls judges.
            if access.key.field_name() is not None:
                return
            stream = access.issued_on
        if stream is None or stream.kind not in ("created", "named") or access.creation or \
                state.host_synced or \
                access.mode == "read" and access.api.rsplit(".", 1)[-1] in torch_model.COPY_METHODS:
            return
        key = access.key
        root_frame = walker.root_frame
        if key.root[0] != "param" or key.root[1] != root_frame.ident or \
                stream.key == walker.entry_stream.key:
            return
        root = walker.root
        if root.parent is not None or walker.package.called_by_name(root) or \
                any(waiter == stream.key for waiter, _ in state.waited) or \
                _waits_somewhere(stream.key, walker.facts):
            return
        identity = (root, key.root, stream.key)
        if identity in self._reported:
            return
        self._reported.add(identity)
        entry = Site(root.module.path, root.node.lineno, root.node.col_offset + 1,
                     root.qualified_name)
        earlier = walker.analysis.make_access(key, AMBIENT, "write", CALLERS_WORK, entry, (),
                                              frozenset(), False, False)
        walker.checks.unordered_with_the_caller(earlier, access, state, frame, walker)


def _waits_somewhere(stream_key, facts):
    """Whether the stream, under any of its names (a stream made into a field and the field's
    name wait for each other in the facts), waits for another stream or an event anywhere."""
    waits = facts.waits
    names = {stream_key} | {waited for waiter, waited in waits
                            if waiter == stream_key and (waited, waiter) in waits}
    return any(waiter in names and waited not in names
               for waiter, waited in waits | facts.event_waits)
