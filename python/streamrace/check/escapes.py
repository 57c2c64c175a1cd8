# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Races between two calls: work a function leaves pending on an object's attribute when it
returns, met by another function's access of the same attribute on another stream.

A training step is many calls from outside the package (hooks, the engine's step, a prefetch):
no path the analysis follows holds both the copy into `param.ds_secondary_tensor` and the
all-gather that reads it on the all-gather stream. So the first pass keeps, per attribute name,
the accesses each function leaves pending at its return; the second reports a later access of
that attribute on a stream that is different for sure, one that nothing in the whole package
orders after the earlier access's stream (no wait_stream or event between the two streams in
that direction, anywhere), when the path to it has not made the host wait for that stream
either. A program that orders the two streams somewhere, or makes the host wait for the earlier
side stream somewhere, is taken at its word, except where the earlier access is a collective
whose work handle is kept in an attribute that nothing waits for: a wait for another handle
orders that handle's work only, so only the later path's own waits order it (facts.py,
`ordered_by_its_handle_only`).
"""
from .outstanding_handles import streams_found_recorded
from .state import AMBIENT, HOST, bytes_meet, contradict, may_be_same_stream, touches_host_memory
from .values import Symbol, Tensor, may_be_one_owner


class Escapes:
    def __init__(self, analysis):
        self.analysis = analysis
        self.by_field = {}        # attribute name -> {access ident: streams ordered after it}
        # (attribute name, access ident) -> the owners it was held through (`Key.owner`), and
        # the functions whose calls left it pending
        self.owners = {}
        self.leavers = {}
        self.side_fields = set()  # attributes accessed on a stream other than the current one
        # (owner, attribute name): host memory a call leaves a non-blocking copy filling or
        # reading, in an attribute of an object held as `owner` (`Key.owner`); a function that
        # names both (`self` of a related class, or the holding attribute) is checked whatever
        # else it does.
        self.host_copies = set()
        self.host_views = None    # host_copies_and_views(), once the package is walked
        # attribute name -> {write ident: streams ordered after it}: what a call leaves writing
        # an attribute on a side stream when it returns, the tensor made there included (a
        # norm computed on a reduction stream), for whoever returns the attribute to code
        # outside the package (handing_out.py).
        self.side_writes = {}
        # The package's waits with a path's own, for each path's `waited` met: the graph, and
        # each stream's reach in it once asked (`check` asks the same few streams for every
        # entry of a field). Checks run in the reporting pass only, where the package's waits
        # no longer change.
        self.wait_graphs = {}
        self.field_groups = {}    # attribute name -> groups_of(attribute), in the reporting pass
        # (attribute name, method, class name) -> may_be_called_through(...)
        self.called_through = {}
        self.functions_naming = {}   # attribute name -> the package's functions naming it
        self.callers_judge = {}      # function -> judged_in_callers(function)
        # Methods whose leftover work is not taken across calls: driven_by_unseen_code.
        self.left_to_unseen_bases = set()

    def left_pending(self, function, exit_state):
        """What `function` leaves pending when it returns, on objects that outlive the call:
        attributes of `self`, of its parameters and of globals, and a local's object once an
        attribute holds it (`param.ds_secondary_tensor = buffer`)."""
        if self.driven_by_unseen_code(function):
            return
        accesses = self.analysis.accesses
        # What the function returns is the caller's to order (`copy_to_cpu()` handing back the
        # host buffer its copy still fills); handing_out.py judges the return itself.
        returned = self.analysis.returned_keys.get(function, ())
        # Work an event the function returns was recorded after is the caller's to wait for
        # (Megatron-LM's bookkeeping upload hands back its done event).
        handed_over = frozenset().union(*(
            exit_state.events[event][0] for event in
            self.analysis.returned_events.get(function, ()) if event in exit_state.events))
        held = {}
        for attribute, value in exit_state.attributes.items():
            if isinstance(value, (Tensor, Symbol)) and value.key.root[0] == "local":
                held[value.key] = attribute
        for ident, ordered in exit_state.pending.items():
            access = accesses[ident]
            if access.key.root[0] == "temporary" or ident in handed_over or \
                    any(bytes_meet(access.key, key) for key in returned):
                continue
            on_side_stream = access.stream.kind in ("created", "named")
            if access.creation:
                if access.api.endswith(" (allocation)"):
                    continue
                if on_side_stream:
                    self.note_side_write(access, ordered, held)
                # A tensor made on a stream other than the caller's is filled after the call
                # returns: a later call's use of the attribute holding it meets its making (a
                # non-blocking copy to the host on any such stream, a prefetch to the device on
                # a side stream). On the caller's stream, as what a function returns, the making
                # is its caller's to order.
                if access.stream.kind in ("ambient", "default") or \
                        not (on_side_stream or touches_host_memory(access)):
                    continue
            holder = self.holder(access, held)
            field = holder.field_name() if holder is not None else None
            if field is None:
                continue
            if access.stream.kind not in ("ambient", "default"):
                self.side_fields.add(field)
            owner = holder.owner()
            if owner is not None and owner[0] != "variable" and touches_host_memory(access):
                self.host_copies.add((owner, field))
            entries = self.by_field.setdefault(field, {})
            entries[ident] = entries.get(ident, ordered) & ordered
            self.owners.setdefault((field, ident), set()).add(owner)
            self.leavers.setdefault((field, ident), set()).add(function)
            if access.writes() and on_side_stream and not access.creation:
                self.note_side_write(access, ordered, held)

    def driven_by_unseen_code(self, function):
        """Whether a method may be called by code of its own project that the files given do
        not hold: its class derives from a class imported from another module of the project
        (the same top-level package) that is not among them, and no function given calls it
        by name. That base calls it at points the analysis cannot see, where it may have
        entered a side stream or drained the streams (DeepSpeed's ZeRO-3 subclasses override
        `partition_grads`, which the base calls under its reduction stream)."""
        if function.class_name is None or function.name == "__init__":
            return False   # a constructor runs where its object is made, not from its base
        package = self.analysis.package
        if package.called_by_name(function):
            return False
        class_info = package.class_named(function.class_name, function.module)
        project = function.module.dotted.split(".")[0]
        for base in class_info.bases if class_info is not None else ():
            imported = function.module.imports.get(base.split(".")[0], "")
            if imported.split(".")[0] == project and \
                    package.class_named(base.split(".")[-1], function.module) is None:
                self.left_to_unseen_bases.add(function.qualified_name)
                return True
        return False

    def ordered_at_return(self, access, field):
        """The streams ordered after an access left pending on the attribute `field`, by the
        time the calls that left it returned."""
        return self.by_field.get(field, {}).get(access.ident, frozenset())

    def note_side_write(self, access, ordered, held):
        holder = self.holder(access, held)
        field = holder.field_name() if holder is not None else None
        if field is None:
            return
        entries = self.side_writes.setdefault(field, {})
        entries[access.ident] = entries.get(access.ident, ordered) & ordered

    @staticmethod
    def holder(access, held):
        """The key of the attribute through which the access's object outlives the call, or
        None."""
        if access.key.root[0] in ("local", "object"):
            # The attribute that holds the object the access is in.
            return next((attribute for key, attribute in held.items()
                         if key.root == access.key.root and
                         access.key.path[:len(key.path)] == key.path), None)
        return access.key

    def fields_unordered_for_the_current_stream(self):
        """Attributes some call leaves pending on another stream that nothing in the package
        ever orders the current stream after: only there can a function that uses the current
        stream alone meet another call's work."""
        accesses = self.analysis.accesses
        facts = self.analysis.facts
        waits = facts.waits
        found = set()
        for field, entries in self.by_field.items():
            for ident, ordered in entries.items():
                stream = accesses[ident].stream
                if stream.kind in ("ambient", "default"):
                    continue
                if not reaches(AMBIENT.key, {stream.key} | ordered, waits) or \
                        facts.ordered_by_its_handle_only(ident):
                    found.add(field)
                    break
        return frozenset(found)

    def note_access(self, access):
        field = access.key.field_name()
        if field is not None and access.stream.kind not in ("ambient", "default", "host"):
            self.side_fields.add(field)

    def writes_escaping_field(self, function):
        """Whether a function may write an attribute some function uses on a side stream: it
        names one and calls an in-place method."""
        return bool(function.names & self.side_fields) and any(
            name.endswith("_") and not name.startswith("_") for name in function.calls)

    def check(self, access, state, frame, walker):
        field = access.key.field_name()
        # A tensor this run made is no object another call's work was left pending on: only
        # its making can meet that work (a block still in use), which the creation reports.
        if field is None or access.creation or access.key.made_in_the_call():
            return
        groups = self.groups_of(field)
        if not groups:
            return
        stream, host = access.stream, access.stream.key == HOST
        synced = state.host_synced
        met = []
        facts = self.analysis.facts
        # Streams the method waits for itself, for an event another method recorded there
        # (outstanding_handles.py): until it does, the package's other waits do not count.
        own = streams_found_recorded(self.analysis, walker.root)
        in_callers = self.judged_in_callers(walker.root)   # for the host's own waits
        for earlier_stream, seen_by, seen_by_any_group, members in groups:
            # Whether the two streams are ordered is one answer for the whole group.
            if earlier_stream.key == stream.key:
                continue
            if not host:
                if may_be_same_stream(earlier_stream, stream) or stream.key in seen_by or \
                        self.synchronized_somewhere(earlier_stream):
                    continue
                if earlier_stream.key in own:
                    if not seen_by_any_group.isdisjoint(
                            reachable(stream.key, waits_graph(state.waited))):
                        continue
                elif not self.reach(stream.key, state.waited, facts).isdisjoint(
                        seen_by_any_group):
                    # The package orders the two streams somewhere, which is taken at its
                    # word, except for collectives kept behind handles nothing waits for:
                    # only this path's own waits order those.
                    members = [member for member in members
                               if facts.ordered_by_its_handle_only(member[1].ident)]
                    if not members or not seen_by_any_group.isdisjoint(
                            reachable(stream.key, waits_graph(state.waited))):
                        continue
            if "*" in synced or not seen_by.isdisjoint(synced):
                continue
            provisional = host and earlier_stream.kind in ("ambient", "default") and in_callers
            met += [member + (provisional,) for member in members
                    if self.may_meet(member, access, state, walker)]
        for _, earlier, _, _, provisional in sorted(met, key=lambda member: member[0]):
            walker.checks.unordered(earlier, access, state, frame, walker, across_calls=True,
                                    unless_followed=walker.root if provisional else None)

    def judged_in_callers(self, function):
        """Whether the host's waits for the current stream before a function runs are its
        callers' to show: a private function the package calls by name (vLLM's input preparation
        runs under a context that synchronizes the previous step's event first). Walked alone, it
        would take the earlier calls' copies on the current stream as never waited for; what
        it finds so stands only where no caller's walk followed it (checks.finish)."""
        judged = self.callers_judge.get(function)
        if judged is None:
            name = function.name
            judged = self.callers_judge[function] = \
                name.startswith("_") and not name.endswith("__") and \
                function not in self.analysis.package.hooks and \
                self.analysis.package.called_by_name(function)
        return judged

    def synchronized_somewhere(self, stream):
        """Whether the package makes the host wait for a side stream of its own somewhere
        (`self.reduction_stream.synchronize()` at the end of backward): like a wait, taken as
        the program's intent to finish that stream's work before other calls use it. Not the
        current stream, which a host read (`.item()`) waits for in passing."""
        return stream.kind in ("created", "named") and \
            stream.key in self.analysis.facts.host_waits

    def groups_of(self, field):
        """The accesses left pending on `field`, grouped by their stream and the streams
        ordered after them: (stream, those streams with it, the same with every process group's
        stream, [(position, access, owners)]). Made once per field in the reporting pass, where
        what calls leave pending no longer changes; a check asks the same field thousands of
        times, and most groups are ordered before the access as a whole."""
        groups = self.field_groups.get(field)
        if groups is None:
            by_ordering = {}
            accesses = self.analysis.accesses
            for position, (ident, ordered) in enumerate(self.by_field.get(field, {}).items()):
                earlier = accesses[ident]
                stream = earlier.stream
                key = (stream.key, stream.kind, stream.storage, ordered)
                if key not in by_ordering:
                    seen_by = frozenset({stream.key} | ordered)
                    by_ordering[key] = (stream, seen_by, frozenset(_with_every_group(seen_by)),
                                        [])
                by_ordering[key][3].append((position, earlier, self.owners[(field, ident)],
                                            self.leavers[(field, ident)]))
            groups = self.field_groups[field] = list(by_ordering.values())
        return groups

    def related_classes(self, first, second):
        """Whether an object of one class may be an object of the other: one derives from the
        other (by the names of their bases in the package)."""
        return second in self.analysis.package.ancestors(first) or \
            first in self.analysis.package.ancestors(second)

    def may_meet(self, member, access, state, walker):
        """Whether an access left pending by another call may touch what `access` touches, on a
        path that may hold both, one of them writing."""
        _, earlier, owners, leavers = member
        if earlier.ident in state.pending:
            return False
        site = access.site
        if earlier.site.line == site.line and earlier.site.column == site.column and \
                earlier.site.path == site.path:
            return False
        if not (access.writes() or earlier.writes()):
            return False
        if earlier.partial and access.partial:
            return False   # two parts of one buffer, in two calls: nothing says they meet
        if access.stream.key == HOST and not touches_host_memory(earlier):
            return False
        owner = access.key.owner()
        if not any(may_be_one_owner(owner, earlier_owner, self.related_classes) and
                   self.may_run_on_held(owner, earlier_owner, walker, leavers)
                   for earlier_owner in owners):
            return False   # `param.grad._local_tensor` and `new_param._local_tensor`
        if earlier.creation and not self.own_object(owner, owners):
            return False   # another object's attribute of that name holds another tensor
        return not contradict(earlier.conditions, access.conditions)

    def reads_host_copies(self, function):
        """Whether a function may read host memory another call left a copy on: it names the
        attribute, one the package keeps host tensors in only, and the attribute holding its
        object or, for `self`'s own attribute, is a method of a related class."""
        host_fields = self.analysis.facts.host_fields
        return any(
            field in function.names and host_fields.get(field, False) and (
                holder in function.names if kind == "attribute" else
                function.class_name is not None and (
                    holder == function.class_name or
                    self.related_classes(holder, function.class_name)))
            for (kind, holder), field in self.host_copies_and_views())

    def host_copies_and_views(self):
        """`host_copies`, with the attributes of `self` the package keeps a view of such an
        attribute in (`self.counts_np = self.counts_cpu.numpy()`), read under their own name."""
        if self.host_views is None:
            copied = {field for _, field in self.host_copies}
            self.host_views = set(self.host_copies) | {
                (("instance", key.root[1]), key.field_name())
                for key, value in self.analysis.facts.values.items()
                if key.root[0] == "self" and isinstance(value, Tensor) and
                value.key.field_name() in copied}
        return self.host_views

    def may_run_on_held(self, owner, earlier_owner, walker, leavers):
        """Where one of the two accesses is of an object known by its class and the other of an
        object held in an attribute: whether the first may be the attribute's object. Objects
        held under two attribute names are taken as two (as for tensors); so one of a buffer
        class's many objects, kept by one class, meets the methods the package calls on it, not
        every method of the buffer class run for the others. An attribute that only ever holds
        new objects of classes unrelated to the first's holds another object. A method walked
        on its own may run on the attribute's object where the package calls that method on
        it; a walk that reached the object from outside its class met it only if what the walk
        followed names the attribute."""
        if owner is None or earlier_owner is None or owner[0] == earlier_owner[0]:
            return True
        instance, held = (owner, earlier_owner) if owner[0] == "instance" else \
            (earlier_owner, owner)
        if instance[0] == "instance" and held[0] == "attribute":
            classes = self.analysis.package.classes_held_in(held[1])
            if classes is not None and not any(self.related_classes(name, instance[1])
                                               for name in classes):
                return False   # the attribute holds objects of other classes only
        if owner[0] == "instance" and earlier_owner[0] == "attribute":
            root, field = walker.root, earlier_owner[1]
            if root.class_name is None or \
                    not self.related_classes(root.class_name, owner[1]):
                return field in root.names or \
                    any(field in function.names for function in walker.followed)
            return self.may_be_called_through(field, root, owner[1], frozenset(leavers))
        if owner[0] == "attribute" and earlier_owner[0] == "instance":
            return any(self.may_be_called_through(owner[1], leaver, earlier_owner[1])
                       for leaver in leavers)
        return True

    def may_be_called_through(self, field, method, class_name, leavers=frozenset()):
        """Whether `method`, walked with `self` an object of `class_name`, may run on an object
        the attribute `field` holds: a function naming the attribute names the method (or the
        class, for `__init__`), or names a method of a related class that calls it on `self`.
        Methods Python calls by itself (other double-underscore ones) may always. `leavers`, the
        functions that left the work the walk meets, do not count: their calls of the method
        are walked with them, on the stream current there, not as the method on its own."""
        found = self.called_through.get((field, method, class_name, leavers))
        if found is not None:
            return found
        package = self.analysis.package
        class_info = package.class_named(method.class_name) if method.class_name else None
        if class_info is None or class_info.methods.get(method.name) is not method or \
                not self.related_classes(method.class_name, class_name):
            return True
        naming = [function for function in self.naming_functions(field)
                  if function not in leavers]
        related = [info for infos in package.classes_by_name.values() for info in infos
                   if self.related_classes(info.name, class_name)]
        found, reached, pending = False, set(), [method]
        while pending and not found:
            callee = pending.pop()
            if callee in reached:
                continue
            reached.add(callee)
            name = callee.name
            if name.startswith("__") and name.endswith("__") and name != "__init__":
                found = True
                break
            called_as = callee.class_name if name == "__init__" else name
            found = any(called_as in function.names for function in naming)
            pending += [caller for info in related for caller in info.methods.values()
                        if caller not in reached and name in caller.names]
        self.called_through[(field, method, class_name, leavers)] = found
        return found

    def naming_functions(self, field):
        """The package's functions that name an attribute; not a module's body, whose names
        are those of every function in it."""
        found = self.functions_naming.get(field)
        if found is None:
            found = self.functions_naming[field] = [
                function for function in self.analysis.package.all_functions()
                if field in function.names and function.name != "<module>"]
        return found

    def own_object(self, owner, owners):
        """Whether an access through `owner` is of the object of a class whose method made the
        tensor and kept it in `self`: the one holder known to hold that very tensor."""
        return owner is not None and owner[0] == "instance" and any(
            held is not None and held[0] == "instance" and
            (held[1] == owner[1] or self.related_classes(held[1], owner[1]))
            for held in owners)

    def reach(self, stream, waited, facts):
        """The streams `stream` waited for, directly or through others, with the package's
        waits and a path's own (`waited`): what reaches_through walks, found once."""
        graph = self.wait_graphs.get(waited)
        if graph is None:
            graph = self.wait_graphs[waited] = (waits_graph(facts.waits | waited), {})
        edges, reached = graph
        found = reached.get(stream)
        if found is None:
            found = reached[stream] = frozenset(reachable(stream, edges))
        return found


def reaches(stream, targets, waits):
    """Whether `stream` waited, directly or through streams it waited for, for one of
    `targets` ("collective:*": every process group's stream)."""
    return reaches_through(stream, targets, waits_graph(waits))


def waits_graph(waits):
    """(waiter, waited) pairs as each waiter's set of streams waited for."""
    waited_by = {}
    for waiter, waited in waits:
        waited_by.setdefault(waiter, set()).add(waited)
    return waited_by


def reaches_through(stream, targets, waited_by):
    return not _with_every_group(targets).isdisjoint(reachable(stream, waited_by))


def reachable(stream, waited_by):
    """The streams at the end of one wait or more from `stream` (itself only through a
    cycle)."""
    seen, found, frontier = {stream}, set(), [stream]
    while frontier:
        for waited in waited_by.get(frontier.pop(), ()):
            found.add(waited)
            if waited not in seen:
                seen.add(waited)
                frontier.append(waited)
    return found


def _with_every_group(targets):
    """A wait for every process group's stream ("collective:*") sees a collective's."""
    return set(targets) | {"collective:*" for t in targets if t.startswith("collective:")}
