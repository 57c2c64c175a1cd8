# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What an expression may stand for: a tensor's bytes, a stream, an event, a collective's work,
a device module, a function of the package, or nothing the check follows.

Storage is named by a `Key`: where the object lives (a local of one call's frame, an attribute of
a class's instances, a module global) and the path of attributes and elements below it. Two keys
name overlapping bytes when one is a prefix of the other (a tensor and its views share the key of
their base), unless an element index tells them apart (`bufs[0]` and `bufs[1]`).
"""
import ast
import functools
from dataclasses import dataclass, field
from typing import Optional, Tuple

from .. import torch_model
from .row_ranges import ranges_disjoint

ANY_INDEX = "[*]"

# The class of the analysis's values, which are never changed once made: compared and hashed
# by their fields, but not frozen, since a frozen dataclass's __init__ sets each field through
# object.__setattr__, three times slower, and the analysis makes millions of them.
value_class = dataclass(slots=True, unsafe_hash=True)

# How a key's path marks what is not an attribute: an element ("[") and an object made ("@").
_NOT_ATTRIBUTE_MARKS = frozenset({"[", "@"})


@dataclass(slots=True)
class Key:
    # ("local", frame, name) / ("self", class) / ("global", module, name) / ("param", frame, name)
    root: Tuple
    path: Tuple[str, ...] = ()
    # The keys a followed call named the object by, where it made or fetched it and handed it
    # back (`bucket = self.allocate(...)`, its local `converted` there): what the call did to
    # those bytes was done to this key's. The caller names the object by its own local, so that
    # two paths' objects bound to that local join into one key.
    aliases: frozenset = frozenset()
    # The hash, once computed: keys index every path's attributes and accesses, and a
    # dataclass would hash its three fields anew at each lookup.
    _hash: int = field(default=0, init=False, compare=False, repr=False)

    def __hash__(self):
        if not self._hash:
            self._hash = hash((self.root, self.path, self.aliases))
        return self._hash

    def attribute(self, name):
        if self.aliases:
            return Key(self.root, self.path + (name,),
                       frozenset(alias.attribute(name) for alias in self.aliases))
        return Key(self.root, self.path + (name,))

    def made(self, number):
        """The key of the object made `number`th on a path and bound here: it shares no bytes
        with another object bound to the same name."""
        return Key(self.root, self.path + ("@%d" % number,))

    def common(self, other):
        """The key both name part of: the longest shared path (two objects bound to one name
        on two paths are that name's storage), or None. Two attributes of one object
        (`self.fwd_stash[i]` on one path, `self.tracker[i]` on the other) share no part of
        it: the object itself is neither."""
        if self.root != other.root:
            return None
        path = []
        for mine, theirs in zip(self.path, other.path):
            if mine != theirs:
                break
            path.append(mine)
        if not path and self.path and other.path and self.root[0] != "local":
            return None
        return Key(self.root, tuple(path), self.aliases | other.aliases)

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
        joined = VERSION_SEPARATOR.join(sorted(_versions(mine) | _versions(theirs)))
        return Key(self.root, self.path[:position] + (joined,) + self.path[position + 1:],
                   self.aliases | other.aliases)

    def unversioned(self):
        return Key(self.root, tuple(p for p in self.path if not p.startswith("@")))

    def without_spans(self):
        """The key with its spans of elements dropped: their bounds are one call's locals,
        which mean nothing to another call (which sees the slice as a view of its base)."""
        return Key(self.root, tuple(p for p in self.path if not p.startswith("[l:")))

    def element(self, index):
        if self.aliases:
            return Key(self.root, self.path + (index,),
                       frozenset(alias.element(index) for alias in self.aliases))
        return Key(self.root, self.path + (index,))

    def field_name(self):
        """The last attribute of the path (`param.ds_secondary_tensor` -> its name), the name
        objects of many kinds share across functions; None for a plain variable."""
        for part in reversed(self.path):
            if part[:1] not in _NOT_ATTRIBUTE_MARKS:
                return part
        return None

    def is_instance_alias(self):
        """Whether the key is an `instance_alias` or an attribute path under one."""
        return self.root[0] == "object" and len(self.root) == 2

    def instance_of(self):
        """The name of the class whose instance the key names (`self`, a new object, or a local
        a followed call handed one back to), or None."""
        if self.root[0] in ("self", "object") and not self.path:
            return self.root[1]
        classes = {alias.instance_of() for alias in self.aliases
                   if not alias.is_instance_alias()}
        return classes.pop() if len(classes) == 1 else None

    def owner(self):
        """What holds the object `field_name` is an attribute of, as (kind, name): the attribute
        (`param.grad._local_tensor` -> ("attribute", "grad")) or the variable
        (`new_param._local_tensor` -> ("variable", "new_param")); an element of a container
        kept in an attribute is held through that attribute (`self.stale[i].cpu` -> ("attribute",
        "stale")); `self`, for `self`'s own attributes (("instance", its class)); None for an
        element of a container no attribute names."""
        parts = [part for part in self.path if not part.startswith("@")]
        while parts and parts[-1].startswith("["):
            parts.pop()
        if len(parts) >= 2:
            if not parts[-2].startswith("["):
                return "attribute", parts[-2]
            holders = [part for part in parts[:-1] if not part.startswith("[")]
            return ("attribute", holders[-1]) if holders else None
        if parts and self.root[0] in ("local", "param", "global"):
            return "variable", self.root[-1]
        if parts and self.root[0] == "self":
            return "instance", self.root[1]
        return None

    def overlaps(self, other):
        if self.root[0] == "field" or other.root[0] == "field":
            return self._field_overlaps(other)
        if self.root != other.root:
            # An object known by its class only names none of the bytes another one does.
            return bool(self.aliases or other.aliases) and \
                (any(alias.overlaps(other) for alias in self.aliases
                     if not alias.is_instance_alias()) or
                 any(self.overlaps(alias) for alias in other.aliases
                     if not alias.is_instance_alias()))
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

    def held_by_an_attribute_of(self, other):
        """Whether the key names what an attribute of `other`'s object holds (`p._fp16_shard`
        of `p`): a reference of its own, which releasing `other`'s storage leaves alive."""
        length = len(other.path)
        return len(self.path) > length and self.root == other.root and \
            not self.path[length].startswith(("[", "@")) and \
            Key(self.root, self.path[:length]).overlaps(other)

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
VERSION_SEPARATOR = "|"


def _versions(part):
    return set(part.split(VERSION_SEPARATOR))


def constant_index(value):
    return "[c:%d]" % value


def other_than_index(symbol):
    """An element no value of `symbol` names (a ring neighbour: OtherThan)."""
    return "[o:%s]" % symbol


def label_index(label):
    """A dict's element under a constant string key (`self._streams["all_gather"]`): one of
    its own, apart from those under other keys."""
    return "[k:%r]" % (label,)


def affine_index(scale, offset, symbol):
    return "[s:%s:%d:%d]" % (symbol, scale, offset)


def indices_differ(a, b):
    """Whether two element indices are different for sure: two constants that differ, or two
    affine forms of one symbol that no integer makes equal (`i` and `1 - i`, `i` and `i + 1`),
    or two slices whose rows provably do not meet (`x[:, :1]` and `x[:, 1:h + 1]`), or two
    spans of several symbols one of which provably ends where the other starts."""
    if ANY_INDEX in (a, b):
        return False
    if a.startswith("[o:") or b.startswith("[o:"):
        other, named = (a, b) if a.startswith("[o:") else (b, a)
        return named.startswith("[s:") and _affine_parts(named) == (other[3:-1], 1, 0)
    if a.startswith("[l:") or b.startswith("[l:"):
        return _spans_disjoint(a, b)
    if a.startswith("[r|") and b.startswith("[r|"):
        return ranges_disjoint(a, b)
    if a.startswith("[c:") and b.startswith("[c:") or a.startswith("[k:") and b.startswith("[k:"):
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


@functools.lru_cache(maxsize=1 << 16)
def symbol_name(key):
    """An integer symbol's name: the key it was read from (same key, same unknown value). Asked
    again for each index arithmetic reads it in."""
    return key.text() + "@" + repr(key.root)


def linear_form(value):
    """An integer value as (terms, offset), each term (symbol, scale, least): a constant, one
    symbol's affine form, or a `Linear`; None for anything else."""
    if isinstance(value, Constant) and isinstance(value.value, int) and \
            not isinstance(value.value, bool):
        return (), value.value
    if isinstance(value, Integer):
        return ((value.symbol, value.scale, None),), value.offset
    if isinstance(value, Symbol) and value.key is not None:
        return ((symbol_name(value.key), 1, value.least),), 0
    if isinstance(value, Linear):
        return value.terms, value.offset
    return None


def combine_linear(a, b, sign=1):
    """a + sign * b, two linear forms, as the simplest value: a constant, one symbol's
    `Integer` (when nothing is known of its least value) or a `Linear`."""
    terms = {symbol: (scale, least) for symbol, scale, least in a[0]}
    for symbol, scale, least in b[0]:
        if symbol in terms:
            mine, known = terms[symbol]
            # One symbol is one value: what one side knows of its least value holds for both.
            terms[symbol] = (mine + sign * scale, least if known is None else known)
        else:
            terms[symbol] = (sign * scale, least)
    return linear_value(tuple(sorted((symbol, scale, least)
                                     for symbol, (scale, least) in terms.items() if scale)),
                        a[1] + sign * b[1])


def device_module_call(name):
    """(device module spelling, call) for a name like `torch.cuda.current_stream`."""
    head, _, call = name.rpartition(".")
    if head in torch_model.DEVICE_MODULES or head.endswith("_device_handle") \
            or head.endswith("device_handle") or head.endswith("get_accelerator()") \
            or head.endswith("get_device_module()"):
        return head, call
    return None, None


def least_of(value):
    """The least value an integer takes, when known: a constant's own, a symbol's known least,
    a linear form's whose terms all grow with their symbols; else None."""
    if isinstance(value, Constant) and isinstance(value.value, int) and \
            not isinstance(value.value, bool):
        return value.value
    if isinstance(value, Symbol):
        return value.least
    if isinstance(value, Linear) and all(scale > 0 and least is not None
                                         for _, scale, least in value.terms):
        return sum(scale * least for _, scale, least in value.terms) + value.offset
    return None


def scale_linear(form, factor):
    return linear_value(tuple((symbol, scale * factor, least) for symbol, scale, least in form[0]),
                        form[1] * factor)


def linear_value(terms, offset):
    if not terms:
        return Constant(offset)
    if len(terms) == 1 and terms[0][2] is None:
        return Integer(terms[0][0], terms[0][1], offset)
    return Linear(terms, offset)


def span_index(lower, upper):
    """The elements [lower, upper) of a sequence, its bounds linear forms: one element
    (`xs[base_i + rank]`, upper the lower plus one) or a slice (`xs[base_i:base_i + world_sz]`)."""
    return "[l:%r]" % ((lower, upper),)


_spans = {}


def _span(index):
    """An index as the linear forms of the elements [lower, upper) it names; None for a
    multi-dimensional range or an unknown element."""
    found = _spans.get(index)
    if found is not None:
        return found
    if index.startswith("[l:"):
        found = ast.literal_eval(index[3:-1])
    elif index.startswith("[c:"):
        value = int(index[3:-1])
        found = ((), value), ((), value + 1)
    elif index.startswith("[s:"):
        symbol, scale, offset = _affine_parts(index)
        terms = ((symbol, scale, None),)
        found = (terms, offset), (terms, offset + 1)
    else:
        return None
    _spans[index] = found
    return found


def _spans_disjoint(a, b):
    span_a, span_b = _span(a), _span(b)
    if span_a is None or span_b is None:
        return False
    return _never_more(span_a[1], span_b[0]) or _never_more(span_b[1], span_a[0])


def _never_more(x, y):
    """Whether x <= y for every value of their symbols: y - x is an offset of no less than
    zero plus symbols, each known to be no less than some value, taken a whole number of
    times (`rank` >= 0 in `base_i + world_sz + rank` against `base_i + world_sz`)."""
    difference = linear_form(combine_linear(y, x, -1))
    least = difference[1]
    for _, scale, known in difference[0]:
        if scale < 0 or known is None:
            return False
        least += scale * known
    return least >= 0


def _affine_parts(index):
    body = index[3:-1]
    symbol, scale, offset = body.rsplit(":", 2)
    return symbol, int(scale), int(offset)


def index_text(index):
    if index == ANY_INDEX or index.startswith(("[it:", "[r|", "[l:", "[o:")):
        return "[*]"
    if index.startswith(("[c:", "[k:")):
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
    # Host memory known not to be pinned (a factory's on the host without `pin_memory`): a
    # copy from it to the device has read it, and a copy into it is done, when the call
    # returns (docs/semantics.md rule 7).
    pageable: bool = False


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
    `wait()` orders them before the current stream (before the host, for a collective of host
    tensors)."""
    stream: str
    accesses: frozenset = frozenset()
    on_host: bool = False


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
    # The constant key of each item of a dict of streams, events or work handles, when every
    # item was stored under one (`handles["send"] = work`, `{"all_gather": Stream()}`): an item
    # per key and path, so that two paths joined may give a key two items.
    labels: Tuple = ()
    # Written out item by item (`[p]`, `(a, b)`): a loop over it binds each item itself, not
    # an element of what the item names (as for a list filled in a loop, whose one item stands
    # for everything appended).
    literal: bool = False

    def labelled(self):
        return len(self.labels) == len(self.items)


HANDLES = (Stream, Event, Work)


def listed(value):
    """Whether a value put into a list or dict is what the container's elements then stand
    for: a stream, an event, a work handle, a tensor or a view of one (`flat.narrow(...)`), a
    tuple holding one (`(rank, grad_slice)`), or a list to be filled with them (`[]`)."""
    if isinstance(value, (Stream, Event, Work)):
        return True
    if isinstance(value, (Tensor, Symbol)) and value.key.root[0] == "temporary":
        # Made by the expression (`tensors.append(p.data.to(device))`): binding it from the
        # list would take it for a new tensor at each binding, the last one's released.
        return False
    if isinstance(value, Tensor):
        return True
    if isinstance(value, Symbol):
        return value.partial
    if isinstance(value, Container) and value.key is None:
        return not value.items or any(listed(item) for item in value.items)
    return False


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


def join_lists(a, b):
    """Two lists of what `listed` names, built differently on two paths or by two stores
    (empty, then filled by append): a list of what either holds. None for other lists, whose
    elements the analysis does not name. Dicts of handles under constant keys keep each item's
    key."""
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
    if not all(listed(item) for item in items):
        return None
    return Container(items)


def sequence_arithmetic(op, left, right):
    """What `a + b` or `[x] * n` of lists or tuples holds: the elements of both, or of the one
    repeated. A list the analysis does not name (`gathered = self._all_gather(parts)`) plus a
    few it built (`gathered + [torch.empty_like(gathered[-1])] * pad`) stands for the unnamed
    one's elements, so that a slice of the sum and an element of the unnamed list meet. None for
    arithmetic that is not on lists."""
    built = [isinstance(v, Container) and v.key is None for v in (left, right)]
    if isinstance(op, ast.Mult) and any(built):
        return left if built[0] else right
    if not isinstance(op, ast.Add) or not any(built):
        return None
    if all(built):
        return Container(left.items + right.items)
    other = right if built[0] else left
    if isinstance(other, (Symbol, Container)) and not getattr(other, "partial", False):
        return other
    return None


@value_class
class Constant:
    value: object


@value_class
class OtherThan:
    """An integer no value of `symbol` equals: a ring neighbour, `(rank + step) % n` for a step
    of `range(1, n)`, which is never a whole turn."""
    symbol: str


@value_class
class Integer:
    """An integer the code computes from one unknown one: scale * symbol + offset. Indices of
    this form into one container name elements that may be told apart."""
    symbol: str
    scale: int = 1
    offset: int = 0


@value_class
class Linear:
    """An integer of several unknown ones: the sum of the terms (symbol, scale, least) and an
    offset, `least` the least value the symbol takes when known (a rank's 0, a world size's 1).
    A strided loop's index in its next iteration is one (`base_i + world_sz`), and so is an
    element a rank picks among it (`base_i + rank`)."""
    terms: Tuple = ()
    offset: int = 0


@value_class
class Range:
    """`range(...)`, or a strided slice of it (`range(n)[::world_sz]`): what its loop's variable
    is in the analysis's two iterations, the second `step` (a linear form) after the first.
    `least`: the least number of the range, when known (`range(n)`'s 0), so that a test the
    later iterations pass (`if index > 0:`) is decided in the second."""
    symbol: str
    step: object = ((), 1)
    least: Optional[int] = None


@value_class
class Symbol:
    """A name the analysis has no value for: what it is decides itself by use (a tensor when
    used as one, a stream when given where a stream goes)."""
    key: Key
    spelling: str = field(default="", compare=False)
    partial: bool = False
    # The least value, when it is an integer a call known to count returned (a rank, a length).
    least: Optional[int] = None


UNKNOWN = None


def instance_alias(class_name):
    """The alias of an object known only by its class (a parameter annotated with it): the
    streams, events and objects its attributes hold are what the class's methods store there.
    It names none of the bytes another object does, and calls on it are not taken to run that
    class's methods (whose other instances' tensors and flags would stand for its own)."""
    return Key(("object", class_name))


def may_be_one_owner(first, second, related_classes):
    """Whether the objects two owners (`Key.owner`) hold may be one, by their names, as the rule
    across calls matches attributes by name: not a gradient (held in an attribute or a variable
    whose name says so) and an object named otherwise, nor objects held in attributes of two
    names (as two attributes of two names hold two tensors), nor `self` of two classes neither
    of which derives from the other (`related_classes`). Two variables may be one object
    whatever their names (`state`, `fsdp_state`)."""
    if first is None or second is None or first[1] == second[1]:
        return True
    if first[0] == "instance" or second[0] == "instance":
        return first[0] != second[0] or related_classes(first[1], second[1])
    if _names_a_gradient(first[1]) != _names_a_gradient(second[1]):
        return False
    return not (first[0] == second[0] == "attribute")


def _names_a_gradient(name):
    return "grad" in name.lower()


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


def any_element(values):
    """Parts of one storage named by different elements or spans (`[buf[0:n], buf[n:2 * n]]`,
    one per loop iteration): one of them is some part of it. None where they differ otherwise."""
    first = values[0].key
    if any(v.key.root != first.root for v in values):
        return None
    # The longest common path, then one element index where they go on by indices alone (a
    # slice from the start is the buffer itself, partly).
    common = 0
    while all(len(v.key.path) > common and v.key.path[common] == first.path[common]
              for v in values):
        common += 1
    rests = [v.key.path[common:] for v in values]
    if any(not part.startswith("[") for rest in rests for part in rest):
        return None
    path = first.path[:common] + ((ANY_INDEX,) if all(rests) else ())
    key = Key(first.root, path)
    if all(isinstance(v, Tensor) for v in values):
        return Tensor(key, partial=True)
    # An element joined with its container (`recvd[0] if one else tuple(recvd)`): its name.
    return Symbol(key, next(v.spelling for v in values if isinstance(v, Symbol)), partial=True)


def is_coalescing(value):
    """Whether a value is a coalescing manager (`("coalescing", group stream, async_ops)`)."""
    return isinstance(value, tuple) and bool(value) and value[0] == "coalescing"
