# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The abstract state at one point of one path, and the orderings that change it.

The state keeps, as the C++ analyzer's does, the accesses that may still be pending on the device
and, for each, the streams already ordered after it (docs/semantics.md): a stream that waits for
another (`wait_stream`, an event recorded on one and waited on by the other) joins what the other
had done; a host wait (`synchronize`, a blocking copy to the host) takes what it waited for out
of the state, since everything enqueued after it comes later on every stream. Host accesses are
never pending: the host acts at once, and later device work is enqueued after it.
"""
import functools
from typing import Optional, Tuple

from .. import torch_model
from .values import (Constant, Container, Key, Stream, Symbol, Tensor, Work, either_function,
                     join_lists, value_class)

HOST = "<host>"
AMBIENT = Stream("<current>", "ambient", "")
DEFAULT = Stream("<default>", "default", "")


@value_class
class Site:
    path: str
    line: int
    column: int
    function: str
    # The outermost call first: how the analysis got from its starting function to the access.
    chain: Tuple = ()


@value_class
class Access:
    ident: int
    key: Key
    stream: Stream          # HOST's Stream for host accesses
    mode: str               # "read", "write", "read_write"
    api: str                # what made it: "copy_", "all_reduce", "torch.cat", "+"
    site: Site
    # The statement holding the access, for fix-its: (line, column of the statement).
    statement: Tuple = ()
    # The conditions of the path it was made on ((condition text, value) pairs): an access made
    # where `self.overlap_comm` is false never meets one made where it is true.
    conditions: frozenset = frozenset()
    # The write that makes a new tensor: it races with later work on other streams (the block
    # may still be in use), never with earlier work, which touched other objects.
    creation: bool = False
    # Made through a view of part of the key's bytes.
    partial: bool = False
    # 1 when made in a gradient hook's second firing (the first firing's work may be pending).
    firing: int = 0
    # A copy without non_blocking: had it moved host memory, the host would have waited for it
    # (PyTorch synchronizes the stream after a blocking copy to or from the host), so what it
    # leaves pending is device memory only.
    blocking: bool = False
    # The views, one of which the access is of, when joined paths bound different views of
    # `key` (values.Tensor.views).
    views: Tuple = ()
    # Made by a tensor operation on the key's tensor (an operand, a copy, a collective): of its
    # bytes only, not of the tensors its attributes hold (`p._fp16_shard`), which an object's
    # key overlaps for what a release frees and what a call given the object may touch. Then
    # the attributes whose tensors may be its bytes (the package points `.data` at them);
    # otherwise None.
    own_bytes: Optional[frozenset] = None
    # A collective's access: the stream current when it was called. The process group keeps
    # the tensors it is given until its work rejoins that stream (it stashes them until the
    # handle is waited for, or records its stream on them), so dropping a tensor made there is
    # safe.
    issued_on: Optional[Stream] = None

    def writes(self):
        return self.mode != "read"


HOST_STREAM = Stream(HOST, "host", "the host")
# In State.recorded, the stream of a record_stream the analysis cannot name (a stream taken
# from a list it does not know), or that a branch skipped because the stream was None.
UNKNOWN_RECORD_STREAM = "<unknown>"


def recorded_stream_key(stream):
    """What State.recorded names the stream of a record_stream by: a stream the analysis
    cannot name still tells that the code records the tensor's uses by hand."""
    return stream.key if stream is not None else UNKNOWN_RECORD_STREAM


def may_be_same_stream(a, b):
    """Whether two streams might be one at run time, so that reporting them as unordered could
    be false: a parameter may be any stream, and the current stream where a function starts is
    usually the default one."""
    if a.key == b.key:
        return True
    if a.kind == "opaque" or b.kind == "opaque":
        return True
    if a.storage is not None and b.storage is not None and a.storage.overlaps(b.storage):
        return True
    return {a.kind, b.kind} == {"ambient", "default"}


class State:
    __slots__ = ("current", "pending", "events", "locals", "attributes", "conditions",
                 "recorded", "waited", "host_synced", "host_synced_on_a_path", "works",
                 "contexts", "escaped", "streams", "handed", "emptied", "ledger")

    def __init__(self, ledger=None):
        # What makes accesses (the Analysis): joining paths narrows work only some of them hold
        # to their conditions (absorb).
        self.ledger = ledger
        self.current = AMBIENT
        # access ident -> frozenset of stream keys ordered after it
        self.pending = {}
        # event key -> (frozenset of captured access idents, recorded on every path)
        self.events = {}
        self.locals = {}       # (frame ident, name) -> value
        self.attributes = {}   # Key -> value stored in an attribute on this path
        self.conditions = {}   # condition text -> bool
        self.recorded = frozenset()   # (Key, stream key) pairs given to record_stream
        # (waiter, waited) stream pairs since the analysis started, for the cross-function rule
        self.waited = frozenset()
        self.host_synced = frozenset()  # stream keys the host waited for since the start
        # ... on at least one of the paths joined into this one (handing_out.py: a copy the
        # host waits for on some way out of a function is one the program knows about)
        self.host_synced_on_a_path = frozenset()
        self.works = {}
        # The stream contexts entered on this path, outermost first: (stream, statement, the
        # stream current before it, the frame that entered it).
        self.contexts = ()
        self.escaped = frozenset()   # keys of local tensors kept elsewhere too
        self.streams = {}            # stream key -> a Stream of that key seen on this path
        # Tensors handed from the stream that made them to another one without record_stream,
        # on some path: (key, making stream key, receiving stream key, Site of the hand-over).
        self.handed = frozenset()
        # Keys of tensors whose storage is empty on this path (resized to nothing, or tested
        # so): work on them touches no bytes until they are grown back or bound anew.
        self.emptied = frozenset()

    def copy(self):
        other = State.__new__(State)
        other.current = self.current
        other.pending = dict(self.pending)
        other.events = dict(self.events)
        other.locals = dict(self.locals)
        other.attributes = dict(self.attributes)
        other.conditions = dict(self.conditions)
        other.recorded = self.recorded
        other.waited = self.waited
        other.host_synced = self.host_synced
        other.host_synced_on_a_path = self.host_synced_on_a_path
        other.works = dict(self.works)
        other.contexts = self.contexts
        other.escaped = self.escaped
        other.streams = self.streams
        other.handed = self.handed
        other.emptied = self.emptied
        other.ledger = self.ledger
        return other

    # ---- ordering -------------------------------------------------------------------------

    def covered_by(self, accesses, stream_key):
        """Idents of pending accesses a stream has seen: its own, and those ordered before it."""
        return [ident for ident, ordered in self.pending.items()
                if accesses[ident].stream.key == stream_key or stream_key in ordered]

    def stream_waits(self, accesses, waiter, waited):
        if waiter.key == waited.key:
            return
        if waiter.key not in self.streams:
            self.streams = dict(self.streams)
            self.streams[waiter.key] = waiter
        for ident in self.covered_by(accesses, waited.key):
            self.pending[ident] = self.pending[ident] | {waiter.key}
        self.waited = self.waited | {(waiter.key, waited.key)}

    def stream_at_entry(self, frame):
        """The stream current where the frame's function was called: before the first stream
        context the function itself entered."""
        for context in self.contexts:
            if context[3] == frame.ident:
                return context[2]
        return self.current

    def seen_since_its_last_work(self, accesses, stream_key):
        """The streams that waited for a stream after the work of it still pending (they have
        seen all it was given so far, on this path)."""
        waiters = {waiter for waiter, waited in self.waited if waited == stream_key}
        for ident, ordered in self.pending.items():
            if waiters and accesses[ident].stream.key == stream_key:
                waiters &= ordered
        return frozenset(waiters)

    def record_event(self, accesses, event_key, stream):
        self.events[event_key] = (frozenset(self.covered_by(accesses, stream.key)), True,
                                  stream.key)

    def wait_event(self, event_key, waiter):
        """True when the event was recorded on every path to here."""
        captured, recorded, recorded_on = self.events.get(event_key, (frozenset(), False, None))
        for ident in captured:
            if ident in self.pending:
                self.pending[ident] = self.pending[ident] | {waiter.key}
        if recorded_on is not None:
            self.waited = self.waited | {(waiter.key, recorded_on)}
        return recorded

    def host_waits_for_stream(self, accesses, stream):
        for ident in self.covered_by(accesses, stream.key):
            del self.pending[ident]
        self.host_synced = self.host_synced | {stream.key}
        self.host_synced_on_a_path = self.host_synced_on_a_path | {stream.key}

    def host_waits_for_event(self, event_key):
        captured, recorded, recorded_on = self.events.get(event_key, (frozenset(), False, None))
        for ident in captured:
            self.pending.pop(ident, None)
        if recorded_on is not None:
            self.host_synced = self.host_synced | {recorded_on}
            self.host_synced_on_a_path = self.host_synced_on_a_path | {recorded_on}
        return recorded

    def host_waits_for_records(self, stream_keys):
        """The host waited for what other calls left on these streams before recording an
        event there: none of this path's own work, which came after."""
        self.host_synced = self.host_synced | stream_keys
        self.host_synced_on_a_path = self.host_synced_on_a_path | stream_keys

    def host_waits_for_device(self):
        self.pending.clear()
        self.host_synced = self.host_synced | {"*"}
        self.host_synced_on_a_path = self.host_synced_on_a_path | {"*"}

    def forget_uses_of(self, accesses, key):
        """The work pending on the bytes `key` names is done with them, as far as later work
        on them is concerned."""
        for ident in [ident for ident in self.pending
                      if bytes_meet(accesses[ident].key, key) and
                      not _own_bytes_apart(accesses[ident], accesses[ident].key, key)]:
            del self.pending[ident]

    def local_made_on_another_stream(self, value):
        """Whether the value is a tensor in a local that a program stream other than the current
        one made (one an attribute holds is released where the attribute is given another value,
        which may come before the stream that made it waits for its next block)."""
        return isinstance(value, Tensor) and value.key.is_local() and \
            value.alloc_stream is not None and value.alloc_stream.kind in ("created", "named") and \
            value.alloc_stream.key != self.current.key

    def holds(self, key, besides=None):
        """Whether a name or an attribute of the path (other than `besides`) still holds the
        tensor of `key` or a view of it (the object whose attribute held it holds it only
        through that attribute)."""
        def holding(value):
            if isinstance(value, Container):
                return any(holding(item) for item in value.items)
            return isinstance(value, (Tensor, Symbol)) and value.key is not None and \
                len(value.key.path) >= len(key.path) and value.key.overlaps(key)
        return any(holding(v) for v in self.locals.values()) or \
            any(holding(v) for k, v in self.attributes.items() if k != besides)

    def conflicts(self, accesses, stream_keys, access):
        """Pending accesses the new one races with: same bytes, at least one writing, on streams
        that are different for sure, with nothing ordering the earlier one before the new one's
        stream. `stream_keys`: each access's stream key by its ident, the test that sets aside
        most of what is pending (the new access's stream's own work)."""
        found = []
        if access.creation:
            return found
        stream_key = access.stream.key
        writes = access.writes()
        for ident, ordered in self.pending.items():
            if stream_keys[ident] == stream_key or stream_key in ordered:
                continue
            earlier = accesses[ident]
            if not (writes or earlier.writes()):
                continue
            if not keys_meet(earlier, access):
                continue
            if contradict(earlier.conditions, access.conditions):
                continue
            if earlier.firing != access.firing and earlier.partial and access.partial:
                # Two parts of one buffer, in two firings of a hook: nothing says they meet.
                continue
            if access.stream.key == HOST and not touches_host_memory(earlier):
                continue   # only a copy's stream touches host memory
            if access.stream.key != HOST:
                if access.stream.key in ordered or \
                        may_be_same_stream(earlier.stream, access.stream):
                    continue
            found.append(earlier)
        return found

    # ---- joining paths --------------------------------------------------------------------

    def absorb(self, other, narrowing=frozenset()):
        """Joins another path's state into this one, in place. join_all folds its states into a
        copy of the first so: each further state costs what it changes, not a new copy of
        every dict (a merge may join many paths). `narrowing`: conditions by which the work only
        one of the two holds keeps what tells its path apart (_narrowed)."""
        if not (self.current is other.current or self.current == other.current):
            self.current = Stream("<joined>", "opaque", "")
        if other.pending != self.pending:
            pending = self.pending
            mine_apart = _apart(self.conditions, other.conditions, narrowing)
            only_mine = [ident for ident in pending if ident not in other.pending] \
                if mine_apart else ()
            theirs_apart = _apart(other.conditions, self.conditions, narrowing)
            for ident, ordered in _differing(other.pending, pending):
                mine = pending.get(ident)
                if mine is None and theirs_apart:
                    _add_pending(pending, self._narrowed(ident, theirs_apart), ordered)
                else:
                    pending[ident] = ordered if mine is None else mine & ordered
            for ident in only_mine:
                narrowed = self._narrowed(ident, mine_apart)
                if narrowed != ident:
                    _add_pending(pending, narrowed, pending.pop(ident))
        if other.events != self.events:
            events = self.events
            for key, (captured, recorded, on) in other.events.items():
                mine = events.get(key)
                if mine is None:
                    events[key] = (captured, False, on)
                else:
                    events[key] = (mine[0] | captured, mine[1] and recorded,
                                   mine[2] if mine[2] == on else None)
            for key in list(events):
                if key not in other.events:
                    captured, _, on = events[key]
                    events[key] = (captured, False, on)
        if other.locals != self.locals:
            _absorb_values(self.locals, other.locals)
        if other.attributes != self.attributes:
            _absorb_values(self.attributes, other.attributes)
        if other.works != self.works:
            _absorb_values(self.works, other.works)
        if other.conditions != self.conditions:
            self.conditions = {k: v for k, v in self.conditions.items()
                               if other.conditions.get(k) == v}
        if other.recorded != self.recorded:
            self.recorded = _joined_records(self.recorded, other.recorded)
        self.waited = self.waited & other.waited
        self.host_synced = self.host_synced & other.host_synced
        self.host_synced_on_a_path = self.host_synced_on_a_path | other.host_synced_on_a_path
        self.escaped = self.escaped | other.escaped
        if other.streams is not self.streams:
            self.streams = {**other.streams, **self.streams}
        if self.contexts != other.contexts:
            self.contexts = ()
        self.handed = self.handed | other.handed
        self.emptied = self.emptied & other.emptied

    def _narrowed(self, ident, conditions):
        """Work pending on one of two paths joined past the limit on paths (merge_paths) is
        pending only where that path's conditions hold: the access, with those of them its own
        did not name that tell that path apart from the other (the read a path that skipped a
        release keeps pending never meets work done where the release was made)."""
        if self.ledger is None:
            return ident
        access = self.ledger.accesses[ident]
        named = {text for text, _ in access.conditions}
        added = [(text, value) for text, value in conditions if text not in named]
        if not added:
            return ident
        return self.ledger.with_conditions(access, access.conditions | frozenset(added)).ident

    def same_as(self, other):
        # Called for every pair of paths after every statement, and nine times in ten the paths
        # differ: the comparisons that tell most apart come first, the conditions of the path
        # (a small dict of strings) before the pending work and the values of the locals
        # (larger, and their values compared in Python), the stream (a dataclass) last.
        return (self.conditions == other.conditions and self.pending == other.pending
                and self.locals == other.locals and self.attributes == other.attributes
                and self.events == other.events and self.recorded == other.recorded
                and self.works == other.works and self.handed == other.handed
                and self.emptied == other.emptied
                and (self.current is other.current or self.current == other.current))


def _apart(conditions, others, texts):
    """The conditions among `texts` of one path that another does not share: what tells the
    first apart."""
    if not texts:
        return ()
    return [(text, value) for text, value in conditions.items()
            if text in texts and others.get(text, _MISSING) != value]


def _add_pending(pending, ident, ordered):
    mine = pending.get(ident)
    pending[ident] = ordered if mine is None else mine & ordered


def touches_host_memory(access):
    """Whether a device access can be of host memory: only non-blocking copies move bytes
    between the two and leave them pending (an allocation writes none, and arithmetic on a host
    tensor runs on the host)."""
    if access.blocking:
        return False
    return access.api.rsplit(".", 1)[-1] in torch_model.COPY_METHODS or \
        access.api == "batch_isend_irecv" or access.stream.kind == "collective"


def keys_meet(first, second):
    """Whether two accesses may touch the same bytes: of their keys, or of one of the views
    each is of. A tensor and its gradient do not (`params` handed to a call, `params[i].grad`
    written): an object's key overlaps those of what it holds, for what a release frees. Nor
    does a tensor operation on a tensor meet the tensors its attributes hold."""
    return any(bytes_meet(mine, theirs) and not _own_bytes_apart(first, mine, theirs) and
               not _own_bytes_apart(second, theirs, mine)
               for mine in first.views or (first.key,)
               for theirs in second.views or (second.key,))


def _own_bytes_apart(access, mine, theirs):
    """Whether `access`, of the bytes of the tensor `mine` names, leaves out those of `theirs`,
    a tensor an attribute of it holds."""
    return access.own_bytes is not None and theirs.held_by_an_attribute_of(mine) and \
        theirs.path[len(mine.path)] not in access.own_bytes


def bytes_meet(first, second):
    """Whether two keys may name the same bytes: overlapping, but not a tensor and its
    gradient."""
    return first.overlaps(second) and not _tensor_and_its_gradient(first, second)


def _tensor_and_its_gradient(first, second):
    """A tensor and its gradient, or a list of tensors and its elements' gradients (a list of
    parameters handed to a call reads the parameters, not what autograd left in them)."""
    shorter, longer = sorted((first, second), key=lambda key: len(key.path))
    rest = longer.path[len(shorter.path):]
    while rest and rest[0].startswith("["):
        rest = rest[1:]
    return shorter.root == longer.root and rest[:1] == (torch_model.GRADIENT_ATTRIBUTE,)


def contradict(first, second):
    if not first or not second:
        return False
    values = _condition_values(first)
    return any(text in values and values[text] != value for text, value in second)


@functools.lru_cache(maxsize=4096)
def _condition_values(conditions):
    """A path's conditions as a dict, made once: an access's are compared with those of every
    access of the same attribute (escapes.py)."""
    return dict(conditions)


def _differing(theirs, mine):
    """The items of `theirs` that `mine` lacks or holds another object for, in `theirs`' order
    (in which work only `theirs` holds joins `mine`). Joined paths share most of their values,
    the same objects, copied from one state."""
    get = mine.get
    return [item for item in theirs.items() if get(item[0], _MISSING) is not item[1]]


def _absorb_values(mine, theirs):
    """Names (locals, attributes) of two paths joined into `mine`: a name on one path only
    keeps its value; one the paths disagree on is joined. Most are the same object on both."""
    for name, other in _differing(theirs, mine):
        value = mine.get(name, _MISSING)
        if value is _MISSING:
            mine[name] = other
        elif not other == value:
            mine[name] = _join_value(value, other)


def _joined_records(mine, theirs):
    """The records both paths made; a tensor both recorded on different streams (one a stream
    the other path found None) stays recorded by hand."""
    both = mine & theirs
    keys = {key for key, _ in mine} & {key for key, _ in theirs}
    return both | {(key, UNKNOWN_RECORD_STREAM) for key in keys}


def recorded_by_hand(key, state):
    """Whether the path gave the tensor to record_stream, or skipped that because the stream
    was None: code that records a tensor manages its lifetime itself, and the stream it records
    may come to wait for the one that used it (TorchRec records its lookup's input on the stream
    that later waits for the lookup's stream). Another object of its name counts: a loop's
    batch, recorded in each call that made it, is one name of objects made on both sides of the
    loop's joins."""
    name = key.unversioned()
    return any(other == key or other.unversioned() == name for other, _ in state.recorded)


def _join_value(a, b):
    # A name that is None on one path cannot be used on it: the other path's value is the one.
    if isinstance(a, Constant) and a.value is None:
        return b
    if isinstance(b, Constant) and b.value is None:
        return a
    handles = join_lists(a, b)
    if handles is not None:
        return handles
    for empty, other in ((a, b), (b, a)):
        if isinstance(empty, Container) and empty.key is None and not empty.items and \
                isinstance(other, Symbol):
            # A list left empty on one path (a loop that ran no iteration) has no element to
            # use: its elements are those the other path's name stands for.
            return other
    if isinstance(a, Work) and isinstance(b, Work) and a.stream == b.stream:
        # The handle of either collective: waiting for it waits for both.
        return Work(a.stream, a.accesses | b.accesses, a.on_host and b.on_host)
    functions = either_function(a, b)
    if functions is not None:
        return functions
    if isinstance(a, Tensor) and isinstance(b, Tensor) and a.key == b.key:
        return Tensor(a.key, a.alloc_stream if a.alloc_stream == b.alloc_stream else None,
                      a.on_host and b.on_host)
    if isinstance(a, (Tensor, Symbol)) and isinstance(b, (Tensor, Symbol)):
        # `x = x.to(dtype)` on one path only: x names one object or the other, both its own.
        common = a.key.either(b.key) or a.key.common(b.key)
        if common is not None:
            if isinstance(a, Tensor) and isinstance(b, Tensor):
                views = ()
                if a.partial and b.partial and not a.key.either(b.key):
                    views = tuple(dict.fromkeys((a.views or (a.key,)) + (b.views or (b.key,))))
                return Tensor(common, None, a.on_host and b.on_host, bool(views), views)
            return Symbol(common, getattr(a, "spelling", ""))
        if isinstance(a, Tensor) or isinstance(b, Tensor):
            # `buf = torch.zeros(n) if padded else flat[lo:hi]`, on two paths: one object or
            # the other, of two storages. Named by the first, it touches the bytes of either.
            views = tuple(dict.fromkeys((getattr(a, "views", ()) or (a.key,)) +
                                        (getattr(b, "views", ()) or (b.key,))))
            return Tensor(a.key, None, getattr(a, "on_host", False) and
                          getattr(b, "on_host", False), True, views)
    if isinstance(a, Stream) and isinstance(b, (Stream, Symbol)) or \
            isinstance(b, Stream) and isinstance(a, Symbol):
        # Two paths joined: a stream neither path alone names (the paths that chose a stream by
        # a condition tested again stay apart instead).
        return Stream("<joined>", "opaque", "")
    return None


_MISSING = object()


def join_returned(a, b):
    """What a function returns on two of its paths: a tuple (`return handle, output`) joined
    item by item, so that a work handle returned beside a tensor is still waited for."""
    if isinstance(a, Container) and isinstance(b, Container) and a.key is None and \
            b.key is None and len(a.items) == len(b.items) and not a.labels and not b.labels:
        return Container(tuple(x if x == y else _join_value(x, y)
                               for x, y in zip(a.items, b.items)))
    return _join_value(a, b)


def join_all(states, narrowing=frozenset()):
    states = [s for s in states if s is not None]
    if not states:
        return None
    if len(states) == 1:
        return states[0]
    joined = states[0].copy()
    for other in states[1:]:
        joined.absorb(other, narrowing)
    return joined


def optional_first(states) -> Optional[State]:
    return states[0] if states else None
