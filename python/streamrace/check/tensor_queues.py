# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Tensors kept in queues an object holds: a prefetch makes a batch on a side stream and appends
it to a list or deque under an attribute (`self.batches.append(gpu)`), and another method takes
it out (`self.batches.pop(0)`, `self.batches[0]`) and uses it. The walk does not know what the
queue held before, so the tensor becomes its any-element (`self.batches[*]`): work left pending on
it when the call returns is the attribute's (escapes.py), and what the queue hands out in another
call is one of the tensors queued, met by that work unless something orders the two."""
from .values import ANY_INDEX, Symbol, Tensor


def _kept_queue(receiver):
    """Whether the receiver is a queue kept under an attribute, which other calls reach."""
    return isinstance(receiver, Symbol) and receiver.key is not None and \
        receiver.key.field_name() is not None and \
        receiver.key.root[0] in ("self", "object", "global")


def queue_tensor(walker, receiver, value, value_node, state, frame):
    """`queue.append(tensor)` on a queue kept under an attribute."""
    if not _kept_queue(receiver) or not isinstance(value, Tensor) or \
            value.key.root[0] not in ("local", "temporary"):
        return
    element = receiver.key.element(ANY_INDEX)
    if value.key.root[0] == "temporary":
        # Made by the statement (`queue.append(x.cuda(non_blocking=True))`): named by the queue.
        value = walker.bind_new_tensor(value, element, state, value_node)
    state.attributes[element] = value
    walker.facts.stored(element, value, frame)


def queued_tensor(walker, receiver, state, frame):
    """What `queue.pop(0)` (or `popleft()`, `get()`) hands out: one of the tensors queued, or
    None where the package queues none there."""
    if not _kept_queue(receiver):
        return None
    taken = walker.stored_value(receiver.key.element(ANY_INDEX), state, frame)
    return taken if isinstance(taken, Tensor) else None
