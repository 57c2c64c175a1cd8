# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What a function hands to code the analysis cannot see while stream work on it still runs.

Calls of the package's functions are followed, so a caller in the package meets its callee's
pending work where it uses the result. A function that no function of the package calls by name
(a hook, a callback, a property, the package's API) hands its results to code outside: its
caller, whose later work on what it is returned comes right after the return, on the stream
current at the call (docs/semantics.md), and the reader of an attribute of an object it was
given, such as a CPU optimizer reading `param.grad`, on the host. Two rules:

- a host tensor that a non-blocking copy from the device may still be filling is returned, or
  stored into an attribute of an object the function was given (or of a global), and no way
  out of the function makes the host wait for the copy's stream (rule 7: such a copy makes the
  host wait only into pageable memory; `x.to("cpu", non_blocking=True)` allocates pinned memory,
  and a buffer made for asynchronous copies is taken as pinned, as the C++ analyzer does), or
  a tensor a non-blocking copy puts on a device the caller names and may name as the host
  (callers_device.py);
- a tensor that work on a side stream (one the code made or was given, not the current one) may
  still be writing is returned, and the caller's stream has not waited for that stream on the
  way to the return: work of the function's own path, or work another call of the package left
  pending on an attribute (a norm a gradient hook reduces on a side stream, returned by a
  property). Only the returning path's own waits count: code outside may call the function at
  any point, before another of the package's functions makes its wait. A class whose method
  does nothing but make the current stream wait for its streams (`wait()`) hands that wait to
  the caller, and its methods' results are not judged against those streams. A host wait for the
  writing stream anywhere in the package is the exception for work another call left: the
  program drains that stream (at the end of a step), and is taken at its word, as the rule
  across calls takes the package's orderings (escapes.py).
"""
import ast

from .. import torch_model as model
from .callers_device import device_chosen_by_caller
from .escapes import reaches_through, waits_graph
from .state import HOST, bytes_meet, contradict, touches_host_memory
from .syntax import breadth_first, nodes_under
from .values import Container, Key, Symbol, Tensor, may_be_one_owner

# Roots of keys naming objects that outlive the call and that code outside reads: an object the
# function was given, a module global.
_GIVEN_ROOTS = frozenset({"param", "global"})


class HandingOut:
    def __init__(self, analysis):
        self.analysis = analysis
        # Starting functions the learning pass saw hand out a host tensor still being filled:
        # walked again to report, whether or not they met several streams.
        self.handing_out_fills = set()
        self._waits_offered = {}   # id of a ClassInfo -> waits_offered's answer
        # Non-blocking copies to a device the caller names (callers_device.py), by the starting
        # function and the site of the copy: the name of that device, and where `non_blocking`
        # is set.
        self._copies_to_callers_device = {}

    def handed_on_while_copied(self, tensor, state, frame):
        """A host tensor a non-blocking copy still fills, given to code the analysis cannot see
        by a function that records an event the package synchronizes somewhere (an output
        object's constructor that starts the downloads, records their event, and hands the
        arrays on; a later call synchronizes the event): handed on, to be read once that
        event has passed, not read now."""
        facts, accesses = self.analysis.facts, self.analysis.accesses
        if not (tensor.on_host and facts.settled and facts.publishes_by_event(frame.function)):
            return False
        return any(touches_host_memory(access) and bytes_meet(access.key, tensor.key)
                   for access in map(accesses.__getitem__, state.pending))

    def read_outside(self, function):
        """Whether what the function returns is read by code the analysis cannot see: no
        function of the package calls it by name."""
        return not self.analysis.package.called_by_name(function)

    def may_return_a_side_write(self, function):
        """Whether the function, read outside, may return an attribute that a call of the
        package leaves written on a side stream: it names one and returns a value."""
        return bool(function.names & self.analysis.escapes.side_writes.keys()) and \
            self.read_outside(function) and \
            any(isinstance(node, ast.Return) and node.value is not None
                for node in breadth_first(function.node))

    def waits_offered(self, function):
        """The streams a method of the function's class waits for on the caller's behalf: one
        taking nothing but `self` whose body only makes the current stream wait for streams the
        object keeps (apex's `HaloPadder.wait()` after `__call__` returns the padded tensor
        that its streams still fill). Such a class hands that wait to its caller, as a
        collective's work handle does, so what its methods return while those streams run is
        no race of theirs. The names of the attributes holding those streams."""
        class_info = self.analysis.package.class_named(function.class_name, function.module) \
            if function.class_name else None
        if class_info is None:
            return frozenset()
        offered = self._waits_offered.get(id(class_info))
        if offered is None:
            offered = frozenset().union(*(
                _streams_waited_for(method) for method in class_info.methods.values()
                if method is not function and method.name != "__init__" and
                method.parameters() == (("self",), None, (), None)))
            self._waits_offered[id(class_info)] = offered
        return offered

    def copied_to_callers_device(self, args, kwargs, node, frame, walker):
        device = device_chosen_by_caller(args, kwargs, walker)
        if device is not None:
            self._copies_to_callers_device[walker.root, _site_key(walker.site(node, frame))] = (
                device.spelling, walker.site(kwargs["non_blocking"][1], frame))

    def callers_device_of(self, fill, walker):
        """(the device's name, where `non_blocking` is set) for a copy to a device the caller
        names; None for any other."""
        return self._copies_to_callers_device.get((walker.root, _by_site(fill)))

    # ---- the walk's events ----------------------------------------------------------------

    def returned(self, value, node, state, frame, walker):
        if frame.depth != 0 or not self.read_outside(frame.function):
            return
        site = walker.site(node, frame)
        statement = getattr(node, "_statement", None)
        made = walker.temporaries.get(getattr(value, "key", None))
        if isinstance(value, Tensor) and value.key.root[0] == "temporary" and (
                value.on_host or made is not None and
                (walker.root, _site_key(walker.site(made[1], frame))) in
                self._copies_to_callers_device):
            # `return x.to("cpu", non_blocking=True)`: the caller holds what the copy fills,
            # as a name would.
            value = walker.bind_new_tensor(value, Key(("local", frame.ident,
                                                       walker.spelling(node))), state, node)
        for item in _tensors(value):
            on_host = getattr(item, "on_host", False)
            fills = self.pending_fills(item.key, state) if isinstance(item, Tensor) else []
            device_choice = None
            if not on_host:
                fills = [fill for fill in fills if self.callers_device_of(fill, walker)]
                device_choice = self.callers_device_of(fills[0], walker) if fills else None
            if fills and _maker_synchronizes_after(frame.function):
                continue
            if fills or on_host:
                if fills and not self.analysis.reporting:
                    self.handing_out_fills.add(walker.root)
                elif fills:
                    walker.checks.handed_out_unsynchronized(
                        fills[0], item.key, None, site, statement, state, frame, walker,
                        returning=frame.function, device_choice=device_choice)
                continue
            if not self.analysis.reporting:
                continue
            caller = state.stream_at_entry(frame)
            # A name joined from two paths (a tensor kept on the device, or one staged back on
            # a side stream) is either object: the writes of each count, and the message names
            # the one written.
            key, writes, across_calls = item.key, [], False
            for view in getattr(item, "views", ()) or (item.key,):
                writes = self.unordered_side_writes(view, caller, state)
                if writes:
                    key = view
                    break
            if not writes:
                writes, across_calls = self.unordered_writes_of_other_calls(
                    item.key, caller, state), True
            offered = self.waits_offered(frame.function)
            writes = [write for write in writes if not _offered(write.stream, offered)]
            if writes:
                walker.checks.returned_unordered(writes, key, caller, site, statement,
                                                 state, frame, walker, across_calls)

    def stored(self, base, value, target, state, frame, walker):
        """`obj.attr = host_tensor` into an object the function was given: remembered, and
        reported at the function's return if the copy filling the tensor is still running."""
        if not isinstance(value, Tensor) or not value.on_host or \
                getattr(base, "key", None) is None or base.key.root[0] not in _GIVEN_ROOTS:
            return
        for fill in self.pending_fills(value.key, state):
            if not self.analysis.reporting:
                self.handing_out_fills.add(walker.root)
                return
            walker.handed_on.setdefault(fill.ident, (
                walker.site(target, frame), getattr(target, "_statement", None),
                walker.spelling(target)))

    def at_exit(self, function, exits, frame, walker):
        if not self.analysis.reporting or not walker.handed_on or \
                not self.read_outside(function):
            return
        accesses = self.analysis.accesses
        for ident, (site, statement, target) in walker.handed_on.items():
            fill = accesses[ident]
            # Reported when no way out of the function makes the host wait for the copy's
            # stream: a wait on some paths only (for an event, when one was recorded) is taken
            # as the program's knowledge of when the copy ran.
            left = [state for state in exits if ident in state.pending]
            if left and not any(fill.stream.key in state.host_synced_on_a_path or
                                "*" in state.host_synced_on_a_path for state in exits):
                walker.checks.handed_out_unsynchronized(fill, fill.key, target, site,
                                                        statement, left[0], frame, walker,
                                                        returning=function)

    # ---- what is still running --------------------------------------------------------------

    def pending_fills(self, key, state):
        """Device work on the path that may still be writing the host tensor `key`: a
        non-blocking copy into it. The earliest first."""
        accesses = self.analysis.accesses
        found = [accesses[ident] for ident in state.pending
                 if accesses[ident].writes() and accesses[ident].stream.key != HOST and
                 touches_host_memory(accesses[ident]) and accesses[ident].key.overlaps(key)]
        return sorted(found, key=_by_site)

    def unordered_side_writes(self, key, caller, state):
        """Writes of the tensor on a side stream, pending on this path, that the caller's stream
        has not waited for."""
        accesses = self.analysis.accesses
        found = []
        for ident, ordered in state.pending.items():
            access = accesses[ident]
            if access.writes() and access.stream.kind in ("created", "named") and \
                    access.key.overlaps(key) and \
                    not self.ordered_for(access, ordered, caller, state):
                found.append(access)
        return sorted(found, key=_by_site)

    def unordered_writes_of_other_calls(self, key, caller, state):
        """Writes of the attribute on a side stream that another call of the package leaves
        pending when it returns, that this path has not ordered the caller's stream after."""
        field = key.field_name()
        if field is None or key.root[0] not in ("self", "object", "param", "global"):
            return []
        accesses = self.analysis.accesses
        conditions = frozenset(state.conditions.items())
        found = []
        for ident, ordered in self.analysis.escapes.side_writes.get(field, {}).items():
            access = accesses[ident]
            if _last_name(access.key) != field and not (
                    access.key.root[0] == "local" and _last_name(access.key) is None):
                # An element or attribute of what the attribute holds, not its bytes (a local's
                # object is the attribute's through the store that put it there).
                continue
            if contradict(access.conditions, conditions) or \
                    not may_be_one_owner(key.owner(), access.key.owner(),
                                         self.analysis.escapes.related_classes) or \
                    self.ordered_for(access, ordered, caller, state) or \
                    access.stream.key in self.analysis.facts.host_waits:
                continue
            found.append(access)
        return sorted(found, key=_by_site)

    def ordered_for(self, access, ordered, caller, state):
        seen_by = {access.stream.key} | ordered
        if caller.key in seen_by or seen_by & state.host_synced or "*" in state.host_synced:
            return True
        return reaches_through(caller.key, seen_by, waits_graph(state.waited))


def _streams_waited_for(method):
    """The attributes of the object whose streams a method's body makes the current stream wait
    for, when that is all it does: `current.wait_stream(self.s)` (the current stream named by a
    call of `current_stream()` or a local bound to one). Empty for a body doing anything else."""
    current, waited = set(), set()
    for statement in method.node.body:
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue   # the docstring
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and \
                isinstance(statement.targets[0], ast.Name) and _names_current(statement.value, ()):
            current.add(statement.targets[0].id)
            continue
        call = statement.value if isinstance(statement, ast.Expr) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and
                call.func.attr == "wait_stream" and len(call.args) == 1 and
                _names_current(call.func.value, current) and
                isinstance(call.args[0], ast.Attribute) and
                isinstance(call.args[0].value, ast.Name) and call.args[0].value.id == "self"):
            return frozenset()
        waited.add(call.args[0].attr)
    return frozenset(waited)


def _offered(stream, offered):
    """Whether the stream is one of this object's attributes a wait method orders: named
    `self.<attribute>` where it was taken, or by the attribute alone."""
    spelling, key = stream.spelling, stream.key
    return spelling.startswith("self.") and spelling[len("self."):] in offered or \
        key.startswith("named:field:") and key[len("named:field:"):] in offered


def _names_current(node, current_names):
    if isinstance(node, ast.Name):
        return node.id in current_names
    if not isinstance(node, ast.Call) or node.args:
        return False
    called = node.func.attr if isinstance(node.func, ast.Attribute) else \
        node.func.id if isinstance(node.func, ast.Name) else None
    return model.DEVICE_CALLS.get(called) == "current_stream"


def _maker_synchronizes_after(function):
    """Whether the function is a closure whose maker makes the host wait for the device after
    defining it (`out = tree_map(to_host, batch)`, then `torch.cuda.synchronize()`): what the
    closure returns reaches code outside through the maker, once the copies are done."""
    maker = function.parent
    return maker is not None and any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and
        node.func.attr == "synchronize" and node.lineno > function.node.end_lineno
        for node in nodes_under(maker.node))


def _tensors(value):
    items = value.items if isinstance(value, Container) and value.key is None else (value,)
    return [item for item in items if isinstance(item, (Tensor, Symbol)) and
            item.key is not None and item.key.root[0] != "temporary"]


def _last_name(key):
    """The last part of the key's path that names something (not a version of the object)."""
    named = [part for part in key.path if not part.startswith("@")]
    return named[-1] if named else None


def _by_site(access):
    return _site_key(access.site)


def _site_key(site):
    return (site.path, site.line, site.column)
