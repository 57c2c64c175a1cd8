# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Events kept in queues an object holds: one call records an event after its side-stream work and
appends it to a queue under an attribute (`self._submodule_to_event[module].append(event)`, a
dict of deques), and another takes it out and waits for it (`...[module].popleft().wait()`). The
event a queue hands out is one of those put into it, so the wait orders the waiter after the
streams they were recorded on, as a wait for an event kept in the attribute itself does
(facts.py, the attribute's events)."""
import ast

from .values import ANY_INDEX, Event, Symbol

QUEUE_ADDS = frozenset({"append", "appendleft", "add", "put", "put_nowait"})
QUEUE_TAKES = frozenset({"pop", "popleft", "get", "get_nowait"})
# What a call of a queue method that is no event's put or take gives: the call goes on as any
# other method call of an object of unknown kind.
NOT_QUEUED = object()

# Constructors of empty containers (`collections.defaultdict(collections.deque)`): a store of one
# into an attribute puts nothing in it, so it says nothing of what the attribute's items are.
_EMPTY_CONTAINER_MAKERS = frozenset({"defaultdict", "deque", "dict", "list", "set",
                                     "OrderedDict", "Queue", "SimpleQueue"})


def queued_event(facts, receiver, name, args, frame):
    """The effect of `queue.append(event)` (the event joins the events of the attribute the queue
    is kept under) and the value of `queue.popleft()` on a queue the package puts only events
    into (one of them); NOT_QUEUED for any other call."""
    field = receiver.key.field_name() if isinstance(receiver, Symbol) and \
        receiver.key is not None else None
    if field is None:
        return NOT_QUEUED
    if name in QUEUE_ADDS and len(args) == 1 and isinstance(args[0][0], Event):
        facts.stored(receiver.key.element(ANY_INDEX), args[0][0], frame)
        return None
    if name in QUEUE_TAKES and facts.event_field(receiver.key) is not None:
        return Symbol(receiver.key.element(ANY_INDEX), receiver.spelling)
    return NOT_QUEUED


def made_empty(value, value_node):
    """Whether a store puts a new empty container the analysis has no value for into an
    attribute (`defaultdict(deque)`): it says nothing of what the attribute's items are."""
    if value is not None or not isinstance(value_node, ast.Call) or value_node.keywords or \
            len(value_node.args) > 1:
        return False
    func = value_node.func
    name = func.attr if isinstance(func, ast.Attribute) else \
        func.id if isinstance(func, ast.Name) else None
    return name in _EMPTY_CONTAINER_MAKERS and (not value_node.args or name == "defaultdict")
