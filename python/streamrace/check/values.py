# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What an expression may stand for: a tensor's bytes, a stream, an event, a collective's work,
a device module, a function of the package, or nothing the check follows.

Storage is named by a `Key`: where the object lives (a local of one call's frame, an attribute of
a class's instances, a module global) and the path of attributes and elements below it. Two keys
name overlapping bytes when one is a prefix of the other (a tensor and its views share the key of
their base), unless an element index tells them apart (`bufs[0]` and `bufs[1]`).
"""
from dataclasses import dataclass, field
from typing import Optional, Tuple

ANY_INDEX = "[*]"

# The class of the analysis's values, which are never changed once made: compared and hashed
# by their fields, but not frozen, since a frozen dataclass's __init__ sets each field through
# object.__setattr__, three times slower, and the analysis makes millions of them.
value_class = dataclass(slots=True, unsafe_hash=True)


@value_class
class Key:
    # ("local", frame, name) / ("self", class) / ("global", module, name) / ("param", frame, name)
    root: Tuple
    path: Tuple[str, ...] = ()

    def attribute(self, name):
        return Key(self.root, self.path + (name,))

    def made(self, number):
        """The key of the object made `number`th on a path and bound here: it shares no bytes
        with another object bound to the same name."""
        return Key(self.root, self.path + ("@%d" % number,))

    def common(self, other):
        """The key both name part of: the longest shared path (two objects bound to one name
        on two paths are that name's storage), or None."""
        if self.root != other.root:
            return None
        path = []
        for mine, theirs in zip(self.path, other.path):
            if mine != theirs:
                break
            path.append(mine)
        return Key(self.root, tuple(path))

    def either(self, other):
        """The key of what one of two paths bound: two keys that differ only in one version
        (`x = x.to(dtype)` on one path only, or two calls of one loop iteration) name either
        object, and no object a third binding made; otherwise None."""
        if self.root != other.root or len(self.path) != len(other.path):
            return None
        differing = [i for i, (mine, theirs) in enumerate(zip(self.path, other.path))
                     if mine != theirs]
        if len(differing) != 1:
            return None
        position = differing[0]
        mine, theirs = self.path[position], other.path[position]
        if not mine.startswith("@") or not theirs.startswith("@"):
            return None
        joined = _VERSION_SEPARATOR.join(sorted(_versions(mine) | _versions(theirs)))
        return Key(self.root, self.path[:position] + (joined,) + self.path[position + 1:])

    def unversioned(self):
        return Key(self.root, tuple(p for p in self.path if not p.startswith("@")))

    def element(self, index):
        return Key(self.root, self.path + (index,))

    def field_name(self):
        """The last attribute of the path (`param.ds_secondary_tensor` -> its name), the name
        objects of many kinds share across functions; None for a plain variable."""
        for part in reversed(self.path):
            if not part.startswith("[") and not part.startswith("@"):
                return part
        if self.root[0] in ("self",):
            return None
        return None

    def overlaps(self, other):
        if self.root[0] == "field" or other.root[0] == "field":
            return self._field_overlaps(other)
        if self.root != other.root:
            return False
        for position, (mine, theirs) in enumerate(zip(self.path, other.path)):
            if mine == theirs:
                continue
            if mine.startswith("@") and theirs.startswith("@"):
                # Two objects the analysis saw bound, unless a join left one of them either.
                if _versions(mine).isdisjoint(_versions(theirs)):
                    return False
                continue
            if mine.startswith("[") and theirs.startswith("["):
                if not indices_differ(mine, self._in_own_terms(theirs, other, position)):
                    continue
            return False
        return True

    def _in_own_terms(self, index, other, position):
        """`other`'s index at `position`, its symbol renamed to this key's where both read one
        attribute of the object their paths reach before it. `buffer[b.index]` through
        `self.buckets[dtype]` and `buffer[1 - b.index]` through `self.buckets[k]` then compare:
        if the two buckets are one, so are their `index`es; if not, neither are their buffers."""
        if not index.startswith("[s:") or not self.path[position].startswith("[s:"):
            return index
        mine, _, _ = _affine_parts(self.path[position])
        theirs, scale, offset = _affine_parts(index)
        for length in range(1, position):
            own_object = Key(self.root, self.path[:length]).text()
            other_object = Key(other.root, other.path[:length]).text()
            if own_object == other_object or not mine.startswith(own_object + ".") or \
                    not theirs.startswith(other_object + "."):
                continue
            attribute = mine[len(own_object):]
            if attribute == theirs[len(other_object):] and \
                    attribute[1:].split("@")[0].isidentifier():
                return affine_index(scale, offset, mine)
        return index

    def _field_overlaps(self, other):
        """A ("field", name) key stands for that attribute of any object (what autograd writes
        before a gradient hook runs: every `.grad`)."""
        mine = self.root[1] if self.root[0] == "field" else self.field_name()
        theirs = other.root[1] if other.root[0] == "field" else other.field_name()
        return mine is not None and mine == theirs

    def made_in_the_call(self):
        """Whether the key names a tensor the analyzed call made (`x = torch.empty(...)`), not
        an object it was handed or looked up (`x = self.buffers[p]`)."""
        return any(version[1:].isdigit() for part in self.path if part.startswith("@")
                   for version in _versions(part))

    def is_local(self):
        return self.root[0] in ("local", "param")

    def without_indices(self):
        """The key with every element index made unknown: what another call of the function
        may touch through it."""
        return Key(self.root, tuple(ANY_INDEX if p.startswith("[") else p for p in self.path
                                    if not p.startswith("@")))

    def loop_elements_merged(self):
        """The key with loop iterations' elements made one (what a later loop may touch)."""
        return Key(self.root, tuple(ANY_INDEX if p.startswith("[it:") else p
                                    for p in self.path))

    def text(self):
        """How the source spells it, for messages: `self.buf`, `x`, `params[*].grad`."""
        kind = self.root[0]
        if kind == "self":
            head = "self"
        elif kind == "object":
            head = "<%s object>" % self.root[1]
        elif kind == "field":
            head = "*." + self.root[1]
        elif kind in ("local", "param"):
            head = str(self.root[2])
        elif kind == "temporary":
            head = "<temporary>"
        else:
            head = str(self.root[-1])
        out = head
        for part in self.path:
            if part.startswith("@"):
                continue
            out += index_text(part) if part.startswith("[") else "." + part
        return out


# Between the versions a key part joins (`@12:4/it0|@14:8/it0`): what two paths bound to one name.
_VERSION_SEPARATOR = "|"


def _versions(part):
    return set(part.split(_VERSION_SEPARATOR))


def constant_index(value):
    return "[c:%d]" % value


def affine_index(scale, offset, symbol):
    return "[s:%s:%d:%d]" % (symbol, scale, offset)


def range_index(dimension, lower, upper):
    """The part of a tensor a multi-dimensional slice keeps (`x[:, 1:h + 1]`): the rows
    [lower, upper) of its first dimension that is not taken whole. Bounds are affine forms
    (symbol, scale, offset), a constant's symbol empty; `upper` None runs to the end."""
    upper = upper or ("", 0, _UNBOUNDED)
    return "[r|%d|%s|%d|%d|%s|%d|%d]" % ((dimension,) + tuple(lower) + tuple(upper))


_UNBOUNDED = 2 ** 62


def _ranges_disjoint(a, b):
    dimension_a, *bounds_a = a[3:-1].split("|")
    dimension_b, *bounds_b = b[3:-1].split("|")
    if dimension_a != dimension_b:
        return False

    def bound(parts):
        return parts[0], int(parts[1]), int(parts[2])

    lower_a, upper_a = bound(bounds_a[:3]), bound(bounds_a[3:])
    lower_b, upper_b = bound(bounds_b[:3]), bound(bounds_b[3:])
    return _at_most(upper_a, lower_b) or _at_most(upper_b, lower_a)


def _at_most(x, y):
    """Whether affine bound x <= y for every value of their symbol."""
    if x[2] == _UNBOUNDED and x[1] == 0:
        return False
    if x[1] == y[1] and (x[0] == y[0] or x[1] == 0):
        return x[2] <= y[2]
    return False


def indices_differ(a, b):
    """Whether two element indices are different for sure: two constants that differ, or two
    affine forms of one symbol that no integer makes equal (`i` and `1 - i`, `i` and `i + 1`),
    or two slices whose rows provably do not meet (`x[:, :1]` and `x[:, 1:h + 1]`)."""
    if ANY_INDEX in (a, b):
        return False
    if a.startswith("[r|") and b.startswith("[r|"):
        return _ranges_disjoint(a, b)
    if a.startswith("[c:") and b.startswith("[c:"):
        return a != b
    if a.startswith("[it:") and b.startswith("[it:"):
        return a != b   # one loop's element in two of its iterations
    if a.startswith("[s:") and b.startswith("[s:"):
        sym_a, scale_a, offset_a = _affine_parts(a)
        sym_b, scale_b, offset_b = _affine_parts(b)
        if sym_a != sym_b:
            return False
        if scale_a == scale_b:
            return offset_a != offset_b
        solution, remainder = divmod(offset_b - offset_a, scale_a - scale_b)
        return remainder != 0
    return False


def _affine_parts(index):
    body = index[3:-1]
    symbol, scale, offset = body.rsplit(":", 2)
    return symbol, int(scale), int(offset)


def index_text(index):
    if index == ANY_INDEX or index.startswith("[it:") or index.startswith("[r|"):
        return "[*]"
    if index.startswith("[c:"):
        return "[%s]" % index[3:-1]
    symbol, scale, offset = _affine_parts(index)
    name = symbol.split("@")[0]
    if "(" in name:
        return "[*]"   # an element of something computed (`gen(x)[*]`): no name to show
    term = name if scale == 1 else "-" + name if scale == -1 else "%d*%s" % (scale, name)
    if offset == 0:
        return "[%s]" % term
    if scale == -1:
        return "[%d - %s]" % (offset, name)
    return "[%s %s %d]" % (term, "+" if offset > 0 else "-", abs(offset))


@value_class
class Tensor:
    key: Key
    # The stream whose pool the storage came from, when this run of the analysis made it.
    alloc_stream: Optional["Stream"] = None
    on_host: bool = False
    # A view of part of the key's bytes (a slice, `narrow`, a chunk): two parts of one buffer
    # may be disjoint.
    partial: bool = False
    # The views of the key (its base) that paths joined here had bound, when they differ
    # (`x[:, :1]` on one layout's branch, `x[:, :, :1]` on the other's): the tensor is one of
    # them, not the whole base.
    views: Tuple = ()


@value_class
class Stream:
    key: str
    # "ambient": the current stream where the analysis started; "default"; "created": made by a
    # Stream() constructor here; "named": held in an attribute, a global or a container (a side
    # stream of the program); "opaque": a parameter, which may be any stream, the current one too.
    kind: str
    # How the source spells it where it was obtained, for messages and fix-its.
    spelling: str = field(default="", compare=False)
    # Where the program keeps it (`self.streams[i]`): two elements of one container whose
    # indices may be equal may be one stream.
    storage: Optional[Key] = field(default=None, compare=False)


@value_class
class Event:
    key: str
    spelling: str = field(default="", compare=False)


@value_class
class Work:
    """A collective's handle: its accesses on the process group's stream, pending until
    `wait()` orders them before the current stream."""
    stream: str
    accesses: frozenset = frozenset()


@value_class
class StreamContext:
    stream: Stream


@value_class
class CoalescingContext:
    group_stream: str


@value_class
class DeviceModule:
    """`torch.cuda`, `get_accelerator()`, a device handle: its spelling makes the fix-its'."""
    spelling: str


@value_class
class Module:
    """A module or package name the code imported (`torch`, `torch.distributed`)."""
    name: str


@value_class
class Function:
    definition: object            # the package's FunctionInfo
    bound_self: object = None     # the receiver of a bound method


@value_class
class Functions:
    """One of several functions of the package, bound to one name on paths the analysis joined
    (`p2p = ring_exchange if ring else send_and_receive`, each on a branch): a call runs one of
    them, so each is followed."""
    choices: Tuple = ()


def either_function(a, b):
    """The functions two paths bound to one name, or None when either is no function."""
    choices = []
    for value in (a, b):
        if isinstance(value, Function):
            choices.append(value)
        elif isinstance(value, Functions):
            choices.extend(value.choices)
        else:
            return None
    return Functions(tuple(dict.fromkeys(choices)))


@value_class
class Container:
    """A list, tuple or dict the code built, with what its elements may be."""
    items: Tuple = ()
    key: Optional[Key] = None
    # The constant key of each item of a dict of work handles, when every item was stored
    # under one (`handles["send"] = work`): an item per key and path, so that two paths joined
    # may give a key two items. (Dicts of streams keep no keys yet: FairScale's
    # `self._streams["all_gather"]`, resolved, meets imprecisions of tensor keys elsewhere.)
    labels: Tuple = ()

    def labelled(self):
        return len(self.labels) == len(self.items)


HANDLES = (Stream, Event, Work)


def holds_handles(container):
    """Whether a value is a list or dict the code built of streams, events and work handles
    only (an empty one too)."""
    return isinstance(container, Container) and container.key is None and \
        all(isinstance(item, HANDLES) for item in container.items)


def store_labelled(container, label, value):
    """The dict after `container[label] = value`: the label's earlier item replaced."""
    kept = [(item, kept_label) for item, kept_label in zip(container.items, container.labels)
            if kept_label != label]
    return Container(tuple(item for item, _ in kept) + (value,),
                     labels=tuple(kept_label for _, kept_label in kept) + (label,))


def merge_labelled(a, b):
    """The dict after `a.update(b)`, both dicts of handles under constant keys."""
    merged = a
    for item, label in zip(b.items, b.labels):
        merged = store_labelled(merged, label, item)
    return merged


def items_labelled(container, label):
    """What `container[label]` may be: nothing, an item, or the items two joined paths stored
    there (a list of them: waiting for it waits for each)."""
    found = tuple(item for item, kept_label in zip(container.items, container.labels)
                  if kept_label == label)
    if not found:
        return None
    return found[0] if len(found) == 1 else Container(found)


def join_handle_lists(a, b):
    """Two lists of streams, events or work handles, built differently on two paths or by two
    stores (empty, then filled by append): a list of what either holds. None for other lists,
    whose elements are storage that a join must keep naming by where it is kept. Dicts of
    handles under constant keys keep each item's key."""
    if not (isinstance(a, Container) and isinstance(b, Container) and a.key is None and
            b.key is None):
        return None
    if a.labelled() and b.labelled():
        pairs = tuple(zip(a.items, a.labels))
        pairs += tuple(pair for pair in zip(b.items, b.labels) if pair not in pairs)
        if not all(isinstance(item, HANDLES) for item, _ in pairs):
            return None
        return Container(tuple(item for item, _ in pairs),
                         labels=tuple(label for _, label in pairs))
    items = a.items + tuple(item for item in b.items if item not in a.items)
    if not all(isinstance(item, HANDLES) for item in items):
        return None
    return Container(items)


@value_class
class Constant:
    value: object


@value_class
class Integer:
    """An integer the code computes from one unknown one: scale * symbol + offset. Indices of
    this form into one container name elements that may be told apart."""
    symbol: str
    scale: int = 1
    offset: int = 0


@value_class
class Symbol:
    """A name the analysis has no value for: what it is decides itself by use (a tensor when
    used as one, a stream when given where a stream goes)."""
    key: Key
    spelling: str = field(default="", compare=False)
    partial: bool = False


UNKNOWN = None


def attribute_stream_key(key):
    """The key of a stream kept in an attribute, named by the attribute:
    `self.context.gather_stream` in one class, `next_module.context.gather_stream` and
    `context.gather_stream` elsewhere are the one gather stream of the program's context.
    Programs keep one stream per role, so the streams of one attribute name are taken as one: a
    race between two such streams of two objects is missed, and none is invented between two
    spellings of one stream (whose waits would not count for each other). None for an element of
    a container of streams, which keeps its own name."""
    if key.path and not key.path[-1].startswith(("[", "@")):
        return "named:field:" + key.path[-1]
    return None


def either_stream(streams, name=""):
    """One of several streams, chosen at run time: the one stream if they agree; the side stream
    where the others are the current or the default one (`Stream() if overlap_comm else
    default_stream()`: the configuration with a side stream is the one whose ordering matters;
    with one stream everything is ordered); else a stream the analysis cannot name."""
    keys = {stream.key for stream in streams}
    if len(keys) == 1:
        return streams[0]
    side = {stream.key: stream for stream in streams if stream.kind in ("created", "named")}
    if len(side) == 1 and all(stream.kind in ("created", "named", "ambient", "default")
                              for stream in streams):
        return next(iter(side.values()))
    return Stream("<either>", "opaque", name)
