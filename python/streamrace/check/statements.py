# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Statements: how each moves the set of paths the analysis follows through a function.

Paths stay apart through branches (a stream chosen in one `if` and used under the same condition
later stays that stream) until there are more than MAX_PATHS, when they are joined. A loop's body
runs twice, so that what one iteration leaves pending meets the next iteration's accesses. `raise`
ends a path without returning; `return` hands its state to the caller.
"""
import ast

from .. import torch_model as model
from .condition_texts import (async_flag_texts, asserted_on_host, compared_with_a_bool,
                              is_not_none, none_test,
                              optional_stream, polling_flags, polls_completion)
from .kept_names import event_keys_in
from .generator_contexts import GeneratorContext
from .state import UNKNOWN_RECORD_STREAM, join_all
from .syntax import breadth_first, child_nodes, expression_name
from .values import (CoalescingContext, Constant, Container, Function, Integer, Range, Stream,
                     StreamContext, Symbol, Tensor)

MAX_PATHS = 4


class Frame:
    """One function's activation: its locals live in each path's state under this frame's
    ident; `returns` collects the states and values its `return` statements hand back."""
    __slots__ = ("ident", "function", "class_info", "module", "returns", "loops", "depth",
                 "chain", "call_sites", "self_key", "enclosing", "given_conditions", "shadowed")

    def __init__(self, ident, function, class_info, depth, chain):
        self.ident = ident
        self.function = function
        self.class_info = class_info
        self.module = function.module
        self.returns = []
        # Per enclosing loop: [break states, continue states, the names it binds anew].
        self.loops = []
        self.depth = depth
        self.chain = chain   # call sites from the analysis's starting function to here
        self.call_sites = tuple(site for site, _ in chain)   # the sites alone, for each access
        self.self_key = None
        self.enclosing = None  # the frame of the function a closure was defined in
        self.given_conditions = None  # parameter -> the caller's condition (given_conditions.py)
        self.shadowed = None   # the caller's conditions its parameters shadow (the same)


def merge_paths(paths, stream_conditions=frozenset(), max_paths=None):
    """The paths, identical ones once; past `max_paths` (MAX_PATHS), those that agree on the
    conditions that decide stream work and on the streams chosen for later work are joined
    (their other differences are lost), then all of them."""
    if len(paths) < 2:
        return list(paths)
    max_paths = max_paths or MAX_PATHS
    unique = []
    for state in paths:
        for other in unique:
            if state.same_as(other):
                break
        else:
            unique.append(state)
    if len(unique) <= max_paths:
        return unique
    groups = {}
    for state in unique:
        conditions = state.conditions
        signature = (state.current.key, _streams_chosen(state), tuple(sorted(
            (text, conditions[text]) for text in conditions.keys() & stream_conditions)))
        groups.setdefault(signature, []).append(state)
    # Joined past the limit, paths that decided conditions of stream work differently lose
    # them: the work only some of them hold keeps those conditions (State._narrowed).
    if len(groups) <= max_paths:
        return [join_all(group, stream_conditions) for group in groups.values()]
    return [join_all(unique, stream_conditions)]


class StatementWalker:
    def block(self, statements, paths, frame):
        for statement in statements:
            if not paths:
                break
            paths = self.statement(statement, paths, frame)
            if len(paths) > 1:   # most statements are reached on one path: nothing to merge
                paths = self.merge(paths)
            self.spent += 1
        return paths

    def merge(self, paths):
        return merge_paths(paths, self.package.stream_conditions)

    def statement(self, node, paths, frame):
        kind = type(node)
        handler = _STATEMENT_HANDLERS.get(kind, _MISSING)
        if handler is _MISSING:
            handler = _STATEMENT_HANDLERS[kind] = getattr(type(self), "stmt_" + kind.__name__,
                                                          None)
        if handler is None:
            return paths
        return handler(self, node, paths, frame)

    def each(self, paths, action):
        for state in paths:
            action(state)
        return paths

    # ---- simple statements ----------------------------------------------------------------

    def outcomes(self, value_node, state, frame):
        """(state, value) after evaluating a statement's expression: one, or one per path out of
        the function its top call was followed into."""
        saved = self.statement_call, self.split_exits
        self.statement_call = value_node if isinstance(value_node, ast.Call) else None
        self.split_exits = None
        value = self.evaluate(value_node, state, frame)
        split = self.split_exits
        self.statement_call, self.split_exits = saved
        return split if split else [(state, value)]

    def flag_paths(self, expressions, paths, frame):
        """The paths a statement starts on: apart by each flag that makes one of its calls
        asynchronous (`async_op=async_op`) and that the package tests again, where the path has
        not decided it, so that the collective's work is pending where `if async_op:` keeps its
        handle, and waited for at once where it is not."""
        texts = []
        for expression in expressions:
            texts += self.async_flags(expression, frame)
        for text in texts:
            paths = _decided_both_ways(paths, text)
        return paths

    def async_flags(self, expression, frame):
        return self.per_class(expression, "_async_flags", frame, self._async_flags)

    def _async_flags(self, expression, class_name):
        return tuple(text for node in breadth_first(expression) if isinstance(node, ast.Call)
                     for text in async_flag_texts(node, class_name)
                     if text in self.package.correlated)

    def stmt_Expr(self, node, paths, frame):
        out = []
        for state in self.flag_paths((node.value,), paths, frame):
            out += [after for after, _ in self.outcomes(node.value, state, frame)]
        moved = _module_moved(node.value)
        if moved is not None:
            # `model.cuda()` for its effect: a module's parameters moved in place, on the
            # current stream (a tensor's copy, dropped, would do nothing).
            for state in out:
                module = self.evaluate(moved, state, frame)
                if getattr(module, "key", None) is not None:
                    self.moved_modules.add(module.key)
                self.access(module, "write", node.value.func.attr, moved, state, frame)
        return out

    def stmt_Assign(self, node, paths, frame):
        out = []
        for state in self.flag_paths((node.value,), paths, frame):
            for after, value in self.outcomes(node.value, state, frame):
                for target in node.targets:
                    self.assign(target, value, node.value, after, frame)
                out.append(after)
        return out

    def stmt_AnnAssign(self, node, paths, frame):
        if node.value is None:
            return paths

        def assign(state):
            value = self.evaluate(node.value, state, frame)
            self.assign(node.target, value, node.value, state, frame)
        return self.each(paths, assign)

    def stmt_AugAssign(self, node, paths, frame):
        return self.each(paths, lambda state: self.augmented_assign(node, state, frame))

    def stmt_Assert(self, node, paths, frame):
        """Past an assertion, its test holds: a path that took the other way at an `if` on the
        same condition raises there, and one that has not decided it goes on with it decided
        (`assert not overlap` after `if overlap:`). Only a condition the path decided rules it
        out: a value's test may be decided from what another call stored (`assert self.handle
        is None` where some method stores a handle), not from what this path holds."""
        holding = []
        for state in paths:
            outcome, when_taken, _ = self.condition(node.test, state, frame)
            if outcome is False and self.decided_by_the_path(node.test, state, frame):
                continue
            holding += _split(state, when_taken, in_place=True)
        for state in holding:
            for name in asserted_on_host(node.test):
                # `assert x.device.type == "cpu"`: past it, the tensor is host memory.
                value = self.evaluate(name, state, frame)
                if isinstance(value, (Symbol, Tensor)) and value.key is not None and \
                        not (isinstance(value, Tensor) and value.on_host):
                    state.locals[(frame.ident, name.id)] = Tensor(value.key, None, on_host=True)
        return holding

    def stmt_Delete(self, node, paths, frame):
        def delete(state):
            for target in node.targets:
                self.delete(target, state, frame)
        return self.each(paths, delete)

    def stmt_Return(self, node, paths, frame):
        if node.value is not None:
            paths = self.flag_paths((node.value,), paths, frame)
        for state in paths:
            value = self.evaluate(node.value, state, frame) if node.value is not None else None
            if node.value is not None:
                value = self.made_by_return(node.value, value, state, frame)
                self.returned(node.value, value, state, frame)
                if frame.depth == 0 and isinstance(node.value, ast.Call):
                    self.events_in_result(node.value, state, frame)
            leave_contexts(state, frame)
            self.scope_ended(state, frame, node)
            frame.returns.append((state, value))
        return []

    def events_in_result(self, call, state, frame):
        """Events given to the constructor of the object a starting function returns (`return
        Result(..., ready_event=event)`, a class by its capitalized name): its caller takes them
        with the object, and with them the waits for what was recorded before them."""
        if not (expression_name(call.func) or "").rsplit(".", 1)[-1].lstrip("_")[:1].isupper():
            return
        given = [self.evaluate(node, state, frame)
                 for node in list(call.args) + [keyword.value for keyword in call.keywords]
                 if isinstance(node, (ast.Name, ast.Attribute))]
        self.analysis.result_events.setdefault(frame.function, set()).update(
            event_keys_in(given, self.facts))

    def stmt_Raise(self, node, paths, frame):
        return []

    def stmt_Break(self, node, paths, frame):
        if frame.loops:
            frame.loops[-1][0].extend(paths)
        return []

    def stmt_Continue(self, node, paths, frame):
        if frame.loops:
            frame.loops[-1][1].extend(paths)
        return []

    def stmt_FunctionDef(self, node, paths, frame):
        nested = frame.function.nested.get(node.name)
        if nested is not None:
            for state in paths:
                state.locals[(frame.ident, node.name)] = Function(nested)
        return paths

    stmt_AsyncFunctionDef = stmt_FunctionDef

    # ---- control flow ---------------------------------------------------------------------

    def stmt_If(self, node, paths, frame):
        after = []
        for state in paths:
            outcome, when_taken, when_skipped = self.condition(node.test, state, frame)
            taken = skipped = []
            if outcome is not False:
                taken = _split(state, when_taken, in_place=outcome is True)
            if outcome is not True:
                skipped = _split(state, when_skipped, in_place=True)
            storage, empty_when_taken = _storage_size_test(node.test)
            if storage is not None:
                for empty in taken if empty_when_taken else skipped:
                    tensor = self.evaluate(storage, empty, frame)
                    self.without_block(tensor, empty)
                    self.forget_old_block(tensor, empty)
            for polled in taken + skipped:
                self.polled_to_completion(node.test, polled, frame)
            name, none_when_taken = _none_tested_name(node.test)
            for none in (taken if none_when_taken else skipped) if name else ():
                self.narrowed_to_none(name, none, frame)
                self.records_skipped(_recorded_on(node.orelse if none_when_taken else node.body,
                                                  name), none, frame)
            out = self.block(node.body, taken, frame) if taken else []
            out += self.block(node.orelse, skipped, frame) if skipped else []
            if outcome is None and when_taken == when_skipped == [{}] and len(out) > 1:
                # Nothing tests this again: the branches need not stay apart, unless they chose
                # different streams to run later work on (`ctx = torch.cuda.stream(s)` on one,
                # `nullcontext()` on the other).
                out = self.merge(out)
                if len(out) > 1 and len({_streams_chosen(state) for state in out}) == 1:
                    out = [join_all(out)]
            after += out
        return after

    def stmt_For(self, node, paths, frame):
        # Loops over one collection run together: both at least once, or neither (a loop that
        # enqueues work per parameter and one that waits per parameter). A literal or a
        # comprehension runs at least once if it made anything to wait for.
        entered, skipped = [], []
        for state in paths:
            iterable = self.evaluate(node.iter, state, frame)
            state.locals[(frame.ident, _ITERABLE)] = iterable
            emptiness = _emptiness_condition(iterable) if "for:" + (
                self.condition_text(node.iter, frame) or "") in self.package.correlated else None
            known = state.conditions.get(emptiness) if emptiness else None
            if isinstance(iterable, Container) and not iterable.items:
                skipped.append(state)
                continue
            # A range, like a list the code built, is taken as entered.
            if known is False or isinstance(iterable, Container) and iterable.key is None or \
                    isinstance(iterable, Range):
                entered.append(state)
                continue
            if known is True:
                skipped.append(state)
                continue
            if emptiness:
                other = state.copy()
                other.conditions[emptiness] = True
                state.conditions[emptiness] = False
                skipped.append(other)
            else:
                skipped.append(state.copy())
            entered.append(state)

        def bind(state):
            iterable = state.locals.get((frame.ident, _ITERABLE))
            self.assign(node.target, self.element_of(iterable, node.iter, state, frame), None,
                        state, frame)
        return self.loop(node, entered, frame, bind, skipped)

    stmt_AsyncFor = stmt_For

    def stmt_While(self, node, paths, frame):
        def test(state):
            self.evaluate(node.test, state, frame)
        return self.loop(node, paths, frame, test, list(paths))

    def loop(self, node, paths, frame, enter, not_entered):
        exits = []
        current = paths
        finished = []
        # An inner loop's iterations are numbered within the outer loop's: once it ends, the
        # outer loop's iteration goes on.
        outer = self.iteration, self.iterations
        for iteration in range(2):
            self.iteration = iteration
            self.iterations = outer[1] + (iteration,)
            entering = [state.copy() for state in current]
            for state in entering:
                enter(state)
            frame.loops.append(([], [], _names_bound_in(node)))
            after = self.block(node.body, entering, frame)
            breaks, continues, _ = frame.loops.pop()
            exits.extend(breaks)
            current = self.merge(after + continues)
            finished.extend(current if iteration == 0 else [])
            if not current:
                break
        self.iteration, self.iterations = outer
        # Left after one iteration, or two (what the second adds), or never entered; `else`
        # runs when the loop was not broken out of.
        finished = self.merge(not_entered + finished + current)
        if node.orelse:
            finished = self.block(node.orelse, finished, frame)
        return self.merge(finished + exits)

    def stmt_With(self, node, paths, frame):
        out = []
        paths = self.flag_paths([item.context_expr for item in node.items], paths, frame)
        for item in node.items:
            paths = self.stream_given_or_none(item.context_expr, paths, frame)
        for item in node.items:
            item.context_expr._with_item = True   # a generator it calls runs to its yield
        for state in paths:
            saved_stream = state.current
            contexts = self.enter_items(node.items, state, frame)
            inner = self.block(node.body, [state], frame)
            for context in reversed(contexts):
                if isinstance(context, GeneratorContext):
                    inner = self.leave_generator(context, inner)
                    continue
                for after in inner:
                    self.exit_context(context, after, frame)
            if any(isinstance(c, StreamContext) for c in contexts):
                for after in inner:
                    after.current = saved_stream
                    after.contexts = after.contexts[:len(after.contexts) - sum(
                        isinstance(c, StreamContext) for c in contexts)]
            out.extend(inner)
        return out

    def stmt_YieldPoint(self, node, paths, frame):
        for state in paths:
            value = self.evaluate(node.value, state, frame) if node.value is not None else None
            frame.returns.append((state, value))
        return []

    def stmt_EnterContexts(self, node, paths, frame):
        for state in paths:
            self.enter_items(node.items, state, frame)
        return paths

    def enter_items(self, items, state, frame):
        """Enters a `with`'s items in order, binding their `as` names; returns the contexts."""
        contexts = []
        for item in items:
            value = self.evaluate(item.context_expr, state, frame)
            context = self.enter_context(value, item.context_expr, state, frame)
            contexts.append(context)
            if item.optional_vars is not None:
                self.assign(item.optional_vars, bound_by_as(context, value), None, state, frame)
        return contexts

    def stmt_ExitContexts(self, node, paths, frame):
        for state in paths:
            leave_contexts(state, frame, node.statement)
        return paths

    stmt_AsyncWith = stmt_With

    def stream_given_or_none(self, context_expr, paths, frame):
        """`with torch.cuda.stream(self._stream):` where the code tests elsewhere whether
        `self._stream is None`: a stream context of None changes nothing, so the paths go on
        apart, one where the stream is given and one where it is None (`device_call`)."""
        text = self.optional_stream_text(context_expr, frame)
        if text is None or text not in self.package.correlated:
            return paths
        given = optional_stream(context_expr)
        for state in paths:
            # A path that holds a stream there, or None, has decided it (`if stream is None:
            # stream = current_stream()` before the context).
            if text not in state.conditions:
                held = self.constant_truth(self.evaluate(none_test(given), state, frame))
                if held is not None:
                    state.conditions[text] = held
        split = _decided_both_ways(paths, text)
        if isinstance(given, ast.Name):
            # Where it is None, so is the name, for the calls it is handed to as well.
            for state in split:
                if state.conditions.get(text):
                    self.narrowed_to_none(given.id, state, frame)
        return split

    def optional_stream_text(self, context_expr, frame):
        """The condition `<stream> is None` of a stream context given a name or an attribute."""
        given = optional_stream(context_expr)
        return self.condition_text(none_test(given), frame) if given is not None else None

    def stmt_Try(self, node, paths, frame):
        body = self.block(node.body, [s.copy() for s in paths], frame)
        # A handler may start anywhere in the body: from the state before it or after it.
        handler_start = self.merge([s.copy() for s in paths] + [s.copy() for s in body])
        handled = []
        for handler in node.handlers:
            handled += self.block(handler.body, [s.copy() for s in handler_start], frame)
        after = self.block(node.orelse, body, frame) if node.orelse else body
        after = self.merge(after + handled)
        if node.finalbody:
            after = self.block(node.finalbody, after, frame)
        return after

    stmt_TryStar = stmt_Try

    def stmt_Match(self, node, paths, frame):
        for state in paths:
            self.evaluate(node.subject, state, frame)
        out = []
        for case in node.cases:
            out += self.block(case.body, [s.copy() for s in paths], frame)
        return self.merge(out + paths)

    # ---- conditions -----------------------------------------------------------------------

    def narrowed_to_none(self, name, state, frame):
        """Where `x is None` holds, x names no object, nor does an attribute the path bound to
        x's object (`self.batch = batch` before `if batch is not None:`): joined with the path
        that put a tensor there, the name and the attribute hold that tensor."""
        value = self.lookup_name(name, state, frame)
        state.locals[(frame.ident, name)] = _NONE
        key = getattr(value, "key", None)
        for attribute, held in list(state.attributes.items()) if key is not None else ():
            if getattr(held, "key", None) == key:
                state.attributes[attribute] = _NONE

    def records_skipped(self, tensors, state, frame):
        """Where the stream a branch would record tensors on is None, the code says that no
        other stream uses them: they count as recorded (`recorded_by_hand`)."""
        for expression in tensors:
            key = getattr(self.evaluate(expression, state, frame), "key", None)
            if key is not None:
                state.recorded = state.recorded | {(key, UNKNOWN_RECORD_STREAM)}

    def condition(self, test, state, frame):
        """(True/False/None, where taken, where skipped) for an `if` test: constants the model
        knows (`get_accelerator().resolves_data_dependency()` is False on CUDA), conditions
        already decided on this path (`if self.overlap_comm:` twice), and the parts of an
        `and`/`or` chain. Where taken and where skipped are each a list of alternatives, each a
        {condition text: value} dict: `if multi and overlap:` skipped is `not multi`, or `multi`
        and `not overlap`, so that a later `if multi:` knows `overlap` is false there."""
        negate = False
        while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) or \
                is_not_none(test) or self.async_flag_compared(test, frame):
            if isinstance(test, ast.UnaryOp):
                negate, test = not negate, test.operand
            elif is_not_none(test):
                negate, test = not negate, none_test(test.left)
            else:
                negate, test = negate != compared_with_a_bool(test), test.left
        if isinstance(test, (ast.Name, ast.Attribute)) and \
                self.condition_text(none_test(test), frame) in self.package.optional_stream_texts:
            # A stream, or None where a stream context then changes nothing: its truth is
            # whether it is given.
            negate = not negate
            test = none_test(test)
        if isinstance(test, ast.Name):
            test = polling_flags(frame.function.node).get(test.id, test)
        if isinstance(test, ast.BoolOp):
            outcome, taken, skipped = self.chain_condition(test, state, frame)
        else:
            outcome, taken, skipped = self.simple_condition(test, state, frame)
        if negate:
            return (None if outcome is None else not outcome), skipped, taken
        return outcome, taken, skipped

    def async_flag_compared(self, test, frame):
        """Whether the test compares with a bool a flag the package gives as a collective's
        `async_op` (`if async_op is True: raise` leaves the collective below synchronous): it
        is tested as the flag."""
        return compared_with_a_bool(test) is not None and self.condition_text(
            test.left, frame) in self.package.async_flags

    def decided_by_the_path(self, test, state, frame):
        # A condition's text names it without its negations (condition_texts.py).
        return self.condition_text(test, frame) in state.conditions

    def simple_condition(self, test, state, frame):
        value = self.evaluate(test, state, frame)
        outcome = self.constant_truth(value)
        text = self.condition_text(test, frame)
        if outcome is None and text is not None:
            outcome = state.conditions.get(text)
        if outcome is not None or text is None or \
                text not in self.package.correlated and not polls_completion(test):
            return outcome, [{}], [{}]
        if polls_completion(test):
            # Asked again later, the answer may have become yes: only a yes is kept.
            return None, [{text: True}], [{}]
        return None, [{text: True}], [{text: False}]

    def chain_condition(self, test, state, frame):
        """`a and b`: taken, every part holds; skipped, some undecided part fails while the
        ones before it hold. `a or b` the other way round."""
        deciding = isinstance(test.op, ast.And)   # the part value that does not end the chain
        undecided = []
        for part in test.values:
            outcome, part_taken, part_skipped = self.condition(part, state, frame)
            if outcome is (not deciding):
                return outcome, [{}], [{}]
            if outcome is None:
                undecided.append((part_taken, part_skipped) if deciding else
                                 (part_skipped, part_taken))
        if not undecided:
            return deciding, [{}], [{}]
        holding, ending = [{}], []
        for part_holds, part_ends in undecided:
            ending += _both(holding, part_ends)
            holding = _both(holding, part_holds)
        holding, ending = _simplest(holding), _simplest(ending)
        return (None, holding, ending) if deciding else (None, ending, holding)


def _both(first, second):
    """The alternatives where one of `first` and one of `second` hold (those that disagree on
    a condition dropped)."""
    return [{**a, **b} for a in first for b in second
            if all(a.get(text, value) == value for text, value in b.items())]


def _simplest(alternatives):
    """The alternatives without those another one implies, and two that differ only in one
    condition's value joined (`a` or `not a and b` stay; `a and b` or `a and not b` is `a`).
    At most the parts of one chain: a few."""
    alternatives = [dict(a) for a in alternatives]
    changed = True
    while changed:
        changed = False
        for i, a in enumerate(alternatives):
            for j, b in enumerate(alternatives):
                if i == j:
                    continue
                if a.items() <= b.items() or (a.keys() == b.keys() and len(
                        [t for t in a if a[t] != b[t]]) == 1):
                    common = {t: v for t, v in a.items() if b[t] == v}
                    alternatives[i] = common
                    del alternatives[j]
                    changed = True
                    break
            if changed:
                break
    return alternatives or [{}]


def _split(state, alternatives, in_place):
    """The paths taking a branch: one per alternative condition under which it is taken, the
    last one the state itself when `in_place` (no other branch starts from it)."""
    if len(alternatives) == 1 and not alternatives[0]:
        return [state if in_place else state.copy()]
    out = []
    for position, conditions in enumerate(alternatives):
        branch = state if in_place and position == len(alternatives) - 1 else state.copy()
        branch.conditions.update(conditions)
        out.append(branch)
    return out


_NONE = Constant(None)


def _none_tested_name(test):
    """`x is None` (`x is not None`): (x's name, whether x is None where the test holds); (None,
    None) for any other test."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and \
            isinstance(test.ops[0], (ast.Is, ast.IsNot)) and isinstance(test.left, ast.Name) and \
            isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None:
        return test.left.id, isinstance(test.ops[0], ast.Is)
    return None, None


def _recorded_on(statements, stream_name):
    """The tensors a branch gives to record_stream of the stream named `stream_name` (`if
    target_stream is not None: kjt.record_stream(target_stream)`), found once per branch."""
    if not statements:
        return ()
    cache = getattr(statements[0], "_recorded_on", None)
    if cache is None:
        cache = statements[0]._recorded_on = {}
    found = cache.get(stream_name)
    if found is None:
        found = cache[stream_name] = tuple(
            node.func.value for statement in statements for node in breadth_first(statement)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and
            node.func.attr == "record_stream" and len(node.args) == 1 and
            isinstance(node.args[0], ast.Name) and node.args[0].id == stream_name)
    return found


def _storage_size_test(test):
    """`t.untyped_storage().size() > 0` (`!= 0`, `== 0`; `storage()`, `nbytes()`): (the
    expression of t, whether its storage is empty where the test holds); (None, None) for any
    other test."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and
            isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value == 0 and
            isinstance(test.ops[0], (ast.Gt, ast.NotEq, ast.Eq))):
        return None, None
    size = test.left
    if isinstance(size, ast.Call) and isinstance(size.func, ast.Attribute) and \
            size.func.attr in model.STORAGE_SIZES and not size.args and \
            isinstance(size.func.value, ast.Call) and \
            isinstance(size.func.value.func, ast.Attribute) and \
            size.func.value.func.attr in model.STORAGE_ACCESSORS:
        return size.func.value.func.value, isinstance(test.ops[0], ast.Eq)
    return None, None


def _decided_both_ways(paths, text):
    """The paths, each that has not decided the condition `text` split into one where it holds
    and one where it does not."""
    split = []
    for state in paths:
        if text in state.conditions:
            split.append(state)
            continue
        other = state.copy()
        state.conditions[text] = True
        other.conditions[text] = False
        split += [state, other]
    return split


def _module_moved(expression):
    """The receiver of `x.cuda()`, `x.to(device)` and their kin called as a statement."""
    if isinstance(expression, ast.Call) and isinstance(expression.func, ast.Attribute) and \
            expression.func.attr in model.MODULE_MOVES:
        return expression.func.value
    return None


def _streams_chosen(state):
    """What a path chose that decides where later work goes: the streams and stream contexts
    its locals hold, and the indices computed from another one its attributes hold (which
    buffer of a ping-pong pair is filled next: `self.index = 1 - self.index`)."""
    return frozenset([item for item in state.locals.items()
                      if type(item[1]) in _STREAM_CHOICES] +
                     [item for item in state.attributes.items() if type(item[1]) is Integer])


_STREAM_CHOICES = frozenset({Stream, StreamContext})


def bound_by_as(context, value):
    """What `with ... as name` binds: a generator's yielded value, else the entered context
    or the value itself."""
    if isinstance(context, GeneratorContext):
        return context.yielded
    return context if context is not None else value


def leave_contexts(state, frame, statement=None):
    """A `return` inside `with torch.cuda.stream(s):` leaves the context: the caller's stream is
    current again. With `statement`, only the contexts the `with` there entered are left."""
    for position, context in enumerate(state.contexts):
        if context[3] == frame.ident and statement in (None, context[1]):
            state.current = context[2]
            state.contexts = state.contexts[:position]
            return


_ITERABLE = "<iterable>"
_MISSING = object()
_STATEMENT_HANDLERS = {}    # statement node type -> its handler, looked up once


def _names_bound_in(loop):
    """The names a loop binds in each iteration, its target's and its body's (nested functions
    and classes bind theirs elsewhere); computed once per loop."""
    cached = getattr(loop, "_bound_names", None)
    if cached is not None:
        return cached
    bound = set()
    stack = [loop.target] if isinstance(loop, (ast.For, ast.AsyncFor)) else []
    stack += loop.body
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        stack.extend(child_nodes(node))
    loop._bound_names = frozenset(bound)
    return loop._bound_names


def _emptiness_condition(iterable):
    key = getattr(iterable, "key", None)
    if key is None:
        return None
    return "empty:" + key.text() + repr(key.root)


__all__ = ["StatementWalker", "Frame", "merge_paths", "CoalescingContext"]
