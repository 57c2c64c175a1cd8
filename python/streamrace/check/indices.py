# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Indices and slices: the integers the analysis can compare (affine forms of one symbol, `1 - i`;
linear forms of several, `base_i + rank`), and the part of its base a subscript or a slice names,
so that two elements or spans are told apart only where their bounds prove it.
"""
import ast

from .row_ranges import range_index
from .syntax import breadth_first
from .values import (ANY_INDEX, Constant, Integer, Linear, OtherThan, Range, Symbol,
                     affine_index, combine_linear, constant_index, label_index, linear_form,
                     other_than_index, scale_linear, span_index, symbol_name)


class IndexEvaluator:
    """What subscripts and slices name; mixed into the expression evaluator, whose `evaluate`
    gives the bounds' values."""

    def strided(self, numbers, node, state, frame):
        """`range(n)[::world_sz]`: the range stepping by the slice's step; None for another
        part of a range, whose loop's iterations are then told apart by name only."""
        if not isinstance(node, ast.Subscript) or not isinstance(node.slice, ast.Slice) or \
                node.slice.lower is not None or node.slice.upper is not None or \
                node.slice.step is None or numbers.step != ((), 1):
            return None
        step = linear_form(self.evaluate(node.slice.step, state, frame))
        return Range(numbers.symbol, step, numbers.least) if step is not None else None

    def sliced_span(self, bounds, state, frame):
        """The span part of a one-dimensional slice (`xs[base_i:base_i + world_sz]`) whose
        bounds are linear forms, not both constant; None otherwise."""
        if bounds.step is not None or bounds.upper is None:
            return None
        lower = linear_form(self.evaluate(bounds.lower, state, frame)) \
            if bounds.lower is not None else ((), 0)
        upper = linear_form(self.evaluate(bounds.upper, state, frame))
        if lower is None or upper is None or not lower[0] + upper[0]:
            return None
        return span_index(lower, upper)

    def kept_rows(self, dimensions, state, frame):
        """The range part of a multi-dimensional slice (`x[:, 1:h + 1, :]`): its first dimension
        not taken whole, when its bounds are affine; None when the bounds cannot be told."""
        for position, dimension in enumerate(dimensions):
            if isinstance(dimension, ast.Slice):
                if dimension.lower is None and dimension.upper is None and \
                        dimension.step is None:
                    continue
                if dimension.step is not None:
                    return None
                lower = _affine_bound(self.bound_value(dimension.lower, state, frame)) \
                    if dimension.lower is not None else ("", 0, 0)
                rows_from_end = _rows_before_the_end(dimension, frame.function)
                if rows_from_end is not None:
                    lower = ("", 0, -rows_from_end)
                upper = _affine_bound(self.bound_value(dimension.upper, state, frame)) \
                    if dimension.upper is not None else None
                if lower is None or dimension.upper is not None and upper is None:
                    return None
                return range_index(position, lower, upper)
            if isinstance(dimension, ast.Constant) and dimension.value is Ellipsis:
                return None
            row = _affine_bound(self.evaluate(dimension, state, frame))
            if row is None:
                return None
            return range_index(position, row, (row[0], row[1], row[2] + 1))
        return None

    def bound_value(self, node, state, frame):
        """A slice bound's value. A bound is an integer, and so is each operand of its sums and
        products: `2 * half` is an affine form here, where elsewhere `2 * x` may be a tensor's
        product (integer_arithmetic takes only what it knows to be integers)."""
        if not isinstance(node, ast.BinOp) or not isinstance(node.op, _AFFINE_OPERATORS):
            return self.evaluate(node, state, frame)
        left = linear_form(self.bound_value(node.left, state, frame))
        right = linear_form(self.bound_value(node.right, state, frame))
        if left is None or right is None:
            return None
        return _forms_arithmetic(node.op, left, right)

    def index_part(self, index):
        if isinstance(index, Constant) and isinstance(index.value, int) \
                and not isinstance(index.value, bool):
            return constant_index(index.value)
        if isinstance(index, Constant) and isinstance(index.value, str):
            return label_index(index.value)
        if isinstance(index, Integer):
            return affine_index(index.scale, index.offset, index.symbol)
        if isinstance(index, OtherThan):
            return other_than_index(index.symbol)
        if isinstance(index, Symbol):
            return affine_index(1, 0, symbol_name(index.key))
        if isinstance(index, Linear) and len(index.terms) == 1:
            # One symbol's affine form, whose least value counts in comparisons only.
            symbol, scale, _ = index.terms[0]
            return affine_index(scale, index.offset, symbol)
        if isinstance(index, Linear):
            lower = linear_form(index)
            return span_index(lower, (lower[0], lower[1] + 1))
        return ANY_INDEX

    def ring_neighbour(self, node, state, frame):
        """`(rank + step) % n` or `(rank - step) % n`, `step` the variable of an enclosing
        `for step in range(k, n)` with k at least 1 and the same `n`: an element other than
        `rank`'s, whatever `rank` is (the shift is never a whole turn). None otherwise."""
        shifted = node.left
        if not isinstance(node.op, ast.Mod) or not isinstance(shifted, ast.BinOp) or \
                not isinstance(shifted.op, (ast.Add, ast.Sub)):
            return None
        pairs = [(shifted.left, shifted.right)]
        if isinstance(shifted.op, ast.Add):
            pairs.append((shifted.right, shifted.left))
        turn = ast.unparse(node.right)
        for base, shift in pairs:
            if isinstance(shift, ast.Name) and isinstance(base, (ast.Name, ast.Attribute)) and \
                    _counts_from_one_below(shift.id, turn, frame.function.node):
                symbol = _plain_symbol(self.evaluate(base, state, frame))
                if symbol is not None:
                    return OtherThan(symbol)
        return None

    def expr_Slice(self, node, state, frame):
        for part in (node.lower, node.upper, node.step):
            if part is not None:
                self.evaluate(part, state, frame)
        return None


def _plain_symbol(value):
    if isinstance(value, Integer) and value.scale == 1 and value.offset == 0:
        return value.symbol
    if isinstance(value, Symbol) and value.key is not None:
        return symbol_name(value.key)
    return None


def _counts_from_one_below(name, turn, function):
    """Whether `name` is bound once in the function, as the variable of a `for` loop over
    `range(k, turn)` with a constant k of at least 1 (asked once per function, name and turn)."""
    known = function.__dict__.setdefault("_ring_counters", {})
    if (name, turn) not in known:
        known[(name, turn)] = _bound_once_by_a_range_from_one(name, turn, function)
    return known[(name, turn)]


def _bound_once_by_a_range_from_one(name, turn, function):
    bindings = [node for node in breadth_first(function)
                if isinstance(node, ast.Name) and node.id == name and
                isinstance(node.ctx, (ast.Store, ast.Del))]
    if len(bindings) != 1:
        return False
    return any(isinstance(node, ast.For) and node.target is bindings[0] and
               isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Name) and
               node.iter.func.id == "range" and len(node.iter.args) == 2 and
               isinstance(node.iter.args[0], ast.Constant) and
               isinstance(node.iter.args[0].value, int) and node.iter.args[0].value >= 1 and
               ast.unparse(node.iter.args[1]) == turn
               for node in breadth_first(function))


def _rows_before_the_end(dimension, function):
    """k for a slice to the end from a size less k (`x[:, h - 1:]` where `h, w = x.shape[2:]`,
    `x[:, x.size(1) - 2:]`): the dimension's last k rows, as `x[:, -k:]` names them, the size
    taken for the sliced dimension's own."""
    lower = dimension.lower
    if dimension.upper is not None or not isinstance(lower, ast.BinOp) or \
            not isinstance(lower.op, ast.Sub) or not isinstance(lower.right, ast.Constant) or \
            not isinstance(lower.right.value, int) or isinstance(lower.right.value, bool) or \
            lower.right.value <= 0:
        return None
    size = lower.left
    if isinstance(size, ast.Name) and size.id in _size_names(function) or _reads_a_size(size):
        return lower.right.value
    return None


def _size_names(function):
    """The names a function binds to a tensor's sizes: `n, h, w, c = list(x.shape)`,
    `h = x.size(1)`, `h = x.shape[1]`, `n = len(x)`."""
    if function.size_names is None:
        found = set()
        for node in breadth_first(function.node):
            if not isinstance(node, ast.Assign) or len(node.targets) != 1:
                continue
            target, value = node.targets[0], node.value
            if isinstance(target, ast.Name) and _reads_a_size(value):
                found.add(target.id)
            elif isinstance(target, (ast.Tuple, ast.List)) and _reads_sizes(value):
                found.update(element.id for element in target.elts
                             if isinstance(element, ast.Name))
        function.size_names = frozenset(found)
    return function.size_names


def _reads_sizes(value):
    """`x.shape`, `x.size()`, `list(x.shape)`, `x.shape[1:]`: a tensor's sizes."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and \
            value.func.id in ("list", "tuple") and len(value.args) == 1:
        value = value.args[0]
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice):
        value = value.value
    if isinstance(value, ast.Attribute) and value.attr == "shape":
        return True
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
        value.func.attr == "size" and not value.args


def _reads_a_size(value):
    """`x.shape[1]`, `x.size(1)`, `x.size()[1]`, `len(x)`: one of a tensor's sizes."""
    if isinstance(value, ast.Subscript) and not isinstance(value.slice, ast.Slice):
        return _reads_sizes(value.value)
    if not isinstance(value, ast.Call):
        return False
    if isinstance(value.func, ast.Name):
        return value.func.id == "len" and len(value.args) == 1
    return isinstance(value.func, ast.Attribute) and value.func.attr == "size" and \
        len(value.args) == 1


def _affine_bound(value):
    """A slice bound as (symbol, scale, offset), the symbol empty for a constant; None when it
    is not an integer the analysis can compare."""
    if isinstance(value, Constant) and isinstance(value.value, int) and \
            not isinstance(value.value, bool):
        return "", 0, value.value
    if isinstance(value, Integer):
        return value.symbol, value.scale, value.offset
    if isinstance(value, Symbol) and value.key is not None:
        return symbol_name(value.key), 1, 0
    if isinstance(value, Linear) and value.terms:
        # Several symbols (`h + half`, the row a halo's middle ends at): one symbol of their
        # sum, so that the bound ending one slice and the same sum starting the next compare.
        return "+".join("%d*%s" % (scale, symbol) for symbol, scale, _ in
                        sorted(value.terms, key=lambda term: term[0])), 1, value.offset
    return None


def integer_arithmetic(op, left, right):
    """Affine integers of one symbol (`1 - i`, `i + 1`, `2 * i`): element indices that can be
    told apart; linear forms of several (`base_i + rank`), or of a symbol whose least value is
    known, that spans of elements can be compared by."""
    if not isinstance(op, _AFFINE_OPERATORS):
        return None
    linear = _linear_arithmetic(op, left, right)
    if linear is not None:
        return linear
    def as_affine(value):
        if isinstance(value, Integer):
            return value.symbol, value.scale, value.offset
        if isinstance(value, Symbol) and value.key is not None:
            return symbol_name(value.key), 1, 0
        return None

    def as_int(value):
        if isinstance(value, Constant) and isinstance(value.value, int) and \
                not isinstance(value.value, bool):
            return value.value
        return None

    if isinstance(op, (ast.Add, ast.Sub)):
        a, b = as_affine(left), as_int(right)
        if a is not None and b is not None and isinstance(left, Integer):
            return Integer(a[0], a[1], a[2] + (b if isinstance(op, ast.Add) else -b))
        a, b = as_int(left), as_affine(right)
        if a is not None and b is not None and (isinstance(right, (Integer, Symbol))):
            if isinstance(op, ast.Add):
                return Integer(b[0], b[1], b[2] + a)
            return Integer(b[0], -b[1], a - b[2])
        a, b = as_affine(left), as_int(right)
        if a is not None and b is not None and isinstance(left, Symbol) and \
                isinstance(op, (ast.Add, ast.Sub)):
            return Integer(a[0], 1, b if isinstance(op, ast.Add) else -b)
    if isinstance(op, ast.Mult):
        a, b = as_affine(left), as_int(right)
        if a is not None and b is not None and isinstance(left, Integer):
            return Integer(a[0], a[1] * b, a[2] * b)
    if isinstance(left, Constant) and isinstance(right, Constant):
        try:
            if isinstance(op, ast.Add):
                return Constant(left.value + right.value)
            if isinstance(op, ast.Sub):
                return Constant(left.value - right.value)
        except TypeError:
            return None
    return None


_AFFINE_OPERATORS = (ast.Add, ast.Sub, ast.Mult)


def _linear_arithmetic(op, left, right):
    """`+`, `-` and a constant `*` of integers one of which is a `Linear` or a symbol whose
    least value is known, or of two different symbols; None where one symbol's affine form
    does (what it did before several were compared)."""
    a, b = linear_form(left), linear_form(right)
    if a is None or b is None:
        return None
    several = isinstance(left, Linear) or isinstance(right, Linear) or \
        any(least is not None for _, _, least in a[0] + b[0]) or \
        len({symbol for symbol, _, _ in a[0] + b[0]}) > 1
    if not several:
        return None
    return _forms_arithmetic(op, a, b)


def _forms_arithmetic(op, a, b):
    """`+`, `-` or `*` of two linear forms, as a value; None for a product of two unknowns."""
    if isinstance(op, (ast.Add, ast.Sub)):
        return combine_linear(a, b, 1 if isinstance(op, ast.Add) else -1)
    if isinstance(op, ast.Mult) and not b[0]:
        return scale_linear(a, b[1])
    if isinstance(op, ast.Mult) and not a[0]:
        return scale_linear(b, a[1])
    return None
