# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Elements: what a subscript names (an item of a list or dict, a view of part of a tensor's
bytes, or, indexed by tensors, a new tensor gathered from it), and what a loop over a collection
binds in each iteration the analysis runs."""
import ast
import functools

from .indices import IndexEvaluator
from .state import join_returned
from .values import (Constant, Container, Function, Functions, Integer, Key, Module, Range,
                     Stream, Symbol, Tensor, Work, any_element, combine_linear,
                     device_module_call, either_function, either_stream, items_labelled)


class ElementEvaluator(IndexEvaluator):
    def expr_Subscript(self, node, state, frame):
        base = self.evaluate(node.value, state, frame)
        index = self.evaluate(node.slice, state, frame)
        if isinstance(base, (Tensor, Symbol)) and base.key is not None and \
                (_indexes_by_tensor(index) or _is_mask(node.slice)):
            # Advanced indexing (`x[rows, target]`, `x[mask]`) gathers into a new tensor: it
            # reads the base now and shares none of its bytes.
            self.access(base, "read", "indexing", node, state, frame, own_bytes=True)
            return self.fresh_tensor(node, state, frame,
                                     on_host=isinstance(base, Tensor) and base.on_host)
        return self.element(base, index, node, state, frame)

    def element(self, base, index, node, state, frame):
        if isinstance(base, Container) and base.labels and isinstance(index, Constant) and \
                base.labelled():
            return _named_by(items_labelled(base, index.value), node, self)
        if isinstance(base, Container):
            if isinstance(index, Constant) and isinstance(index.value, int) and \
                    -len(base.items) <= index.value < len(base.items) and base.key is None:
                return _named_by(base.items[index.value], node, self)
            if base.key is None:
                return _named_by(join_items(base.items), node, self)
        if isinstance(base, Stream):
            return base
        if isinstance(base, Range):
            return self.strided(base, node, state, frame)
        if isinstance(base, (Tensor, Symbol, Container)) and getattr(base, "key", None):
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
                # A slice is a view of part of the base's bytes: the span of them its bounds
                # name, when they are integers the analysis can compare.
                span = self.sliced_span(node.slice, state, frame)
                key = base.key.element(span) if span else base.key
                if isinstance(base, Tensor):
                    return Tensor(key, base.alloc_stream, base.on_host, partial=True,
                                  pageable=base.pageable)
                return Symbol(key, base.spelling, partial=True)
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple) and \
                    any(isinstance(e, ast.Slice) for e in node.slice.elts):
                part = self.kept_rows(node.slice.elts, state, frame)
                key = base.key.element(part) if part else base.key
                if isinstance(base, Tensor):
                    return Tensor(key, base.alloc_stream, base.on_host, partial=True,
                                  pageable=base.pageable)
                return Symbol(key, base.spelling, partial=True)
            key = base.key.element(self.index_part(index))
            stored = self.stored_value(key, state, frame, self.spelling(node))
            if isinstance(base, Tensor) and isinstance(stored, Symbol):
                return Tensor(key, base.alloc_stream, base.on_host)
            return self.made_list_element(base, stored)
        return None

    def element_of(self, iterable, node, state, frame):
        """What a loop over `iterable` binds its variable to: in the analysis's first and second
        iteration, two elements that are not the same (`[it:0]`, `[it:1]`), each possibly the
        one another loop or index names."""
        index = "[it:%d]" % self.iteration
        if isinstance(iterable, Range):
            # Every number of the range is at least its least: the second iteration's, a step
            # after the first, carries that bound.
            first = ((iterable.symbol, 1, iterable.least),), 0
            return combine_linear(first, iterable.step) if self.iteration else \
                Integer(iterable.symbol)
        if isinstance(iterable, Container):
            if iterable.key is not None:
                return Symbol(iterable.key.element(index))
            if iterable.literal and iterable.items:
                # The first item, then the others: one of them (a loop over `[p]` binds p).
                rest = iterable.items[min(self.iteration, len(iterable.items) - 1):]
                return rest[0] if len(rest) == 1 else join_items(rest)
            element = join_items(iterable.items)
            if isinstance(element, (Tensor, Symbol)) and element.key.root[0] != "temporary":
                # The storage a list holds is one value for the analysis (a parameter, or the
                # views of one buffer appended in a loop): each iteration's element is another
                # element of it, as a loop over a list the analysis has no value for binds.
                return _element_of_iteration(element, index)
            return element
        if isinstance(iterable, (Tensor, Symbol)) and iterable.key is not None:
            element = self.stored_value(iterable.key.element(index), state, frame)
            if isinstance(iterable, Tensor) and isinstance(element, Symbol):
                return Tensor(element.key, iterable.alloc_stream, iterable.on_host)
            return self.made_list_element(iterable, element)
        if iterable is None and isinstance(node, (ast.Attribute, ast.Name)):
            # A later iteration of a loop whose paths lost the collection when they were
            # joined: the name still says whose it is (`self.buckets` of this object, not of
            # another object of the class whose method this is too).
            named = self.evaluate(node, state, frame)
            if isinstance(named, (Tensor, Symbol, Container)) and named.key is not None:
                return self.element_of(named, node, state, frame)
        if node is not None:
            # A collection the analysis has no name for (`d.values()`): its elements, named by
            # how the loop spells it.
            return Symbol(Key(("global", frame.module.dotted, self.spelling(node)), (index,)))
        return None


def _named_by(item, node, evaluator):
    """A stream taken out of a list by subscript, named by the subscript when the stream's own
    name is the call that made it (`self.streams[0]`, not `torch.cuda.Stream()`)."""
    if isinstance(item, Stream) and "(" in item.spelling and isinstance(node, ast.Subscript):
        return Stream(item.key, item.kind, evaluator.spelling(node), item.storage)
    return item


def _element_of_iteration(element, index):
    key = element.key.element(index)
    if isinstance(element, Tensor):
        return Tensor(key, element.alloc_stream, element.on_host, element.partial)
    return Symbol(key, element.spelling, element.partial)


def join_items(items):
    values = [v for v in items if v is not None]
    if not values:
        return None
    first = values[0]
    return first if all(v == first for v in values) else either(*values)


def either(*values):
    """One of several values: a stream chosen at run time is none we can name; tensors that
    share their storage key keep it."""
    values = [v for v in values if v is not None and
              not (isinstance(v, Constant) and v.value is None)]
    if not values:
        return None
    if all(v == values[0] for v in values[1:]):
        return values[0]   # `work if "send" in handles else None`: None cannot be used
    if all(isinstance(v, Stream) for v in values):
        return either_stream(values)
    calls = {device_module_call(v.name)[1] if isinstance(v, Module) else None for v in values}
    if len(calls) == 1 and None not in calls:
        # One device-module function of one device module or another
        # (`torch.get_device_module(d).stream if cuda else torch.cuda.stream`): one effect.
        return values[0]
    if all(isinstance(v, (Function, Functions)) for v in values):
        return functools.reduce(either_function, values)
    if all(isinstance(v, (Work, Container)) for v in values):
        # An element of a list of work handles, or of tuples holding them (`(handle,
        # output)` appended per parameter): waiting for it waits for each.
        return functools.reduce(join_returned, values)
    if all(isinstance(v, Tensor) for v in values) and len({v.key for v in values}) == 1:
        return Tensor(values[0].key)
    if all(isinstance(v, (Tensor, Symbol)) for v in values) and \
            len({v.key for v in values}) == 1:
        return values[0]
    if all(isinstance(v, (Tensor, Symbol)) for v in values):
        return any_element(values)
    return None


def _indexes_by_tensor(index):
    """Whether a subscript's index holds a tensor (advanced indexing), alone or among the
    dimensions of a tuple."""
    if isinstance(index, Container) and index.key is None:
        return any(isinstance(item, Tensor) for item in index.items)
    return isinstance(index, Tensor)


def _is_mask(index):
    """Whether an index is written as a comparison (`x[target >= 0]`, `x[~(a < b)]`): a mask of
    booleans computed from a tensor."""
    while isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.Invert):
        index = index.operand
    return isinstance(index, ast.Compare) and not any(
        isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in index.ops)
