# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The rows a multi-dimensional slice keeps (`x[:, 1:h + 1]`, `x[:, :1]`, `x[:, -1:]`), as an
index of the sliced tensor, and whether two such parts provably never meet.
"""


def range_index(dimension, lower, upper):
    """The part of a tensor a multi-dimensional slice keeps (`x[:, 1:h + 1]`): the rows
    [lower, upper) of its first dimension that is not taken whole. Bounds are affine forms
    (symbol, scale, offset), a constant's symbol empty; `upper` None runs to the end."""
    upper = upper or ("", 0, _UNBOUNDED)
    return "[r|%d|%s|%d|%d|%s|%d|%d]" % ((dimension,) + tuple(lower) + tuple(upper))


_UNBOUNDED = 2 ** 62


def ranges_disjoint(a, b):
    dimension_a, *bounds_a = a[3:-1].split("|")
    dimension_b, *bounds_b = b[3:-1].split("|")
    if dimension_a != dimension_b:
        return False

    def bound(parts):
        return parts[0], int(parts[1]), int(parts[2])

    lower_a, upper_a = bound(bounds_a[:3]), bound(bounds_a[3:])
    lower_b, upper_b = bound(bounds_b[:3]), bound(bounds_b[3:])
    return _at_most(upper_a, lower_b) or _at_most(upper_b, lower_a) or \
        _first_and_last_rows((lower_a, upper_a), (lower_b, upper_b)) or \
        _first_and_last_rows((lower_b, upper_b), (lower_a, upper_a))


def _first_and_last_rows(first, last):
    """`x[:, :c]` and `x[:, -k:]` (or `x[:, h - k:]`, `h` read as the dimension's size:
    `kept_rows`): a dimension's first c rows and its last k. They meet only in a dimension less
    than c + k rows high, which code that takes a slab's first and last rows apart (a halo
    exchange: its top row to one neighbour, its bottom row to the other) does not mean: taken
    as two."""
    (first_lower, first_upper), (last_lower, last_upper) = first, last
    return first_lower == ("", 0, 0) and first_upper[0] == "" and \
        first_upper[2] != _UNBOUNDED and last_upper == ("", 0, _UNBOUNDED) and \
        last_lower[0] == "" and last_lower[2] < 0


def _at_most(x, y):
    """Whether affine bound x <= y for every value of their symbol."""
    if x[2] == _UNBOUNDED and x[1] == 0:
        return False
    if x[1] == y[1] and (x[0] == y[0] or x[1] == 0):
        return x[2] <= y[2]
    return False
