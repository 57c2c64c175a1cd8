# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What the package's functions store in objects' attributes, over all of them: a stream made in
`__init__` and used in `step`, a buffer a prefetch makes on its side stream and another method
hands out. Also the orderings the package makes anywhere, which the cross-function rule
(`escapes.py`) takes as the program's intent.
"""
from .values import (ANY_INDEX, Constant, Container, Event, Key, Stream, Symbol, Tensor,
                     attribute_stream_key, either_stream, join_lists)

_MISSING = object()


class ClassFacts:
    def __init__(self, package):
        self.package = package
        self.values = {}           # Key -> value, joined over every store
        self.waits = set()         # (waiter stream key, waited stream key), anywhere
        self.host_waits = set()    # stream keys the host waits for somewhere
        self.event_records = {}    # event key -> the stream keys it is recorded on, anywhere
        self.event_waits = set()   # (waiter stream key, event key) of events not recorded there
        self.events_recorded_in = {}   # function -> the events it records
        self.synchronized_events = set()   # events the host waits for somewhere
        # Once settled: event key -> the streams it, or an event its attribute holds, is
        # recorded on anywhere, for a host that synchronizes an event another call recorded.
        self.event_streams = {}
        # An attribute's stream key (`named:field:copy_stream`) -> the streams made where the
        # package stores them under that name.
        self.created_streams = {}
        # An attribute's event, where its methods store events made in several places (a new
        # one before each record) -> those events' keys.
        self.attribute_events = {}
        # Attribute name -> whether every tensor the package stores under it, on any object,
        # is in host memory (`p._cpu_grad = torch.zeros(..., device="cpu").pin_memory()` for
        # each parameter `p`, read back as `param._cpu_grad` in a hook given the parameter).
        self.host_fields = {}
        self.pageable_fields = {}   # the same, for host memory known not to be pinned
        # Attribute name -> whether every store under it puts an element into what it holds, or
        # a container (`self.weights[name] = torch.empty(..., pin_memory=True)`): the attribute
        # holds a dict or list of the tensors stored, not one of them.
        self.container_fields = {}
        # Attribute name -> whether every store under it, on any object, None included, is a
        # stream: such an attribute is never None (`if stream is None:` of one handed over).
        self.stream_fields = {}
        # Attribute name -> whether every store under it, on any object, holds device events (an
        # event, or a list of them: `self.events = [torch.cuda.Event() for _ in range(4)]`),
        # for an element read through an object whose stores the analysis did not follow
        # (`state.events[2].record()`).
        self.event_fields = {}
        # Attribute name -> the stream every store under it holds, on any object, where they
        # agree and it is the current or the default one (`self.main_stream =
        # torch.cuda.current_stream()`); None where they disagree.
        self.current_stream_fields = {}
        # A collective's access -> the attributes its work handle (or the coalescing manager it
        # ran in) is kept under, to be waited for by another method; and the attributes whose
        # handles some function waits for. Each is (class, attribute name), the class None
        # where the object is not `self`. A wait for a handle reached through no attribute (a
        # local bound elsewhere) may be for any of them.
        self.kept_handles = {}
        # An attribute -> (class, field, whether a list) of the object it holds that keeps the
        # handles (handle_wrappers.py), for the attributes so kept.
        self.handle_wrappers = {}
        # The collectives whose handles were kept through such an object: an attribute may hold
        # one at one time and a handle itself at another (outstanding_handles.py).
        self.wrapped_handles = set()
        self.waited_handles = set()
        self.handle_waited_unnamed = False
        self.settled = False
        self.inherited = {}        # Key -> _inherited's answer, until the next store

    def stored(self, key, value, frame, made_empty=False):
        """`made_empty`: the value is a new empty container the analysis has no value for."""
        if self.settled:
            return
        for alias in key.aliases:
            if not alias.is_instance_alias():
                self.stored(alias, value, frame, made_empty)   # in an object its class keeps
        field = key.field_name()
        if field is not None:
            self.stream_fields[field] = self.stream_fields.get(field, True) and \
                isinstance(value, Stream) and key.path[-1:] == (field,)
        if field is not None and not (isinstance(value, Constant) and value.value is None):
            # Anything but a tensor known to be in host memory (a symbol, a device tensor)
            # says the name may hold device memory.
            self.host_fields[field] = self.host_fields.get(field, True) and \
                isinstance(value, Tensor) and value.on_host
            self.pageable_fields[field] = self.pageable_fields.get(field, True) and \
                isinstance(value, Tensor) and value.pageable
            if not made_empty and not (isinstance(value, Container) and not value.items):
                # An empty container holds no event, and nothing else either.
                self.event_fields[field] = self.event_fields.get(field, True) and \
                    _events_only(value)
            self.container_fields[field] = self.container_fields.get(field, True) and (
                _names_an_element(key) or isinstance(value, Container))
        if key.root[0] not in ("self", "global", "object"):
            return
        if isinstance(value, Constant) and value.value is None:
            # `self.stream = None` in __init__ is a placeholder another module or method fills
            # in: it says nothing of what the attribute holds when it is used.
            return
        if key.root[0] == "object":
            key = key.__class__(("self", key.root[1]), key.path)
        value = _as_other_methods_see_it(value, key)
        if isinstance(value, Symbol) and value.key.root[0] == "object" and \
                not value.key.path and key.root[0] == "self":
            # An object the class made, known to its other methods by the attribute holding it
            # (`self.indices.cpu` is not another holder's `.cpu`); its class's methods and
            # what they store apply through the alias.
            value = Symbol(Key(key.root, key.path, frozenset({value.key})), value.spelling)
        if isinstance(value, Symbol) and value.key.root[0] == "param" and not value.key.path:
            # A stream or buffer handed to the constructor: named by the attribute it is kept in.
            value = Symbol(key, value.spelling)
        if field is not None and not (isinstance(value, Constant) and value.value is None):
            agreed = self.current_stream_fields.get(field, value)
            self.current_stream_fields[field] = value if isinstance(value, Stream) and \
                value.kind in ("ambient", "default") and agreed == value else None
        if field is not None and isinstance(value, Container) and _events_only(value):
            # Each event of the list stands for the events the package keeps under that name.
            self.attribute_events.setdefault(event_field_key(field), set()).update(
                _made_anywhere(item.key) for item in value.items)
        if isinstance(value, Event):
            # Made by any call of the method that makes it: the attribute's event.
            value = Event(_made_anywhere(value.key), key.text())
            self.attribute_events.setdefault(_attribute_event_key(key), set()).add(value.key)
            if field is not None:
                # And for the attribute's name, by which other objects' paths reach it.
                self.attribute_events.setdefault(event_field_key(field), set()).add(value.key)
        if isinstance(value, Stream) and value.kind == "created":
            value = Stream(value.key, value.kind, key.text())
            named = attribute_stream_key(key)
            if named is not None:
                self.created_streams.setdefault(named, set()).add(value.key)
        self.inherited.clear()
        if key not in self.values:
            self.values[key] = value
            return
        previous = self.values[key]
        if previous == value:
            return
        self.values[key] = _join(previous, value, key)

    def attribute(self, key):
        if key.root[0] == "object":
            # What the class's methods store applies to each of its objects.
            key = key.__class__(("self", key.root[1]), key.path)
        value = self.values.get(key)
        if value is None and key.root[0] == "self":
            bases = self.package.bases_of(key.root[1])
            if bases:
                value = self._inherited(key, bases)
        if isinstance(value, Container) and not value.items and \
                key.field_name() in self.package.filled_fields:
            # Made empty where the analysis saw it, filled in code it did not walk.
            return None
        if isinstance(value, Constant) and \
                self.package.stored_constants.get(key.field_name()) != {repr(value.value)}:
            # Set where the analysis saw it, changed in code it did not walk (`self.is_async =
            # config.use_async` in a method no path reaches).
            return None
        if value is None and key.path and key.path[-1].startswith("["):
            # One element of a container of streams: a stream of that container.
            container = self.values.get(key.__class__(key.root, key.path[:-1]))
            if isinstance(container, Stream):
                return container
            # One element of a queue of tensors (tensor_queues.py): one of the tensors queued.
            queued = self.values.get(key.__class__(key.root, key.path[:-1] + (ANY_INDEX,)))
            if isinstance(queued, Tensor):
                return queued
        return value

    def _inherited(self, key, bases):
        """What the methods of the class's bases store in the attribute (a stream the base's
        `__init__` makes, used by a subclass's methods), the nearest base first; kept until
        the next store."""
        found = self.inherited.get(key, _MISSING)
        if found is _MISSING:
            found = next((value for value in (self.values.get(Key(("self", base), key.path))
                                              for base in bases) if value is not None), None)
            self.inherited[key] = found
        return found

    def always_a_stream(self, key):
        """Whether the attribute a key names holds a stream wherever the package stores it."""
        field = key.field_name()
        return field is not None and key.path[-1:] == (field,) and \
            self.stream_fields.get(field, False)

    def current_stream_field(self, key):
        """The current or default stream an attribute of an object whose stores the analysis
        did not follow holds: the one every store under its name holds."""
        field = key.field_name()
        return self.current_stream_fields.get(field) if field is not None else None

    def event_field(self, key):
        """The attribute name of an object whose stores the analysis did not follow, where the
        package stores device events only under that name (an element of a list of events
        included); None otherwise."""
        field = key.field_name()
        return field if field is not None and self.event_fields.get(field, False) else None

    def host_tensor_field(self, key):
        """Whether an attribute of an object whose stores the analysis did not follow is a
        host tensor: the package stores only host tensors under that name."""
        field = self._tensor_field_name(key)
        return field is not None and self.host_fields.get(field, False)

    def pageable_field(self, key):
        field = self._tensor_field_name(key)
        return field is not None and self.pageable_fields.get(field, False)

    def _tensor_field_name(self, key):
        """The attribute name whose stores tell what the key holds; None for the container
        itself where the package only stores elements into it."""
        field = key.field_name()
        if field is not None and self.container_fields.get(field, False) and \
                not _names_an_element(key):
            return None
        return field

    def waited(self, waiter, waited):
        if not self.settled:
            self.waits.add((waiter.key, waited.key))

    def recorded(self, event_key, stream, function):
        if not self.settled:
            self.event_records.setdefault(_made_anywhere(event_key), set()).add(stream.key)
            self.events_recorded_in.setdefault(function, set()).add(_made_anywhere(event_key))

    def event_synchronized(self, event_key):
        if not self.settled:
            self.synchronized_events.add(_made_anywhere(event_key))

    def publishes_by_event(self, function):
        """Whether the function records an event the package synchronizes somewhere (an event
        held under one attribute standing for the others it holds), once settled."""
        return not self.events_recorded_in.get(function, set()).isdisjoint(
            self.synchronized_events)

    def waited_for_event(self, waiter, event_key):
        """A wait for an event recorded in another call (a class's event, recorded by one
        method and waited for by another): the waiter waits for the streams it is recorded on,
        known once every function has been walked (`settle`)."""
        if not self.settled:
            self.event_waits.add((waiter.key, event_key))

    def handle_kept(self, accesses, holder, wrapper=None):
        if not self.settled:
            for ident in accesses:
                self.kept_handles.setdefault(ident, set()).add(holder)
            if accesses and wrapper is not None:
                self.handle_wrappers[holder] = wrapper
                self.wrapped_handles.update(accesses)

    def handle_waited(self, holder):
        if self.settled:
            return
        if holder is None:
            self.handle_waited_unnamed = True
        else:
            self.waited_handles.add(holder)

    def handle_holders(self):
        """Every attribute the package keeps a collective's handle in, as (class, name)."""
        return frozenset(holder for holders in self.kept_handles.values() for holder in holders)

    def kept_in(self, holder):
        """The collectives' accesses whose handles may be kept in that attribute."""
        return [ident for ident, holders in self.kept_handles.items()
                if any(self._may_be_one_holder(kept, holder) for kept in holders)]

    def ordered_by_its_handle_only(self, ident):
        """Whether a collective's work is kept for another method in attributes whose handles
        nothing in the package waits for: the waits it makes for other collectives' handles,
        on the same process group's stream, do not order this one."""
        holders = self.kept_handles.get(ident)
        return bool(holders) and not self.handle_waited_unnamed and \
            not any(self._may_be_one_holder(kept, waited)
                    for kept in holders for waited in self.waited_handles)

    def _may_be_one_holder(self, first, second):
        (first_class, first_field), (second_class, second_field) = first, second
        return first_field == second_field and (
            first_class is None or second_class is None or
            first_class in self.package.ancestors(second_class) or
            second_class in self.package.ancestors(first_class))

    def waits_for_all_collectives(self, waiter):
        if not self.settled:
            self.waits.add((waiter.key, "collective:*"))

    def host_waited(self, stream):
        if not self.settled:
            self.host_waits.add(stream.key)

    def settle(self):
        for named, created in self.created_streams.items():
            if len(created) == 1:
                # Seen through another object (`self.handler.copy_stream`), the one stream the
                # package keeps under that name: an ordering made under either name holds for
                # the other. Streams of several places are kept apart.
                made = next(iter(created))
                self.waits |= {(named, made), (made, named)}
        # An event stored in an attribute stands for each event the attribute holds.
        held_with = {}
        for attribute, events in self.attribute_events.items():
            for event in events | {attribute}:
                held_with.setdefault(event, set()).update(events | {attribute})
        for event in set(self.event_records) | set(held_with):
            self.event_streams[event] = frozenset(
                recorded_on for held in held_with.get(event, {event})
                for recorded_on in self.event_records.get(held, ()))
        self.synchronized_events = {held for event in self.synchronized_events
                                    for held in held_with.get(event, {event})}
        for waiter, event_key in self.event_waits:
            self.waits |= {(waiter, recorded_on)
                           for recorded_on in self.recorded_streams(event_key)}
        self.settled = True

    def recorded_streams(self, event_key):
        """The streams an event made or held anywhere is recorded on anywhere (once settled)."""
        return self.event_streams.get(_made_anywhere(event_key), frozenset())


def event_field_key(field, key=None):
    """The event an attribute name that holds events stands for, on any object (programs keep
    their events by role, as their streams): the element of a list of events at a constant
    index (`state.events[2]`, or the third name `state.events` is unpacked into), or any."""
    if key is not None and len(key.path) >= 2 and key.path[-1].startswith("[c:") and \
            key.path[-2] == field:
        return "named:events:%s%s" % (field, key.path[-1])
    return "named:events:" + field


def _events_only(value):
    return isinstance(value, Event) or isinstance(value, Container) and bool(value.items) and \
        all(isinstance(item, Event) for item in value.items)


def _made_anywhere(event_key):
    """An event made by a constructor call, whichever call of its function made it."""
    return event_key.split("#")[0]


def _attribute_event_key(key):
    return "named:%s:%s" % (key.root[1], key.text())


def _join(previous, value, key):
    handles = join_lists(previous, value)
    if handles is not None:
        return handles   # a list of streams made empty, then filled by append
    if isinstance(previous, Event) and isinstance(value, Event):
        # Events made in different places for one attribute: the attribute's event.
        return Event(_attribute_event_key(key), key.text())
    if isinstance(previous, Stream) and isinstance(value, Stream):
        side = [s for s in (previous, value) if s.kind in ("created", "named")]
        if len(side) == 2:
            # Streams made in different places for one attribute: the attribute's stream.
            return Stream("named:%s:%s" % (key.root[1], key.text()), "named", key.text(), key)
        return either_stream([previous, value], key.text())
    if isinstance(previous, Tensor) and isinstance(value, Tensor):
        return Tensor(key, previous.alloc_stream if previous.alloc_stream == value.alloc_stream
                      else None, previous.on_host and value.on_host,
                      pageable=previous.pageable and value.pageable)
    if isinstance(previous, Tensor) or isinstance(value, Tensor):
        tensor = previous if isinstance(previous, Tensor) else value
        return Tensor(key, None, tensor.on_host)
    if isinstance(previous, Stream) or isinstance(value, Stream):
        stream = previous if isinstance(previous, Stream) else value
        other = value if stream is previous else previous
        if other is None or isinstance(other, Symbol):
            return stream
        return Stream("<either>", "opaque", key.text())
    return Symbol(key)


def _names_an_element(key):
    return bool(key.path) and key.path[-1].startswith("[")


def _as_other_methods_see_it(value, key):
    """Other methods see the attribute's object, whichever one a path made: a tensor a local of
    the storing call named is known to them by the attribute alone, and a list the call made
    (made_lists.py) by the attribute's elements."""
    if isinstance(value, Tensor):
        held = key if value.key.root[0] == "local" else value.key
        return Tensor(held.unversioned().without_spans(), value.alloc_stream, value.on_host,
                      pageable=value.pageable)
    if isinstance(value, Symbol) and value.key.unversioned() == key.unversioned():
        return Symbol(key.unversioned(), value.spelling)
    return value
