# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Streams and events whose making the analysis did not see, named by where the program keeps
them, so that one kept object is one stream or event in every function that reaches it."""
from .facts import event_field_key
from .values import Container, Event, Symbol


def event_keys_in(values, facts):
    """The keys of the events among values a function returns: an event, an attribute or name
    that holds one (`self._done_event` of an object whose stores the analysis did not follow, as
    `as_event` names it), or either inside a tuple."""
    keys = set()
    for value in values:
        for item in value.items if isinstance(value, Container) else (value,):
            if isinstance(item, Event):
                keys.add(item.key)
            elif isinstance(item, Symbol) and item.key is not None and (
                    facts.event_field(item.key) is not None or named_as_an_event(item.key)):
                keys.add(kept_event_key(item.key, facts))
    return frozenset(keys)


def kept_event_key(key, facts):
    """The event a name of an object whose stores the analysis did not follow stands for."""
    field = facts.event_field(key)
    return event_field_key(field, key) if field is not None else "named:" + kept_stream_key(key)


def named_as_an_event(key):
    """Whether the attribute or variable a key names says it holds a device event
    (`fork_event`, `copy_done_event`)."""
    name = key.field_name() or (key.root[-1] if key.root[0] in ("local", "param") and
                                not key.path else None)
    return isinstance(name, str) and name.lower().endswith("event")


def kept_stream_key(key):
    """A stream kept somewhere, named by where: `self.comm_stream` of a class, or an attribute
    path of a parameter or local (`state._post_backward_stream` is one stream in every function
    that is given that state)."""
    if key.root[0] in ("self", "object"):
        return "%s:%s" % (key.root[1], key.text())
    return key.text()
