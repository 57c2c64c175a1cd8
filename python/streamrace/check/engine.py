# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The analysis of one package: every function that may touch streams is a starting point,
analyzed with the stream current on entry unknown ("the current stream"); calls of the package's
functions are followed into their bodies (MAX_DEPTH deep), so a race between a caller's work and
a callee's is seen where it happens.

It runs twice. The first pass learns what the methods of each class store in its attributes
(streams made in `__init__`, buffers made in a prefetch) and what each function leaves pending
when it returns; the second reports, with that knowledge (`facts.py`, `escapes.py`).
"""
import ast
import dataclasses
import functools
import itertools
import os

from .. import torch_model as model
from .argument_reads import arguments_read
from .caller_work import CallerWork
from .collective_effects import CollectiveEffects
from .copy_effects import CopyEffects
from .effects import CallEffects
from .entry_streams import start_on_the_callers_stream
from .entry_work import enter_hook
from .expressions import ExpressionEvaluator, _operator_name
from .facts import ClassFacts
from .generator_contexts import GeneratorContext, generator_parts
from .given_conditions import (conditions_after_the_call, conditions_given,
                               conditions_in_the_callee)
from .new_tensors import returns_new_tensor
from .next_call import NextCalls, handles_found_outstanding
from .outstanding_handles import (handles_found_waited, outstanding_at_entry,
                                  streams_found_recorded)
from .record_stream_fields import unrecorded_stores
from .checks.free_while_pending import hand_over, hand_over_order
from .escapes import Escapes, reaches
from .handing_out import HandingOut
from .made_lists import DeviceLists
from .kept_names import event_keys_in
from .state import (AMBIENT, HOST_STREAM, Access, Site, State, join_all, join_returned,
                    recorded_by_hand)
from .statements import Frame, StatementWalker
from .syntax import breadth_first, child_nodes
from .usage import TENSOR_ONLY_METHODS, TensorUsage
from .user_model import EMPTY as EMPTY_MODEL
from .values import (Container, Key, Stream, StreamContext, Symbol, Tensor,
                     instance_alias, is_coalescing)

MAX_DEPTH = 4
# Statements one starting function may walk, calls followed included, before calls are no longer
# followed (counted by --stats); the walks going further took half the time, for nothing more.
STATEMENT_BUDGET = 1000
# Statements of a function without loops that is followed past that budget (Walker.small).
SMALL_FUNCTION = 12
# Where a tensor that outlives the call it was written in is kept (a local that the call did not
# make names an object it was handed or looked up).
_OUTLIVING_ROOTS = frozenset({"self", "param", "global", "object", "field", "local"})

# Names whose presence makes a function a starting point: it uses streams, events, collectives,
# host copies, or hooks.
_RELEVANT_NAMES = frozenset({
    "stream", "Stream", "current_stream", "default_stream", "wait_stream", "wait_event",
    "record_event", "record_stream", "Event", "synchronize", "non_blocking", "async_op",
    "isend", "irecv", "batch_isend_irecv", "_coalescing_manager", "set_stream",
    "register_hook", "register_post_accumulate_grad_hook", "wait", "all_reduce",
    "reduce_scatter_tensor", "all_gather_into_tensor", "_stream_context",
})


# Names that make a constructor worth following: it keeps a stream, an event or a tensor.
_KEPT_NAMES = _RELEVANT_NAMES | frozenset({"empty", "zeros", "ones", "full", "empty_like",
                                           "zeros_like", "pin_memory", "cuda", "Tensor"})


class Walker(StatementWalker, ExpressionEvaluator, CallEffects, CopyEffects, CollectiveEffects,
             NextCalls):
    def __init__(self, analysis):
        self.analysis = analysis
        self.package = analysis.package
        self.facts = analysis.facts
        self.usage = analysis.usage
        self.accesses = analysis.accesses
        self.checks = analysis.checks
        self.spent = 0
        self.iteration = 0      # of the innermost loop the walk is in
        self.iterations = ()    # of every loop it is in, outermost first
        self.frame_ids = analysis.frame_ids
        self.root = None
        self.root_frame = None
        self.entry_stream = AMBIENT   # the stream current where the root was entered
        self.temporaries = {}
        # Whether the analysis met work on more than one stream (or the host): a function
        # that never does cannot have an unordered pair of its own.
        self.several_streams = False
        # The call a statement makes at its top (`self.reduce(x)`, `y = self.f(x)`), and the
        # paths out of it when it was followed into a function with several.
        self.statement_call = None
        self.split_exits = None
        # 1 while a second run is walked: a hook's next firing, a method's next call (next_call.py).
        self.firing = 0
        # A non-blocking copy into a host tensor stored into an object the function was given:
        # its access ident -> (the store's site, statement, target), checked at the return.
        self.handed_on = {}
        # Keys of the objects this walk moved as modules (`model.cuda()` for its effect):
        # device memory, which a call the analysis cannot see into reads when given them.
        self.moved_modules = set()
        # The functions this walk followed calls into: the attributes they name are those the
        # objects it reached may have come through (escapes.py).
        self.followed = set()

    # ---- starting points and calls -------------------------------------------------------

    def run_root(self, function, hook):
        self.analysis.mark(function)
        self.root = function
        self.spent = 0
        state = State(self.analysis)
        frame = self.root_frame = self.new_frame(function, 0, ())
        starts = [state]
        if hook is None:
            start_on_the_callers_stream(self, function, state, frame)
            starts = outstanding_at_entry(self, function, state, frame)
        else:
            enter_hook(self, function, hook, state, frame)
        self.entry_stream = state.current
        paths = self.block(function.node.body, starts, frame)
        for path in paths:
            self.scope_ended(path, frame, function.node.body[-1])
        exits = paths + [s for s, _ in frame.returns]
        self.analysis.returned_keys[function] = frozenset(
            value.key for _, value in frame.returns
            if isinstance(value, (Tensor, Symbol)) and value.key is not None)
        self.analysis.returned_events[function] = event_keys_in(
            [value for _, value in frame.returns], self.facts) | \
            frozenset(self.analysis.result_events.pop(function, ()))
        if hook is not None and hook[0] == "gradient" and exits:
            exits = self.fire_again(function, exits)
        elif hook is None and exits and self.analysis.calls_again(function):
            exits = self.call_again(function, exits)
        if hook is not None and hook[1] in model.HANDING_BACK_HOOKS and self.analysis.reporting:
            for exit_state in exits:
                self.left_to_the_caller(function, hook[1], exit_state, frame)
        self.analysis.handing_out.at_exit(function, exits, frame, self)
        return join_all(exits)

    def left_to_the_caller(self, function, registration, state, frame):
        """A hook after which the caller uses the tensors on the current stream: a write it
        leaves on a side stream, into a tensor that outlives it, that nothing orders the current
        stream after, here or anywhere in the package (a prefetch for the next module, which
        that module's hook waits for, is the program's intent)."""
        waits = self.analysis.facts.waits
        for ident, ordered in state.pending.items():
            access = self.accesses[ident]
            if not access.writes() or access.stream.kind not in ("created", "named") or \
                    AMBIENT.key in ordered or access.key.made_in_the_call() or \
                    access.key.root[0] not in _OUTLIVING_ROOTS or \
                    reaches(AMBIENT.key, {access.stream.key} | ordered, waits):
                continue
            self.checks.left_to_the_caller(access, function, registration, state, frame, self)

    def new_frame(self, function, depth, chain, bound_self=None):
        class_info = None
        if function.class_name:
            class_info = self.package.class_named(function.class_name, function.module)
        frame = Frame(next(self.frame_ids), function, class_info, depth, chain)
        if bound_self is not None and getattr(bound_self, "key", None) is not None:
            frame.self_key = bound_self.key
        elif function.class_name:
            frame.self_key = Key(("self", function.class_name))
        return frame

    def inline(self, function, args, kwargs, node, state, frame, bound_self=None):
        # Past the budget, what is cheap and may order the rest is still followed: a small
        # function doing stream work itself, and one that only records and releases storage
        # (without it, a tensor would keep the block it gave back).
        over_budget = self.spent > STATEMENT_BUDGET and not (
            self.small(function) and self.package.does_stream_work_itself(function)) and \
            not self.package.only_keeps_lifetimes(function)
        if self.too_deep(function, frame) or any(s[1] is function for s in frame.chain) or \
                over_budget or function.node is self.root.node or \
                not self.package.does_stream_work(function):
            if over_budget:
                self.analysis.over_budget.add(self.root.qualified_name)
            if not self.package.does_stream_work(function):
                args, kwargs = arguments_read(function, args, kwargs)
                self.unknown_call(args, kwargs, function.name, node, state, frame)
                if returns_new_tensor(function):
                    return self.fresh_tensor(node, state, frame)
            # A function that does stream work and is not followed (too deep): what it does
            # first may be a wait, so its arguments are not taken as read where it is called.
            return None
        if self.analysis.reporting:
            self.analysis.followed_while_reporting.add(function)
        self.followed.add(function)
        self.analysis.mark(function)
        site = self.site(node, frame)
        callee = self.new_frame(function, frame.depth + 1, frame.chain + ((site, function),),
                                bound_self)
        if function.parent is not None and function.parent is frame.function:
            callee.enclosing = frame
        callee.given_conditions = conditions_given(
            function, args, kwargs, lambda argument: self.condition_text(argument, frame))
        self.bind_parameters(function, callee, args, kwargs, bound_self, state)
        parts = self.analysis.generator_parts(function) if getattr(node, "_with_item", False) \
            else None
        if parts is not None:
            return self.enter_generator(parts, callee, state)
        entry = state.copy()
        entry.conditions, callee.shadowed = conditions_in_the_callee(
            function, args, kwargs, state.conditions, callee.given_conditions)
        paths = self.block(function.node.body, [entry], callee)
        for path in paths:
            self.scope_ended(path, callee, function.node.body[-1])
        exits = paths + [s for s, _ in callee.returns]
        if not exits:
            return None   # every path raises: nothing comes back to the caller
        if node is self.statement_call and len(exits) > 1:
            # The statement's own call: its caller goes on along each of the callee's paths,
            # so that a flag the callee tested keeps its value in the caller.
            outs = [(path, None) for path in paths] + list(callee.returns)
            self.split_exits = [(self.leave_frame(out, callee), value) for out, value in outs]
        joined = join_all(exits)
        for slot in State.__slots__:
            setattr(state, slot, getattr(joined, slot))
        self.leave_frame(state, callee)
        values = [v for _, v in callee.returns]
        if not values:
            return None
        first = values[0]
        if all(v == first for v in values):
            return first
        if all(isinstance(v, StreamContext) for v in values):
            return values[0] if len({v.stream.key for v in values}) == 1 else None
        return functools.reduce(join_returned, values)

    def enter_generator(self, parts, callee, state):
        """A `with` entering a context manager generator: its statements up to the yield run
        now; its frame lives on until the `with` is left (`leave_generator`)."""
        self.block(parts.enter, [state.copy()], callee)
        if not callee.returns:
            return None   # every path raises before the yield
        joined = join_all([s for s, _ in callee.returns])
        for slot in State.__slots__:
            setattr(state, slot, getattr(joined, slot))
        values = {v for _, v in callee.returns}
        yielded = values.pop() if len(values) == 1 else None
        callee.returns = []
        return GeneratorContext(callee, parts.leave, yielded)

    def leave_generator(self, context, paths):
        """The `with` is left: the generator's statements after its yield run on each path."""
        frame = context.frame
        ended = self.block(context.leave, paths, frame)
        for state in ended:
            self.scope_ended(state, frame, frame.function.node.body[-1])
        out = ended + [s for s, _ in frame.returns]
        for state in out:
            self.leave_frame(state, frame)
        return out

    def small(self, function):
        """A function of a few statements and no loop (`event.record()` behind a method of a
        class of the package): followed past the statement budget when its own body does stream
        work, as it costs little and what it orders is often the one ordering of a long
        function."""
        size = self.analysis.statement_counts.get(function)
        if size is None:
            size = 0
            for node in breadth_first(function.node):
                if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
                    size = SMALL_FUNCTION + 1
                    break
                size += isinstance(node, ast.stmt)
            self.analysis.statement_counts[function] = size
        return size <= SMALL_FUNCTION

    def too_deep(self, function, frame):
        """Calls are followed MAX_DEPTH deep, and one deeper into a helper that only releases or
        resizes storage (`free_storage_(t)`), or a small one whose stream work is all its own
        (`wait_for_batch(batch, stream)`): cheap, and without them a tensor made at the bound
        keeps a block it gave back, and the wait a pipeline's deepest step makes is lost."""
        depth = frame.depth + 1
        return depth > MAX_DEPTH or depth == MAX_DEPTH and \
            not self.package.only_changes_lifetimes(function) and \
            not (self.small(function) and self.package.works_alone(function))

    def leave_frame(self, state, frame):
        for name in [k for k in state.locals if k[0] == frame.ident]:
            del state.locals[name]
        if frame.shadowed is not None:
            state.conditions = conditions_after_the_call(state.conditions, frame.shadowed)
        return state

    def bind_parameters(self, function, frame, args, kwargs, bound_self, state):
        _, vararg, keyword_only, kwarg = function.parameters()
        positional = function.parameters_after_self()
        values = list(args)
        defaults = function.node.args.defaults
        default_start = len(positional) - len(defaults)
        for index, name in enumerate(positional):
            if index < len(values):
                value = values[index][0]
            elif name in kwargs:
                value = kwargs[name][0]
            elif index >= default_start and index - default_start < len(defaults):
                value = self.evaluate(defaults[index - default_start], state, frame)
            else:
                value = None
            state.locals[(frame.ident, name)] = value if value is not None else \
                self.parameter(function, frame, name)
        keyword_defaults = dict(zip(keyword_only, function.node.args.kw_defaults))
        for name in keyword_only:
            given = kwargs.get(name, (None, None))[0]
            if name not in kwargs and keyword_defaults.get(name) is not None:
                # Not given: the default (`*, wait_on_reqs=True`), as for a positional one.
                given = self.evaluate(keyword_defaults[name], state, frame)
            state.locals[(frame.ident, name)] = given if given is not None else \
                self.parameter(function, frame, name)

    def parameter(self, function, frame, name):
        """What a parameter the caller gave nothing for names: an object of the class its
        annotation names, if it names one of the package (`state: "EplbState"`), so that its
        attributes are what that class's methods store in them."""
        class_info = self.annotated_parameters(function).get(name)
        aliases = frozenset({instance_alias(class_info.name)}) if class_info is not None else \
            frozenset()
        return Symbol(Key(("param", frame.ident, name), (), aliases), name)

    def annotated_parameters(self, function):
        """{parameter: the package class its annotation names}, with those of the functions
        enclosing a closure, whose parameters it reads."""
        annotated = self.analysis.annotated_parameters.get(function)
        if annotated is None:
            annotated = dict(self.annotated_parameters(function.parent)) \
                if function.parent is not None else {}
            arguments = function.node.args if hasattr(function.node, "args") else None
            for argument in (arguments.posonlyargs + arguments.args + arguments.kwonlyargs
                             if arguments is not None else ()):
                found = self.package.annotated_class(argument.annotation, function.module) \
                    if argument.annotation is not None else None
                if found is not None:
                    annotated[argument.arg] = found
                else:
                    annotated.pop(argument.arg, None)
            self.analysis.annotated_parameters[function] = annotated
        return annotated

    def site(self, node, frame):
        line = getattr(node, "lineno", 0)
        column = getattr(node, "col_offset", 0) + 1
        return Site(frame.module.path, line, column, frame.function.qualified_name,
                    frame.call_sites)

    # ---- accesses --------------------------------------------------------------------------

    def is_tensor(self, value, node, frame, method=None, strong=True):
        if isinstance(value, Tensor):
            return True
        if not isinstance(value, Symbol) or value.key is None:
            return False
        if not value.key.path and value.key.root[0] in ("self", "object"):
            # An instance of a class of the package: `self.flatten(bucket)` calls a function
            # the class keeps in an attribute, not the tensor method of that name.
            return False
        if method is not None:
            if method in TENSOR_ONLY_METHODS or method in model.VIEW_METHODS or \
                    method in model.HOST_BLOCKING_METHODS or method in model.COPY_METHODS or \
                    method == "record_stream" or \
                    (method.endswith("_") and not method.startswith("_")):
                return True
        if not strong and not value.key.path and value.key.root[0] in ("local", "param"):
            return True
        return self.usage.holds_tensor(value.key, frame.function.node)

    def access(self, value, mode, api, node, state, frame, stream=None, own_bytes=False,
               site=None, creation=False, blocking=False, issued_on=None):
        """The access of `value`'s bytes by `stream` (the current one by default); checks it
        against what is pending, then leaves it pending. `own_bytes`: a tensor operation on
        `value` (Access.own_bytes)."""
        if isinstance(value, Container) and value.key is None:
            made = []
            for item in value.items:
                made += self.access(item, mode, api, node, state, frame, stream, own_bytes, site,
                                    creation, blocking, issued_on)
            return made
        if not isinstance(value, (Tensor, Symbol)) or value.key is None:
            return []
        if value.key.root[0] == "temporary" or value.key in state.emptied:
            return []
        if stream is None and isinstance(value, Tensor) and value.on_host:
            stream = HOST_STREAM   # an operator on a host tensor runs on the host
        stream = stream or state.current
        if stream.kind not in ("ambient", "default"):
            self.several_streams = True
        site = site or self.site(node, frame)
        statement = getattr(node, "_statement", None)
        access = self.analysis.make_access(value.key, stream, mode, api, site, statement,
                                           frozenset(state.conditions.items()), creation,
                                           getattr(value, "partial", False), self.firing,
                                           blocking, getattr(value, "views", ()), own_bytes,
                                           issued_on)
        if self.analysis.reporting:
            conflicts = state.conflicts(self.accesses, self.analysis.stream_keys, access)
            for earlier in conflicts:
                self.checks.unordered(earlier, access, state, frame, self)
            self.analysis.escapes.check(access, state, frame, self)
            if not conflicts:
                self.analysis.caller_work.check(access, state, frame, self)
        else:
            self.analysis.escapes.note_access(access)
        if stream is HOST_STREAM:
            return [access]
        if not creation and stream is state.current and isinstance(value, Tensor):
            hand_over(value, site, state)   # a use there, after a wait for the maker
        if creation and state.handed:
            self.block_retaken(access, state, frame)
        # A block taken without running anything (`x.new_empty(n) (allocation)`) can be in use
        # only by the work its stream was given before: a stream that has seen all of that is
        # ordered after the taking.
        unfilled = creation and api.endswith(_ALLOCATION) and \
            api[:-len(_ALLOCATION)].rsplit(".", 1)[-1] in model.UNFILLED_ALLOCATIONS
        state.pending[access.ident] = state.seen_since_its_last_work(
            self.accesses, stream.key) if unfilled else frozenset()
        return [access]

    def block_retaken(self, made, state, frame):
        """A tensor made on a stream that handed one of its tensors to another stream without
        record_stream: once no name holds that one, the allocator may give its block to the new
        tensor at once, while the other stream's use of it may still be pending (PyTorch's
        documentation of record_stream). Reported once a hand-over."""
        for handed in sorted(state.handed, key=hand_over_order):
            key, allocation, receiver, _ = handed
            if allocation != made.stream.key or state.holds(key) or \
                    recorded_by_hand(key, state):
                continue
            state.handed = state.handed - {handed}
            for ident, ordered in state.pending.items():
                use = self.accesses[ident]
                if use.stream.key == receiver and use.key.overlaps(key) and \
                        allocation not in ordered:
                    self.checks.block_retaken(made, use, handed, state, frame, self)
                    break

    def fresh_tensor(self, node, state, frame, on_host=False, on_host_stream=False,
                     complete=False):
        """A tensor the expression makes. `complete`: the host waited for its making (a
        blocking copy from the host)."""
        key = Key(("temporary", node.lineno, node.col_offset, frame.ident))
        stream = HOST_STREAM if on_host_stream else state.current
        api = self.spelling(node.func) if isinstance(node, ast.Call) else _operator_of(node)
        if isinstance(node, ast.Call) and api.rsplit(".", 1)[-1] in _FACTORIES:
            api += _ALLOCATION
        self.temporaries[key] = (api, node, frame, complete)
        return Tensor(key, stream, on_host)

    def bind_new_tensor(self, value, key, state, value_node=None):
        """A new tensor bound to a name or an attribute: a new object there, whose making is a
        write of its bytes by the stream that made it, when the statement that binds it made it
        (one that went through a list first was made earlier). Returns the bound value."""
        bound = Tensor(key.made(next(self.analysis.object_numbers)), value.alloc_stream,
                       value.on_host, pageable=value.pageable)
        made = self.temporaries.get(value.key)
        same_statement = made is not None and value_node is not None and \
            getattr(made[1], "_statement", None) == getattr(value_node, "_statement", None)
        if same_statement and value.alloc_stream is not None and \
                value.alloc_stream is not HOST_STREAM and not made[3]:
            api, node, frame, _ = made
            self.access(bound, "write", api, node, state, frame, stream=value.alloc_stream,
                        creation=True)
        return bound

    def made_by_return(self, value_node, value, state, frame):
        """`return x.to("cpu", non_blocking=True)` in a function the analysis followed: the
        tensor the statement makes is an object of its own for the caller, its making (the
        copy's write) pending there as a binding's is."""
        if isinstance(value, Tensor) and value.key.root[0] == "temporary" and frame.depth > 0:
            return self.bind_new_tensor(
                value, Key(("local", frame.ident, "%s()" % frame.function.name)), state,
                value_node)
        return value

    def storage_released(self, tensor, node, state, frame, scope_end=False, one_object=False,
                         storage_only=False):
        self.checks.released(tensor, node, state, frame, self, scope_end, one_object,
                             storage_only)
        if storage_only:
            self.without_block(tensor, state)

    def storage_emptied(self, tensor, node, state, frame):
        """`storage().resize_(0)`, or a helper that does it: the block is given back, whether
        too early judged here."""
        self.storage_released(tensor, node, state, frame, storage_only=True)
        self.forget_old_block(tensor, state)

    def forget_old_block(self, tensor, state):
        """The tensor's storage is empty (given back, or tested so): what is later done through
        it is done on the block it is grown back into, or on no bytes. The work still pending on
        its old block meets none of it, whichever path joins this one later (whether the block
        was given back too early was judged when it was)."""
        if getattr(tensor, "key", None) is not None:
            state.forget_uses_of(self.accesses, tensor.key)

    def without_block(self, tensor, state):
        """The tensor has no block (now, or on this path): its making, which a later use on
        another stream could meet (the block may have been in use), is not what backs its
        bytes."""
        if getattr(tensor, "key", None) is None:
            return
        state.emptied = state.emptied | {tensor.key}
        for ident in [ident for ident in state.pending
                      if self.accesses[ident].creation and
                      self.accesses[ident].key.overlaps(tensor.key) and
                      not self.accesses[ident].key.held_by_an_attribute_of(tensor.key)]:
            del state.pending[ident]

    def scope_ended(self, state, frame, node):
        """The function returns (at `node`, or after it): a tensor it made and kept in a local
        only, neither handed on nor read by a closure, is dropped, its block back in the pool of
        the stream that made it."""
        if not self.analysis.reporting:
            return
        dropped = [value for (ident, name), value in state.locals.items()
                   if ident == frame.ident and isinstance(value, Tensor) and
                   value.alloc_stream is not None and value.alloc_stream is not HOST_STREAM and
                   value.key.root == ("local", frame.ident, name) and
                   value.key not in state.escaped]
        if not dropped:
            return
        kept = self.analysis.kept_past_return(frame.function)
        for value in dropped:
            if value.key.root[2] not in kept:
                self.storage_released(value, node, state, frame, scope_end=True)

    def returned(self, value_node, value, state, frame):
        self.checks.handed_over(value, value_node, state, frame, self)
        hand_over(value, self.site(value_node, frame), state)
        self.analysis.handing_out.returned(value, value_node, state, frame, self)
        self.escape(value, state)

    def handed_to_an_object(self, base, value, target, state, frame):
        self.analysis.handing_out.stored(base, value, target, state, frame, self)

    # ---- contexts ----------------------------------------------------------------------------

    def enter_context(self, value, node, state, frame):
        if isinstance(value, GeneratorContext):
            return value
        if isinstance(value, Stream):
            value = StreamContext(value)
        if isinstance(value, StreamContext):
            state.contexts = state.contexts + ((value.stream, getattr(node, "_statement", None),
                                                state.current, frame.ident),)
            state.current = value.stream
            return value
        if is_coalescing(value):
            state.works["<coalescing>"] = value
            return value
        return None

    def exit_context(self, context, state, frame):
        if is_coalescing(context):
            state.works.pop("<coalescing>", None)
            _, stream, async_ops = context
            if not async_ops:
                state.stream_waits(self.accesses, state.current, stream)


class _Everything:
    """The set of every name."""

    def __contains__(self, name):
        return True


_EVERY_LOCAL = _Everything()

_ALLOCATION = " (allocation)"
_FACTORIES = frozenset({"empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones",
                        "ones_like", "full", "full_like", "new_empty", "new_zeros"})


def _operator_of(node):
    """How a message names what made a value: an operator's symbol, else the node's kind."""
    op = getattr(node, "op", None)
    return _operator_name(op) if op is not None else type(node).__name__


def _mark_statements(tree):
    """Every expression node learns the innermost statement that holds it (fix-its go before
    it). Returns the functions defined under the tree, whose nodes are marked with it: a
    function's innermost statements are the same whether its walk starts at its definition or
    above it."""
    definitions = []
    stack = [(tree, None)]
    while stack:
        node, statement = stack.pop()
        if isinstance(node, ast.stmt):
            statement = (node.lineno, node.col_offset)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                definitions.append(node)
        elif isinstance(node, ast.expr) and statement is not None:
            node._statement = statement
        for child in child_nodes(node):
            stack.append((child, statement))
    return definitions


class Analysis:
    def __init__(self, package, checks, user_model=EMPTY_MODEL):
        self.package = package
        self.checks = checks
        self.user_model = user_model
        self.usage = TensorUsage(package)
        self.facts = ClassFacts(package)
        self.escapes = Escapes(self)
        self.caller_work = CallerWork()
        self.handing_out = HandingOut(self)
        self.accesses = []
        self.stream_keys = []   # each access's stream key, by its ident (State.conflicts)
        self.access_ids = {}
        self.frame_ids = itertools.count(1)
        self.object_numbers = itertools.count(1)   # objects constructors make, all runs through
        self.made_lists = DeviceLists()
        self.blocks_taken = {}   # tensor key -> where its storage was grown back (resize_)
        # The attributes the package points a tensor's `.data` at (`p.data = p._fp16_shard`):
        # the tensors they hold may be the bytes of the tensor whose attributes they are.
        self.data_attributes = frozenset()
        self.reporting = False
        self.over_budget = set()
        self.followed_while_reporting = set()   # functions the reporting pass followed into
        self.several_streams = set()  # starting points whose analysis met several streams
        self.given_up = set()  # functions whose analysis stopped, and why
        # starting function -> the keys of what it returns, and of the events it returns (the
        # caller takes both over)
        self.returned_keys = {}
        self.returned_events = {}
        self.result_events = {}   # ... and of the events given to the objects it returns
        self.roots_analyzed = 0
        self.marked = set()   # functions whose expressions know their statement
        self.names_outside = {}  # (function, name) -> what a name no local or parameter stands for
        self.statement_counts = {}   # function -> its statements, for Walker.small
        self.generators = {}         # function -> its GeneratorParts, or None
        self.next_calls = {}         # function -> the handles its next call may find outstanding
        self.handles_waited_first = {}   # method -> those it finds (outstanding_handles.py)
        self.streams_recorded_elsewhere = {}   # method -> ... and the streams its events wait for
        # function -> {parameter: the package class its annotation names}
        self.annotated_parameters = {}
        self.entry_streams = {}  # private helper -> the stream its callers enter (entry_streams.py)
        self.locals_kept = {}    # function -> its locals that outlive its return (kept_past_return)
    def mark(self, function):
        if function.node not in self.marked:
            self.marked.add(function.node)
            self.marked.update(_mark_statements(function.node))

    def kept_past_return(self, function):
        """The locals of a function that its return does not drop: all of them in a generator
        (its frame lives on between yields), those a nested function or lambda reads (a closure
        keeps them)."""
        kept = self.locals_kept.get(function)
        if kept is None:
            kept = set()
            for node in breadth_first(function.node):
                if isinstance(node, (ast.Yield, ast.YieldFrom)):
                    kept = _EVERY_LOCAL
                    break
                if node is not function.node and \
                        isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    kept |= {n.id for n in breadth_first(node) if isinstance(n, ast.Name)}
            self.locals_kept[function] = kept
        return kept

    def make_access(self, key, stream, mode, api, site, statement, conditions, creation,
                    partial, firing=0, blocking=False, views=(), own_bytes=False, issued_on=None):
        # `firing`: a hook's second firing makes accesses of its own, distinct from the first
        # firing's at the same sites, which may still be pending.
        return self._recorded(Access(-1, key, stream, mode, api, site, statement or (),
                                     conditions, creation, partial, firing, blocking, views,
                                     self.data_attributes if own_bytes else None, issued_on))

    def with_conditions(self, access, conditions):
        """The access as made on a path with those conditions (State.absorb)."""
        return self._recorded(dataclasses.replace(access, ident=-1, conditions=conditions))

    def _recorded(self, access):
        identity = (access.key, access.stream.key, access.mode, access.api, access.site,
                    access.conditions, access.creation, access.partial, access.firing,
                    access.blocking, access.views, access.own_bytes, access.issued_on)
        ident = self.access_ids.get(identity)
        if ident is None:
            ident = access.ident = len(self.accesses)
            self.accesses.append(access)
            self.stream_keys.append(access.stream.key)
            self.access_ids[identity] = ident
        return self.accesses[ident]

    def calls_again(self, function):
        """The handle attributes a method's next call may find outstanding, when that call is
        analysed from the first's end (next_call.py): asked in the reporting pass, once the
        package's handle attributes are known."""
        if not self.reporting:
            return ()
        found = self.next_calls.get(function)
        if found is None:
            found = self.next_calls[function] = handles_found_outstanding(
                function, self.facts.handle_holders())
        return found

    def generator_parts(self, function):
        if function not in self.generators:
            self.generators[function] = generator_parts(function.node)
        return self.generators[function]

    def data_pointed_at(self, attribute):
        if attribute not in self.data_attributes:
            self.data_attributes = self.data_attributes | {attribute}

    def roots(self, kind="relevant"):
        """The starting points of one kind, constructors first:
        "relevant": functions that use streams, events, collectives or host copies, those
        registered as hooks, and constructors that keep a stream or a tensor;
        "extra": functions that touch an attribute the relevant ones used on a side stream;
        "callers": functions that call a relevant one by name (they may meet what it leaves
        pending), analyzed in the reporting pass only."""
        chosen = []
        stream_users = {f.name for f in self.package.all_functions()
                        if f.names & _RELEVANT_NAMES}
        for function in self.package.all_functions():
            constructor = function.name == "__init__" and bool(function.names & _KEPT_NAMES)
            relevant = bool(function.names & _RELEVANT_NAMES) or \
                function in self.package.hooks or constructor
            if kind == "relevant":
                picked = relevant
            elif kind == "extra":
                picked = not relevant and self.escapes.writes_escaping_field(function)
            else:
                picked = not relevant and not self.escapes.writes_escaping_field(function) and \
                    bool(function.calls & stream_users)
            if picked:
                chosen.append(function)
        chosen.sort(key=lambda f: (f.name != "__init__", f.module.path,
                                   getattr(f.node, "lineno", 0)))
        return chosen

    def walk(self, functions):
        exits = []
        for function in functions:
            walker = Walker(self)
            try:
                exit_state = walker.run_root(function, self.package.hooks.get(function))
            except RecursionError:
                self.given_up.add("%s:%d %s (nested too deeply)" % (
                    function.module.path, getattr(function.node, "lineno", 0),
                    function.qualified_name))
                continue
            except Exception as error:  # noqa: BLE001 - one function must not cost the others
                if os.environ.get("STREAMRACE_CHECK_DEBUG"):
                    raise
                self.given_up.add("%s:%d %s (internal error: %s: %s)" % (
                    function.module.path, getattr(function.node, "lineno", 0),
                    function.qualified_name, type(error).__name__, error))
                continue
            if exit_state is not None:
                exits.append((function, exit_state))
            if walker.several_streams:
                self.several_streams.add(function)
            self.roots_analyzed += 1
        return exits

    def learn_escapes(self, exits):
        for function, exit_state in exits:
            self.escapes.left_pending(function, exit_state)

    def run(self):
        relevant = self.roots()
        exits = self.walk(relevant)
        self.learn_escapes(exits)
        extra = self.roots("extra")
        self.learn_escapes(self.walk(extra))
        self.facts.settle()
        self.reporting = self.checks.reporting = True
        # Reported on: what met several streams, and what touches an attribute another call
        # leaves pending on another stream.
        fields = self.escapes.fields_unordered_for_the_current_stream()
        walked = [f for f in relevant + extra if f in self.several_streams or f.names & fields or
                  f in self.handing_out.handing_out_fills]
        walked += self.roots("callers")
        # And what hands out an attribute another call leaves written on a side stream (a
        # property returning a norm still being reduced), may read host memory another call's
        # copy still fills, or names an attribute another call leaves pending on a stream that
        # nothing orders the current one after (a forward reading what a gather still writes),
        # whatever else it does.
        chosen = set(walked)
        walked += [f for f in self.package.all_functions()
                   if f not in chosen and f.name != "<module>" and (
                       f.names & fields or self.handing_out.may_return_a_side_write(f) or
                       self.escapes.reads_host_copies(f) or handles_found_waited(self, f) or
                       streams_found_recorded(self, f))]
        self.walk(walked)
        for store in unrecorded_stores(self.package):
            self.checks.unrecorded_field(store)
