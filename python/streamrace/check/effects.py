# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Calls: what a call of the torch API does to streams, events and tensors, read from the one
model (`streamrace.torch_model`); calls of the package's own functions are followed into their
bodies; any other call reads the tensors it is given, on the current stream."""
import ast

from .. import torch_model as model
from .collective_effects import is_p2p_operation
from .condition_texts import polling_flags, polls_in
from .event_queues import NOT_QUEUED, QUEUE_ADDS, QUEUE_TAKES, queued_event
from .handle_wrappers import keep_given_handles
from .kept_names import kept_event_key, kept_stream_key, named_as_an_event
from .made_lists import holds_made_tensors
from .keyword_splats import splatted_keywords
from .package import ClassInfo, FunctionInfo
from .state import DEFAULT, HOST_STREAM, State, join_all, recorded_stream_key
from .tensor_queues import queue_tensor, queued_tensor
from .values import (Constant, Container, DeviceModule, Event, Function, Functions, Key,
                     Module, Range, Stream, StreamContext, Symbol, Tensor, Work,
                     attribute_stream_key, holds_handles, items_labelled, least_of, linear_form,
                     device_module_call, is_coalescing, listed, merge_labelled, scale_linear)

_BUILTIN_NO_ACCESS = frozenset({
    "len", "isinstance", "issubclass", "hasattr", "getattr", "setattr", "id", "type", "callable",
    "super", "iter", "next", "reversed", "sorted", "dict", "set", "frozenset", "map", "filter",
    "any", "all", "hash", "vars", "dir", "object", "property", "staticmethod", "classmethod",
    "NotImplementedError", "ValueError", "RuntimeError", "TypeError", "AssertionError",
    "KeyError", "Exception", "partial", "functools.partial", "tuple", "list", "range",
    "enumerate", "zip", "min", "max", "sum", "abs", "round", "divmod", "chr", "ord",
    "logger.info", "logger.debug", "logger.warning", "log_dist", "print_rank_0", "debug_rank0",
    "see_memory_usage", "dist.get_rank", "dist.get_world_size",
})
_LOGGING_METHODS = frozenset({"info", "debug", "warning", "warn", "error", "exception",
                              "critical", "log", "append", "extend", "add", "pop", "popleft",
                              "insert", "remove", "clear", "get", "items", "keys", "values",
                              "update", "setdefault", "format", "join", "startswith",
                              "endswith", "replace", "split_string", "discard", "index",
                              "count", "copy_dict", "__enter__", "__exit__", "start_event",
                              "stop_event", "start", "stop", "is_completed"})
_STREAM_ONLY_METHODS = frozenset({"wait_stream", "wait_event", "record_event"})


def _collective_name(name):
    head, _, call = name.rpartition(".")
    if call in model.COLLECTIVES and (head in model.COLLECTIVE_MODULES or
                                      head.split(".")[-1] in model.COLLECTIVE_MODULES):
        return call
    return None


class CallEffects:
    # ---- entry ------------------------------------------------------------------------------

    def call(self, node, state, frame):
        func = node.func
        user_model = self.analysis.user_model
        # Without a user model, no call is a modelled wrapper: the callee's spelling (an
        # ast.unparse, the first time) is not needed to know it.
        wrapper = user_model.find(self.spelling(func)) if user_model.functions else None
        if wrapper is not None:
            args, kwargs = self.arguments(node, state, frame)
            return self.modelled_call(wrapper, args, kwargs, node, state, frame)
        if isinstance(func, ast.Attribute):
            receiver = self.evaluate(func.value, state, frame)
            args, kwargs = self.arguments(node, state, frame)
            return self.method_call(receiver, func.attr, args, kwargs, node, state, frame)
        callee = self.evaluate(func, state, frame)
        args, kwargs = self.arguments(node, state, frame)
        return self.function_call(callee, args, kwargs, node, state, frame)

    def modelled_call(self, wrapper, args, kwargs, node, state, frame):
        """A wrapper the user model describes: its arguments read and written on its stream."""
        def argument(name):
            if isinstance(name, int):
                return args[name] if name < len(args) else None
            return kwargs.get(name)

        stream = state.current
        if wrapper.stream is not None and argument(wrapper.stream) is not None:
            stream = self.as_stream(*argument(wrapper.stream)) or state.current
        modes = {}
        for names, mode in ((wrapper.reads, "read"), (wrapper.writes, "write")):
            for name in names:
                modes[name] = "read_write" if modes.get(name, mode) != mode else mode
        api = self.spelling(node.func)
        for name, mode in modes.items():
            given = argument(name)
            if given is not None:
                self.access(given[0], mode, api, given[1], state, frame, stream=stream)
        return None

    def arguments(self, node, state, frame):
        args = []
        for argument in node.args:
            value = self.evaluate(argument, state, frame)
            if isinstance(argument, ast.Starred) and isinstance(value, Container):
                args.extend((item, argument.value) for item in value.items)
            else:
                args.append((value, argument))
        kwargs = {}
        for keyword in node.keywords:
            value = self.evaluate(keyword.value, state, frame)
            if keyword.arg is not None:
                kwargs[keyword.arg] = (value, keyword.value)
            else:
                kwargs.update(splatted_keywords(
                    keyword.value, node, frame.function,
                    lambda test: self.condition_text(test, frame), state.conditions))
        return args, kwargs

    # ---- functions --------------------------------------------------------------------------

    def function_call(self, callee, args, kwargs, node, state, frame):
        if isinstance(callee, Function):
            return self.inline(callee.definition, args, kwargs, node, state, frame,
                               callee.bound_self)
        if isinstance(callee, Functions):
            return self.call_each(callee.choices, args, kwargs, node, state, frame)
        if isinstance(callee, ClassInfo):
            init = self.package.method(callee, "__init__")
            # A new object of its own: its fields are not another instance's (not even one the
            # same line made in another call).
            instance = Symbol(Key(("object", callee.name, node.lineno, node.col_offset,
                                   next(self.analysis.object_numbers), frame.ident)),
                              callee.name)
            if init is not None:
                keep_given_handles(self.package, init, args, kwargs, instance, state)
                self.inline(init, args, kwargs, node, state, frame, instance)
                if self.split_exits and node is self.statement_call:
                    # Each way out of __init__ gives the caller the new object, not what
                    # __init__ returned (None): without it the object's fields are lost.
                    self.split_exits = [(out, instance) for out, _ in self.split_exits]
            return instance
        if isinstance(callee, Module):
            return self.module_call(callee.name, args, kwargs, node, state, frame)
        if isinstance(callee, Stream):
            return None
        name = self.spelling(node.func)
        if name in _BUILTIN_NO_ACCESS:
            return self.builtin(name, args, node, state, frame)
        if name in model.HOST_READING_FUNCTIONS:
            for value, argument in args:
                if self.is_tensor(value, argument, frame):
                    self.host_blocking_read(value, name, argument, state, frame)
            return None
        self.unknown_call(args, kwargs, name, node, state, frame)
        node._unseen = True
        return None

    def call_each(self, choices, args, kwargs, node, state, frame):
        """A call of one of several functions: each that does stream work in its own body is
        followed from its own copy of the state, and any other is taken as a call the analysis
        cannot see into (a bound on the cost of walking several bodies for one call: a choice of
        kernels that reach the device only through helpers is common and costly). The statement
        that makes the call goes on along each one's paths (what one returns, a dict of its work
        handles, is not another's); a call inside an expression, from their join."""
        outs = []
        for choice in choices:
            branch = state.copy()
            self.split_exits = None
            if self.package.does_stream_work_itself(choice.definition):
                value = self.inline(choice.definition, args, kwargs, node, branch, frame,
                                    choice.bound_self)
            else:
                value = None
                self.unknown_call(args, kwargs, choice.definition.name, node, branch, frame)
            outs += self.split_exits or [(branch, value)]
        self.split_exits = outs if node is self.statement_call and len(outs) > 1 else None
        joined = join_all([out for out, _ in outs])
        for slot in State.__slots__:
            setattr(state, slot, getattr(joined, slot))
        values = [value for _, value in outs]
        return values[0] if all(value == values[0] for value in values) else None

    def builtin(self, name, args, node, state, frame):
        if name == "enumerate" and args:
            element = self.element_of(args[0][0], args[0][1], state, frame)
            return Container((Container((None, element)),))
        if name == "zip" and args:
            return Container((Container(tuple(self.element_of(v, n, state, frame)
                                               for v, n in args)),))
        if name == "range":
            step = linear_form(args[2][0]) if len(args) == 3 else ((), 1)
            # Counting up, no number is below the start; counting down, the start is the most.
            start = Constant(0) if len(args) == 1 else args[0][0] if args else None
            least = least_of(start) if step is not None and not step[0] and step[1] > 0 else None
            return Range("range@%d:%d" % (node.lineno, node.col_offset), step, least) \
                if step is not None else None
        if name in ("list", "tuple", "reversed", "sorted", "iter") and args:
            value = args[0][0]
            if isinstance(value, Container) or isinstance(value, (Symbol, Tensor)):
                return value
            if isinstance(value, Range):
                # The same numbers; backwards, each iteration's is a step before the last's.
                return value if name != "reversed" else \
                    Range(value.symbol, linear_form(scale_linear(value.step, -1)), value.least)
        if name == "next" and args:
            return self.element_of(args[0][0], args[0][1], state, frame)
        if name == "isinstance" and len(args) == 2 and isinstance(args[0][0], Work) and \
                (self.spelling(args[1][1]) or "").rsplit(".", 1)[-1] == "Work":
            return Constant(True)   # `if isinstance(handle, dist.Work): handle.wait()`
        if name in ("map", "filter") and len(args) == 2:
            return self.mapped(name, args, state, frame)
        return None

    def mapped(self, name, args, state, frame):
        """`map(lambda h: h.wait(), handles)`, `filter(...)`: the lambda's body for an element
        of the iterable, as a comprehension's (`[h.wait() for h in handles]`)."""
        function, (iterable, iterable_node) = args[0][1], args[1]
        parameters = function.args if isinstance(function, ast.Lambda) else None
        if parameters is None or len(parameters.args) != 1 or parameters.vararg or \
                parameters.kwonlyargs or parameters.kwarg:
            return None
        element = self.element_of(iterable, iterable_node, state, frame)
        self.bind_local(parameters.args[0].arg, element, None, state, frame)
        result = self.evaluate(function.body, state, frame)
        return Container((result,)) if name == "map" else iterable

    def module_call(self, name, args, kwargs, node, state, frame):
        last = name.rsplit(".", 1)[-1]
        if name in model.SHALLOW_COPY_FUNCTIONS and len(args) == 1:
            return args[0][0]
        passed_through = model.PASS_THROUGH_FUNCTIONS.get(name, -1)
        if 0 <= passed_through < len(args):
            return args[passed_through][0]
        if last == "get_accelerator":
            return DeviceModule("get_accelerator()")
        if last == "get_device_module":
            return DeviceModule("torch.get_device_module()")
        device, call = device_module_call(name)
        if device is not None:
            return self.device_call(DeviceModule(device), call, args, kwargs, node, state, frame)
        if name in ("torch.Stream", "torch.Event"):
            return self.device_call(DeviceModule("torch"), last, args, kwargs, node, state, frame)
        collective = _collective_name(name)
        if collective is not None:
            return self.collective(collective, args, kwargs, node, state, frame)
        if last == model.BATCH_P2P:
            return self.batch_p2p(args, node, state, frame)
        if last == "P2POp" and len(args) >= 2:
            group = kwargs.get("group") or (args[3] if len(args) > 3 else None)
            if group is not None and "gloo" in self.spelling(group[1]).lower():
                # A Gloo group's (Megatron-LM's `gloo_pg`): host tensors, sent and received by
                # the host, whose wait for the request orders every stream's later work.
                return None
            operation = self.spelling(args[0][1]).rsplit(".", 1)[-1]
            return Container((Constant(model.P2P_OPS.get(operation, "read")), args[1][0]))
        if last == model.COALESCING_MANAGER:
            return ("coalescing", self.group_stream(kwargs, args, 0),
                    self.flag_holds(kwargs, "async_ops", state, frame))
        if last in model.KNOWN_RESULTS:
            return Constant(model.KNOWN_RESULTS[last])
        if name.startswith(model.OPTIMIZER_MODULE + ".") and last[:1].isupper():
            # An optimizer: its step() reads every gradient on the current stream.
            return Symbol(Key(("optimizer", frame.module.path, node.lineno, node.col_offset)),
                          last)
        if name in model.BACKWARD_FUNCTIONS:
            self.gradients_written(name, node, state, frame)
            return None
        if last in model.WORK_REGISTRATIONS and args:
            return self.waited_by_its_receiver(args[0][0], state, frame)
        if last in model.LIFETIME_FUNCTIONS and args:
            return self.lifetime_call(model.LIFETIME_FUNCTIONS[last], args, node, state, frame)
        if name.rpartition(".")[0] in model.TENSOR_FUNCTION_MODULES:
            return self.torch_function(last, args, kwargs, node, state, frame)
        if last in _BUILTIN_NO_ACCESS or name in _BUILTIN_NO_ACCESS:
            return None
        self.unknown_call(args, kwargs, name, node, state, frame)
        return None

    def lifetime_call(self, kind, args, node, state, frame):
        """PyTorch's storage helpers (FSDP's `_free_storage`, `_alloc_storage`,
        `_no_dispatch_record_stream`): what they do to a tensor's storage, not accesses."""
        tensor = args[0][0]
        if kind == "record_stream" and len(args) > 1:
            stream = self.as_stream(args[1][0], args[1][1])
            if getattr(tensor, "key", None) is not None:
                state.recorded = state.recorded | {(tensor.key, recorded_stream_key(stream))}
        elif kind == "release" and isinstance(tensor, (Tensor, Symbol)):
            self.storage_emptied(tensor, node, state, frame)
        elif kind == "allocate":
            self.storage_allocated(tensor, node, state, frame)
        return None

    def storage_allocated(self, tensor, node, state, frame):
        """The storage gets a new block from the pool of the stream current here: the allocator
        hands it out again only to that stream's later work once it is freed. Every name and
        attribute holding the tensor holds it so. The work still pending on the block it had
        used other bytes (whether the block was given back too early was judged when it was)."""
        if not isinstance(tensor, (Tensor, Symbol)) or tensor.key is None:
            return
        # Where a release found too early names the block's pool: the next allocation there
        # (the same statement, for the next object of a loop or the next call) may take it.
        self.analysis.blocks_taken.setdefault(tensor.key, self.site(node, frame))
        state.forget_uses_of(self.accesses, tensor.key)
        state.emptied = state.emptied - {tensor.key}
        regrown = Tensor(tensor.key, state.current, getattr(tensor, "on_host", False))
        if tensor.key.path:
            state.attributes[tensor.key] = regrown
        for bindings in (state.attributes, state.locals):
            for name in [name for name, value in bindings.items()
                         if isinstance(value, Tensor) and value.key == tensor.key]:
                bindings[name] = regrown

    # ---- the device: streams, events, synchronization ------------------------------------

    def device_call(self, device, call, args, kwargs, node, state, frame):
        kind = model.DEVICE_CALLS.get(call) or model.TORCH_CONSTRUCTORS.get(call)
        spelling = self.spelling(node)
        if kind == "new_stream":
            return Stream("stream@%s:%d:%d" % (frame.module.path, node.lineno, node.col_offset),
                          "created", spelling)
        if kind == "new_event":
            return Event("event@%s:%d:%d#%d" % (frame.module.path, node.lineno, node.col_offset,
                                                frame.ident), spelling)
        if kind == "current_stream":
            current = state.current
            return Stream(current.key, current.kind, spelling if current.kind == "ambient"
                          else current.spelling or spelling)
        if kind == "default_stream":
            return Stream(DEFAULT.key, DEFAULT.kind, spelling)
        if kind == "stream_context":
            if state.conditions.get(self.optional_stream_text(node, frame)):
                return None   # `stream(None)`
            stream = args[0][0] if args else kwargs.get("stream", (None, None))[0]
            stream = self.as_stream(stream, args[0][1] if args else None)
            return StreamContext(stream) if stream is not None else None
        if kind == "set_stream":
            stream = self.as_stream(args[0][0], args[0][1]) if args else None
            if stream is not None:
                state.current = stream
            return None
        if kind == "device_synchronize":
            state.host_waits_for_device()
            return None
        if call in model.KNOWN_RESULTS:
            return Constant(model.KNOWN_RESULTS[call])
        return None

    def as_stream(self, value, node):
        """A value given where a stream goes: a symbol becomes the stream it names (an
        attribute's stream is a side stream of the program; a parameter's may be any)."""
        if isinstance(value, Stream):
            return value
        if isinstance(value, Symbol):
            kept = self.facts.current_stream_field(value.key)
            if kept is not None:
                return kept
            # A stream the class reads from itself but nothing in the package ever stores
            # (code that cannot run as given, or a subclass elsewhere sets it) is unknown.
            kind = "opaque" if value.key.root[0] == "param" and not value.key.path or \
                value.key.root[0] == "self" and len(value.key.path) == 1 and \
                self.package.never_stored(value.key.field_name()) else "named"
            key = attribute_stream_key(value.key) or "named:" + kept_stream_key(value.key) \
                if kind == "named" else "opaque:" + repr(value.key)
            # Spelled as where it is used when that is an attribute (`self._stream` holding
            # the constructor's `stream`): the fix-its go where it is used.
            spelling = self.spelling(node) if isinstance(node, ast.Attribute) else \
                value.spelling or (self.spelling(node) if node is not None else "")
            return Stream(key, kind, spelling, value.key)
        if isinstance(value, Constant) and value.value is None:
            return None
        return None

    def stream_method(self, stream, name, args, kwargs, node, state, frame):
        kind = model.STREAM_METHODS.get(name)
        if kind == "wait_stream" and args:
            other = self.as_stream(args[0][0], args[0][1])
            if other is not None:
                state.stream_waits(self.accesses, stream, other)
                self.facts.waited(stream, other)
            return None
        if kind == "wait_event" and args:
            event = self.as_event(args[0][0], args[0][1], state, frame)
            if event is not None:
                self.event_wait(event, stream, node, state, frame)
            return None
        if kind == "record_event":
            event = self.as_event(args[0][0], args[0][1], state, frame) if args else \
                Event("event@%s:%d:%d#%d" % (frame.module.path, node.lineno, node.col_offset,
                                             frame.ident), self.spelling(node))
            if event is None:
                return None   # an event the analysis has no name for
            state.record_event(self.accesses, event.key, stream)
            self.facts.recorded(event.key, stream, frame.function)
            return event
        if kind == "stream_synchronize":
            state.host_waits_for_stream(self.accesses, stream)
            self.facts.host_waited(stream)
            return None
        return None

    def as_event(self, value, node, state, frame):
        if isinstance(value, Event):
            return value
        if isinstance(value, Symbol):
            key = value.key
            base = self.evaluate(node.value, state, frame) if isinstance(node, ast.Attribute) and \
                isinstance(node.value, ast.Name) and key.root[0] in ("param", "local") else None
            if isinstance(base, Symbol) and base.key.root[0] in ("self", "object"):
                # An event the object was given (`self.copy_event = copy_event`): the attribute's.
                key = base.key.attribute(node.attr)
            return Event(kept_event_key(key, self.facts), value.spelling or self.spelling(node))
        return None

    def event_method(self, event, name, args, kwargs, node, state, frame):
        kind = model.EVENT_METHODS.get(name)
        given = args[0] if args else kwargs.get("stream")
        stream = self.as_stream(given[0], given[1]) if given else None
        if kind == "event_record":
            state.record_event(self.accesses, event.key, stream or state.current)
            self.facts.recorded(event.key, stream or state.current, frame.function)
        elif kind == "event_wait":
            self.event_wait(event, stream or state.current, node, state, frame)
        elif kind == "event_synchronize":
            if event.key not in state.events:
                # Recorded by another call (`__init__` records the copies' event, `get_output`
                # synchronizes it): the host has waited for what preceded the records there.
                state.host_waits_for_records(self.facts.recorded_streams(event.key))
            state.host_waits_for_event(event.key)
            self.facts.event_synchronized(event.key)
        return None

    def polled_to_completion(self, test, state, frame):
        """The way past an `if` where an event's or a stream's `query()` held (`if
        self.copied is None or self.copied.query():`, the second way): the host saw the work
        before the record, or the stream's work, done, as a synchronize would have waited for
        it."""
        polls = getattr(test, "_polls", None)
        if polls is None:
            # A test belongs to one function, whose polling flags are known once: its polls are.
            polls = test._polls = polls_in(test, polling_flags(frame.function.node))
        for call in polls:
            text = self.condition_text(call, frame)
            if text is None or state.conditions.get(text) is not True:
                continue
            receiver = self.evaluate(call.func.value, state, frame)
            if isinstance(receiver, Stream):
                state.host_waits_for_stream(self.accesses, receiver)
                continue
            event = self.as_event(receiver, call.func.value, state, frame)
            if event is not None:
                self.event_method(event, "synchronize", [], {}, call, state, frame)

    def event_wait(self, event, waiter, node, state, frame):
        recorded = state.wait_event(event.key, waiter)
        captured = state.events.get(event.key)
        if captured is not None and captured[2] is not None:
            self.facts.waited(waiter, Stream(captured[2], "named"))
        elif captured is None:
            self.facts.waited_for_event(waiter, event.key)
            # Recorded by another call: this path has waited for the streams it is recorded on.
            state.waited = state.waited | {(waiter.key, recorded_on) for recorded_on
                                           in self.facts.recorded_streams(event.key)}
        if not recorded and event.key.startswith("event@") and \
                event.key.endswith("#%d" % frame.ident):
            self.checks.wait_unrecorded_event(event, waiter, node, state, frame)

    def appended(self, container, value, node, state, frame):
        """`self.streams.append(torch.cuda.Stream())`, `works.append(work)`,
        `bucket.append(grad_slice)` in a loop: the list's elements are what was appended, as a
        list literal's are (one made in a loop is one element of the list, named by the element
        that reaches it), so that waiting for each element of the list waits for them, and an
        access through an element reaches the tensor's bytes."""
        grown = Container(container.items + (value,))
        if (listed(value) or is_p2p_operation(value)) and value not in container.items or \
                isinstance(node.func.value, ast.Name) and holds_made_tensors(grown):
            self.container_changed(node.func.value, container, grown, state, frame)

    # ---- methods ------------------------------------------------------------------------------

    def method_call(self, receiver, name, args, kwargs, node, state, frame):
        if isinstance(receiver, DeviceModule):
            return self.device_call(receiver, name, args, kwargs, node, state, frame)
        if isinstance(receiver, Module):
            return self.module_call(receiver.name + "." + name, args, kwargs, node, state, frame)
        if isinstance(receiver, Stream):
            if name in model.STREAM_METHODS:
                return self.stream_method(receiver, name, args, kwargs, node, state, frame)
            return None
        if isinstance(receiver, Event):
            return self.event_method(receiver, name, args, kwargs, node, state, frame)
        if isinstance(receiver, Work):
            if name in ("wait", "synchronize"):
                self.handle_waited(node.func.value, frame)
                self.work_wait(receiver, state)
            return None
        if isinstance(receiver, Container) and receiver.key is None:
            if name == "wait" and any(isinstance(i, Work) for i in receiver.items):
                self.handle_waited(node.func.value, frame)
                for item in receiver.items:
                    if isinstance(item, Work):
                        self.work_wait(item, state)
                return None
            if name == "extend" and args and isinstance(args[0][0], Container) and \
                    args[0][0].key is None and \
                    all(listed(item) for item in receiver.items + args[0][0].items):
                added = tuple(item for item in args[0][0].items if item not in receiver.items)
                self.container_changed(node.func.value, receiver,
                                       Container(receiver.items + added), state, frame)
                return None
            if name in ("append", "extend", "insert", "add"):
                for value, _ in args:
                    self.escape(value, state)
                if name == "append" and len(args) == 1:
                    self.appended(receiver, args[0][0], node, state, frame)
                return None
            if name in ("pop", "get") and args and isinstance(args[0][0], Constant) and \
                    receiver.labels and receiver.labelled():
                return items_labelled(receiver, args[0][0].value)
            if name == "pop":
                return _first_work(receiver.items)
            if name == "update" and args and holds_handles(receiver) and \
                    receiver.labelled() and holds_handles(args[0][0]) and \
                    args[0][0].labelled() and \
                    isinstance(node.func.value, (ast.Name, ast.Attribute)):
                self.assign(node.func.value, merge_labelled(receiver, args[0][0]), None, state,
                            frame)
                return None
            if name == "values" and holds_handles(receiver):
                return Container(receiver.items)
        if is_coalescing(receiver):
            if name == "wait":
                self.handle_waited(node.func.value, frame)
                self.wait_outstanding_work(state)
            return None
        if name in QUEUE_ADDS or name in QUEUE_TAKES:
            taken = queued_event(self.facts, receiver, name, args, frame)
            if taken is not NOT_QUEUED:
                return taken
            taken = queued_tensor(self, receiver, state, frame) if name in QUEUE_TAKES else None
            if taken is not None:
                return taken
        if isinstance(receiver, Symbol) and name == "append" and len(args) == 1:
            self.keep_handles(receiver.key, args[0][0], state)   # `self.handles.append(work)`
        if name in QUEUE_ADDS and len(args) == 1:
            queue_tensor(self, receiver, args[0][0], node.args[0], state, frame)
        if isinstance(receiver, Symbol) and name in _LOGGING_METHODS and \
                name not in model.VIEW_METHODS and \
                self.class_method(receiver, name, frame) is None:
            # A container's or a logger's method on an object of unknown kind: what it is given
            # may be kept there. (An object of a package class has its own `start`, `update`.)
            for value, _ in list(args) + list(kwargs.values()):
                self.escape(value, state)
            return None
        if name in model.KNOWN_RESULTS and not args:
            return Constant(model.KNOWN_RESULTS[name])
        if isinstance(receiver, Symbol) and name in _STREAM_ONLY_METHODS:
            # `state._post_backward_stream.wait_stream(...)`: only a stream has these.
            stream = self.as_stream(receiver, node.func.value)
            if stream is not None:
                return self.stream_method(stream, name, args, kwargs, node, state, frame)
        if isinstance(receiver, Symbol) and name in model.EVENT_METHODS and \
                (named_as_an_event(receiver.key) or self.facts.event_field(receiver.key)) and \
                self.class_method(receiver, name, frame) is None:
            # `state.fork_event.record()`: what a name says it holds is an event, as a stream
            # kept in an attribute is one (the analysis has not seen it made).
            event = self.as_event(receiver, node.func.value, state, frame)
            return self.event_method(event, name, args, kwargs, node, state, frame)
        if isinstance(receiver, Symbol) and receiver.key.root[0] == "optimizer":
            if name == "step":
                self.access(Tensor(Key(("field", "grad"))), "read", "optimizer.step", node,
                            state, frame)
            return None
        if isinstance(receiver, (Symbol, Tensor)):
            function = self.resolve_method(receiver, name, args, kwargs, frame)
            if isinstance(function, tuple):
                return self.call_each(function, args, kwargs, node, state, frame)
            if function is not None:
                return self.inline(function, args, kwargs, node, state, frame, receiver)
            if receiver.key.root[0] in ("self", "object") and not receiver.key.path:
                # `self._stream_context = torch.cuda.stream`, called later: what the call of
                # the library function the object's attribute holds does (asked of objects
                # only: a tensor's method calls, most calls, hold none).
                held = self.attribute_of(receiver, name, node.func, state, frame)
                if isinstance(held, Module) and device_module_call(held.name)[0] is not None:
                    return self.function_call(held, args, kwargs, node, state, frame)
            if name == "wait" and not args:
                # A handle of unknown kind (a future, an awaitable): what it hands back is ready
                # on the stream current at the wait.
                node._unseen = True
                self.handle_waited(node.func.value, frame)
                self.wait_outstanding_work(state)
                return None
            if name in ("synchronize",) and not args:
                state.host_waits_for_device()
                return None
            if name in ("current_stream", "default_stream", "Stream", "Event", "stream",
                        "set_stream") and name in model.DEVICE_CALLS and \
                    receiver.key.root[0] != "local":
                # A device module the analysis did not recognize by name (an accelerator
                # object held in an attribute).
                return self.device_call(DeviceModule(self.spelling(node.func.value)), name, args,
                                        kwargs, node, state, frame)
            if (name in model.TENSOR_ATTRIBUTES or name.startswith("_")) and \
                    self.is_tensor(receiver, node.func.value, frame, method=name):
                return self.tensor_method(receiver, name, args, kwargs, node, state, frame)
        if name in _LOGGING_METHODS:
            return None
        if isinstance(receiver, Function):
            return None
        self.unknown_call(args, kwargs, name, node, state, frame)
        node._unseen = True
        return None

    def class_method(self, receiver, name, frame):
        """The method `name` of the package class the receiver is known to be an object of."""
        key = receiver.key
        class_name = key.instance_of() if key is not None else None
        if class_name is None:
            return None
        return self.package.method(self.package.class_named(class_name, frame.module), name)

    def resolve_method(self, receiver, name, args, kwargs, frame):
        found = self.class_method(receiver, name, frame)
        if found is not None:
            return found
        if name in model.METADATA_METHODS or name in model.VIEW_METHODS or \
                name.endswith("_") or name in model.COPY_METHODS or \
                name in model.HOST_BLOCKING_METHODS or name in _LOGGING_METHODS or \
                name in model.STREAM_METHODS or name in model.EVENT_METHODS or \
                name in model.WORK_METHODS:
            # The torch API's own names: a package function of the same name is more likely a
            # wrapper of it than the method this object has.
            return None
        if name in model.TENSOR_ATTRIBUTES and \
                self.is_tensor(receiver, None, frame, method=name):
            # `grads.norm()` is the tensor's own method, whatever a package class of the same
            # method name does.
            return None
        found = self.package.unique_method(name)
        if found is None:
            found = tuple(Function(f, receiver) for f in self.package.implementations(name)
                          if f.accepts(args, kwargs)) or None
        elif not found.accepts(args, kwargs):
            # Called with what that method cannot take: another object's method of that name.
            return None
        return found

    # ---- tensors ----------------------------------------------------------------------------

    def gradients_written(self, api, node, state, frame):
        """backward() runs the backward operators on the stream current for the forward ones:
        every gradient is written there."""
        self.access(Tensor(Key(("field", "grad"))), "write", api, node, state, frame)

    def tensor_method(self, tensor, name, args, kwargs, node, state, frame):
        if name == "backward":
            self.read_tensor_arguments(args, kwargs, node, state, frame)
            self.gradients_written("backward", node, state, frame)
            return None
        if name == model.RECORD_STREAM:
            stream = self.as_stream(args[0][0], args[0][1]) if args else None
            if tensor.key is not None:
                state.recorded = state.recorded | {(tensor.key, recorded_stream_key(stream))}
            return None
        if name in model.METADATA_METHODS:
            if name == "untyped_storage" or name == "storage":
                return tensor
            return None
        if name in model.VIEW_METHODS:
            return _part_of(tensor) if name in model.PARTIAL_VIEWS else tensor
        if name in model.NEW_TENSOR_METHODS:
            self.read_tensor_arguments(args, kwargs, node, state, frame)
            return self.fresh_tensor(node, state, frame, on_host=isinstance(tensor, Tensor) and
                                     tensor.on_host)
        if name == model.STORAGE_RESIZE:
            if args and isinstance(args[0][0], Constant) and args[0][0].value == 0:
                self.storage_emptied(tensor, node, state, frame)
            elif args:
                self.storage_allocated(tensor, node, state, frame)
            return None
        on_host = isinstance(tensor, Tensor) and tensor.on_host
        if name in model.HOST_BLOCKING_METHODS:
            if on_host and name == "numpy":
                return tensor   # an array over the same host memory, read when it is used
            if on_host:
                self.access(tensor, "read", name, node.func.value, state, frame,
                            stream=HOST_STREAM, own_bytes=True)
                return tensor if name == "cpu" else None
            self.host_blocking_read(tensor, name, node.func.value, state, frame)
            return self.fresh_tensor(node, state, frame, on_host=True, on_host_stream=True) \
                if name == "cpu" else None
        if name in ("to", "cuda", "pin_memory"):
            return self.device_copy(tensor, name, args, kwargs, node, state, frame)
        if name == "copy_":
            return self.copy_into(tensor, args, kwargs, node, state, frame)
        if name.endswith("_") and not name.startswith("_") and \
                name not in model.NOT_WRITING_IN_PLACE:
            self.read_tensor_arguments(args, kwargs, node, state, frame)
            self.access(tensor, "read_write", name, node.func.value, state, frame,
                        stream=HOST_STREAM if on_host else None, own_bytes=True)
            return tensor
        self.read_tensor_arguments(args, kwargs, node, state, frame)
        self.access(tensor, "read", name, node.func.value, state, frame,
                    stream=HOST_STREAM if on_host else None, own_bytes=True)
        if name in model.DATA_DEPENDENT_SIZES and isinstance(tensor, Tensor) and not on_host:
            self.host_waits_for_the_current_stream(state)
        out = kwargs.get("out")
        if out is not None:
            self.access(out[0], "write", name, out[1], state, frame, own_bytes=True)
            return out[0]
        return self.fresh_tensor(node, state, frame, on_host=on_host)

    def torch_function(self, name, args, kwargs, node, state, frame):
        if name in model.NON_ACCESSING_FUNCTIONS:
            return None
        if name in ("Stream", "Event"):
            return self.device_call(DeviceModule("torch"), name, args, kwargs, node, state,
                                    frame)
        out = kwargs.get("out")
        if name in model.HOST_TENSOR_TYPES:
            made = self.fresh_tensor(node, state, frame, on_host=True, on_host_stream=True)
            return Tensor(made.key, made.alloc_stream, True, pageable=True)
        if name in model.FACTORY_FUNCTIONS:
            device = kwargs.get("device")
            pinned = self.keyword_true(kwargs, "pin_memory")
            on_host = pinned or (device is not None and self.to_host([device], {}))
            if device is None and name.endswith("_like"):
                on_host = on_host or bool(args) and isinstance(args[0][0], Tensor) and \
                    args[0][0].on_host
            elif device is None and name in model.HOST_BY_DEFAULT_FACTORIES:
                on_host = on_host or not self.package.sets_default_device()
            made = self.fresh_tensor(node, state, frame, on_host=on_host, on_host_stream=on_host)
            if on_host and not pinned and not name.endswith("_like"):
                made = Tensor(made.key, made.alloc_stream, True, pageable=True)
            return made
        if name in model.VIEW_FUNCTIONS and args:
            self.read_tensor_arguments(args[1:], kwargs, node, state, frame)
            base = args[0][0]
            if not isinstance(base, (Tensor, Symbol)):
                return None
            return _part_of(base) if name in model.PARTIAL_VIEWS else base
        self.read_tensor_arguments(args, {k: v for k, v in kwargs.items() if k != "out"}, node,
                                   state, frame, api="torch." + name)
        if out is not None:
            self.access(out[0], "write", "torch." + name, out[1], state, frame, own_bytes=True)
            return out[0]
        # Of host tensors only (`torch.repeat_interleave(counts.cumsum(0), counts)`), computed on
        # the host when the call returns.
        given = list(args) + list(kwargs.values())
        on_host = "device" not in kwargs and \
            any(isinstance(value, Tensor) and value.on_host for value, _ in given) and \
            all(isinstance(value, Tensor) and value.on_host for value, argument in given
                if self.is_tensor(value, argument, frame, strong=False))
        if name in model.DATA_DEPENDENT_SIZES and given and isinstance(given[0][0], Tensor) and \
                not given[0][0].on_host:
            # Only for a tensor known to be on the device: one the code may have moved to the
            # host already (`if mask.is_cuda: mask = mask.cpu()`) makes the host wait for nothing.
            self.host_waits_for_the_current_stream(state)
        return self.fresh_tensor(node, state, frame, on_host=on_host, on_host_stream=on_host)

    def read_tensor_arguments(self, args, kwargs, node, state, frame, api=None):
        api = api or self.spelling(node.func).rsplit(".", 1)[-1] if isinstance(node, ast.Call) \
            else api
        for value, argument in list(args) + list(kwargs.values()):
            if isinstance(value, Container) and value.key is None:
                for item in value.items:
                    if self.is_tensor(item, argument, frame, strong=False):
                        self.access(item, "read", api, argument, state, frame, own_bytes=True)
            elif self.is_tensor(value, argument, frame, strong=False):
                self.access(value, "read", api, argument, state, frame, own_bytes=True)

    def unknown_call(self, args, kwargs, name, node, state, frame):
        """A function the analysis cannot see into reads the tensors it is given on the current
        stream, and may keep them (a local another stream made still needs record_stream)."""
        for value, argument in list(args) + list(kwargs.values()):
            if not state.local_made_on_another_stream(value):
                self.escape(value, state)
            if isinstance(value, Container) and value.key is None:
                for item in value.items:
                    # A view put into the list (`bucket.append(flat.narrow(...))`) is one.
                    if isinstance(item, Tensor) and item.key.root[0] != "temporary" or \
                            isinstance(item, Symbol) and (
                                item.partial or self.is_tensor(item, argument, frame)):
                        self.access(item, "read", name or "call", argument, state, frame)
            elif isinstance(value, Tensor) and value.key.root[0] != "temporary":
                if not self.analysis.handing_out.handed_on_while_copied(value, state, frame):
                    self.access(value, "read", name or "call", argument, state, frame)
            elif isinstance(value, Symbol) and (self.is_tensor(value, argument, frame) or
                                                value.key in self.moved_modules):
                self.access(value, "read", name or "call", argument, state, frame)


def _first_work(items):
    for item in items:
        if isinstance(item, Work):
            return item
    return None


__all__ = ["CallEffects", "FunctionInfo"]


def _part_of(value):
    if isinstance(value, Tensor):
        return Tensor(value.key, value.alloc_stream, value.on_host, partial=True)
    if isinstance(value, Symbol):
        return Symbol(value.key, value.spelling, partial=True)
    return value
