# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What a method finds still running when it waits for a handle another method of its class kept:
`finish_grad_sync` waits for the reduction `start_grad_sync` kept in `self.grad_reduce_handle`.
The wait says the collective may still be running when the method starts; until then it may
still read or write the tensors it was given, and what the method does to them first is
unordered with it. The method's walk starts with those collectives pending, their handle kept in
the attribute, and the attribute not None.

The same holds for an event of the object another method records on a side stream: a method
that waits for it (`stream.wait_event(self.done)`, `self.done.wait()`) before recording it itself
finds that stream's work unordered until then. The package's waits for the event elsewhere,
which order other calls' uses (escapes.py), do not order what this method does first
(`streams_found_recorded`).

Left to next_call.py: a method that keeps a handle in the attribute itself after testing it
(`if self.handle is not None: self.handle.wait()` ... `self.handle = ...`), whose next call is
analysed from where its first ended. Left out: a wait under a test of anything but the handle
(`if self.workers > 1: self.handle.wait()`), which says when the collective was started in terms
the analysis may not relate to those of the method that started it (`if self.workers == 1:
return` there).
"""
import ast

from .facts import event_field_key
from .handle_wrappers import wrapper_of
from .next_call import own_attribute, own_attributes_stored
from .syntax import breadth_first, child_nodes
from .values import Container, Work


def outstanding_at_entry(walker, function, state, frame):
    """Start a method's walk with the collectives pending whose handles it waits for before
    keeping one of its own there. Returns the states the walk starts from: one, or one for each
    way the package keeps them where it keeps some in an object made to hold them and others
    as they are (Megatron-LM's layer-wise wrapper, or the coalescing manager, in one attribute):
    the attribute holds one or the other, and each is waited for as it waits."""
    analysis = walker.analysis
    found = handles_found_waited(analysis, function)
    listed_names = {name for name, listed in found if listed}
    prefix = "%s." % function.class_name
    starts = [state]
    for name, _ in found:
        kept = {}   # the keeping call's access -> the one this walk starts with
        for ident in analysis.facts.kept_in((function.class_name, name)):
            access = walker.accesses[ident]
            # What the keeping call's own parameters and locals decided is not this call's.
            conditions = frozenset((text, value) for text, value in access.conditions
                                   if text.startswith(prefix))
            if conditions != access.conditions:
                access = analysis.with_conditions(access, conditions)
            kept[ident] = access.ident
        if not kept:
            continue
        wrapper = analysis.facts.handle_wrappers.get((function.class_name, name))
        wrapped = {kept[i] for i in kept if i in analysis.facts.wrapped_handles} \
            if wrapper is not None else set()
        idents = set(kept.values())
        listed = name in listed_names
        if wrapped and wrapped != idents:
            split = []
            for start in starts:
                other = start.copy()
                _keep(walker, start, name, wrapped, wrapper, listed, frame)
                _keep(walker, other, name, idents - wrapped, None, listed, frame)
                split += [start, other]
            starts = split
        else:
            for start in starts:
                _keep(walker, start, name, idents, wrapper, listed, frame)
    return starts


def _keep(walker, state, name, idents, wrapper, listed, frame):
    """The attribute `name` holding the handles of the collectives `idents`, pending."""
    analysis = walker.analysis
    for ident in idents:
        state.pending.setdefault(ident, frozenset())
    streams = sorted({walker.accesses[ident].stream.key for ident in idents})
    handles = tuple(Work(stream, frozenset(i for i in idents
                                           if walker.accesses[i].stream.key == stream))
                    for stream in streams)
    if wrapper is not None:
        # Kept in an object made to hold them: its own methods wait for them, as they wait.
        class_name, field, inner_listed = wrapper
        inner = Container(handles) if inner_listed or len(handles) > 1 else handles[0]
        held, fields = wrapper_of(class_name, field, inner, next(analysis.object_numbers))
        state.attributes.update(fields)
    else:
        # A list of them where the method waits for its elements (`for handle in
        # self.handles`, `self.handles[-1]`); one handle where it waits for the attribute's, as
        # long as they are of one stream (a list's wait waits for each).
        held = Container(handles) if listed or len(handles) > 1 else handles[0]
    state.attributes[frame.self_key.attribute(name)] = held
    state.conditions["%s.%s is None" % (frame.function.class_name, name)] = False


def handles_found_waited(analysis, function):
    """The handle attributes whose collectives a method starts with pending, each with whether
    it waits for them as a list's elements (asked in the reporting pass, once every kept handle
    is known)."""
    if not analysis.reporting or not function.is_method() or "wait" not in function.names:
        return ()
    waited = analysis.handles_waited_first.get(function)
    if waited is None:
        holders = analysis.facts.handle_holders()
        again = analysis.calls_again(function)
        waited = analysis.handles_waited_first[function] = tuple(
            (name, listed) for name, listed in handles_waited_before_kept(function, holders)
            if name not in again) if holders else ()
    return waited


def handles_waited_before_kept(function, holders):
    """The attributes of the method's object, among those the package keeps collective handles
    in, that it waits for (`self.handle.wait()`, `self.handles[-1].wait()`) on a line before
    any that stores into them something other than None, each with whether as a list's
    elements."""
    names = {field for holder_class, field in holders
             if holder_class in (function.class_name, None)}
    if not names:
        return ()
    waited, stored, listed = {}, {}, set()
    guards = _enclosing_tests(function.node)
    for node in breadth_first(function.node):
        name = None
        if _waited_for(node) is not None:
            receiver = _waited_for(node)
            if isinstance(receiver, ast.Subscript):
                listed.add(own_attribute(receiver.value))
            while isinstance(receiver, ast.Subscript):
                receiver = receiver.value
            name = own_attribute(receiver)
        elif isinstance(node, ast.For) and isinstance(node.target, ast.Name) and \
                own_attribute(_iterated(node.iter)) in names and any(
                    isinstance(_waited_for(inner), ast.Name) and
                    _waited_for(inner).id == node.target.id for inner in breadth_first(node)):
            # `for handle in self.handles: handle.wait()`
            name = own_attribute(_iterated(node.iter))
            listed.add(name)
        else:
            for kept in own_attributes_stored(node) & names:
                stored[kept] = min(stored.get(kept, node.lineno), node.lineno)
        if name in names and node.lineno < waited.get(name, (node.lineno + 1, None))[0]:
            waited[name] = (node.lineno, guards.get(id(node), ()))
    # A wait under a test of something else (`if self.world_size > 1:`) says when the collective
    # was started, in terms the analysis may not relate to the starting method's: left out.
    return tuple(sorted((name, name in listed) for name, (line, tests) in waited.items()
                        if stored.get(name, line + 1) > line and
                        all(_mentions(test, name) for test in tests)))


def streams_found_recorded(analysis, function):
    """The streams the method's object's events are recorded on by other methods, for the events
    the method waits for before it records them (asked in the reporting pass, once every record
    is known)."""
    if not analysis.reporting or not function.is_method() or \
            not function.names & {"wait_event", "wait", "synchronize"}:
        return frozenset()
    found = analysis.streams_recorded_elsewhere.get(function)
    if found is None:
        found = analysis.streams_recorded_elsewhere[function] = frozenset(
            stream for name in events_waited_before_recorded(function)
            for stream in analysis.facts.recorded_streams(event_field_key(name)))
    return found


def events_waited_before_recorded(function):
    """The attributes of the method's object it waits for as events (`s.wait_event(self.e)`,
    `self.e.wait()`, `self.e.synchronize()`), on a line before any that records one there, with
    no test of anything else around the wait."""
    waited, recorded = {}, {}
    guards = _enclosing_tests(function.node)
    for node in breadth_first(function.node):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        method = node.func.attr
        if method == "wait_event" and len(node.args) == 1:
            name = own_attribute(node.args[0])
        elif method in ("wait", "synchronize"):
            name = own_attribute(node.func.value)
        elif method in ("record", "record_event"):
            name = own_attribute(node.func.value)
            if name is not None:
                recorded[name] = min(recorded.get(name, node.lineno), node.lineno)
            continue
        else:
            continue
        if name is not None and node.lineno < waited.get(name, (node.lineno + 1, None))[0]:
            waited[name] = (node.lineno, guards.get(id(node), ()))
    return tuple(sorted(name for name, (line, tests) in waited.items()
                        if recorded.get(name, line + 1) > line and
                        all(_mentions(test, name) for test in tests)))


def _enclosing_tests(function_node):
    """Each node under the function -> the tests of the `if`s and `while`s it is under."""
    tests = {}
    pending = [(function_node, ())]
    while pending:
        node, enclosing = pending.pop()
        for child in child_nodes(node):
            inner = enclosing + (node.test,) if isinstance(node, (ast.If, ast.While)) and \
                child is not node.test else enclosing
            tests[id(child)] = inner
            pending.append((child, inner))
    return tests


def _mentions(test, name):
    return any(own_attribute(node) == name for node in breadth_first(test))


def _waited_for(node):
    """The receiver of `receiver.wait()`, else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            node.func.attr == "wait" and not node.args:
        return node.func.value
    return None


def _iterated(node):
    """The container a loop goes over: `self.handles`, `self.handles.values()`,
    `reversed(self.handles)`."""
    if isinstance(node, ast.Call) and not node.args and isinstance(node.func, ast.Attribute) and \
            node.func.attr == "values":
        return node.func.value
    if isinstance(node, ast.Call) and len(node.args) == 1 and isinstance(node.func, ast.Name) and \
            node.func.id == "reversed":
        return node.args[0]
    return node
