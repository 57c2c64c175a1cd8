# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Expressions: what each stands for, and the accesses evaluating it makes.

A name or attribute is a reference to storage (no access by itself); using it in an operation
is the access: an operand of arithmetic or a comparison, an argument of a torch function, the
receiver of a tensor method. Whether a name holds a tensor at all is decided from how the code
uses it (`usage.py`): `n += 1` on a counter is no device write.
"""
import ast
import functools
import re

from .. import torch_model
from .call_results import CallResults
from .elements import ElementEvaluator, either
from .event_queues import made_empty
from .gradients import owns_autograd_gradients
from .indices import integer_arithmetic
from .made_lists import MadeLists, holds_made_tensors
from .condition_texts import condition_text, mentions_name
from .package import ClassInfo, FunctionInfo, expression_name
from .state import AMBIENT, HOST_STREAM
from .syntax import bound_names, child_nodes
from .values import (Constant, Container, DeviceModule, Event, Function, Integer, Key, Linear,
                     Module, Stream, Symbol, Tensor, Work, attribute_stream_key, holds_handles,
                     HANDLES, is_coalescing, least_of, linear_form, scale_linear,
                     sequence_arithmetic, store_labelled)

_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.MatMult,
               ast.BitAnd, ast.BitOr, ast.BitXor, ast.LShift, ast.RShift)


class ExpressionEvaluator(ElementEvaluator, CallResults, MadeLists):
    # ---- names ----------------------------------------------------------------------------

    def local_key(self, frame, name, node=None):
        """A local's storage: each assignment of a new object gives the name a new one (`x =
        x.to(dtype)` does not touch the old x's bytes); aliases keep the object's key."""
        if node is None:
            return Key(("local", frame.ident, name))
        return Key(("local", frame.ident, name), ("@%d:%d" % (node.lineno, node.col_offset),))

    def lookup_name(self, name, state, frame):
        value = state.locals.get((frame.ident, name), _UNSET)
        if value is not _UNSET:
            return value
        # A closure called from the function that defined it reads that function's locals.
        outer = frame.enclosing
        while outer is not None:
            value = state.locals.get((outer.ident, name), _UNSET)
            if value is not _UNSET:
                return value
            outer = outer.enclosing
        if name == "self" and frame.self_key is not None:
            return Symbol(frame.self_key, "self")
        positional, vararg, keyword_only, kwarg = frame.function.parameters()
        if name in positional or name in keyword_only or \
                name in frame.function.closure_names():
            # A closure started on its own (a hook a factory made for its `params`) holds what
            # its maker's call bound: given from outside, as a parameter is.
            return self.parameter(frame.function, frame, name)
        # What else a name stands for depends on the function alone (its module's functions,
        # classes and imports): found once, as the same name is read on every path and call.
        found = self.analysis.names_outside.get((frame.function, name))
        if found is None:
            found = self.analysis.names_outside[(frame.function, name)] = \
                self.name_outside(name, frame)
        return found

    def name_outside(self, name, frame):
        """What a name that is neither a local nor a parameter of the frame's function stands
        for."""
        resolved = self.package.resolve_name(frame.module, frame.function, name)
        if isinstance(resolved, FunctionInfo):
            return Function(resolved)
        if isinstance(resolved, ClassInfo):
            return resolved
        imported = frame.module.imports.get(name)
        if imported is not None:
            return Module(imported)
        if name in ("torch", "get_accelerator"):
            return Module(name)
        if name in ("True", "False", "None"):
            return Constant({"True": True, "False": False, "None": None}[name])
        return Symbol(Key(("global", frame.module.dotted, name)), name)

    # ---- evaluation -----------------------------------------------------------------------

    def evaluate(self, node, state, frame):
        handler = _EXPRESSION_HANDLERS.get(type(node), _MISSING_HANDLER)
        if handler is _MISSING_HANDLER:
            handler = _EXPRESSION_HANDLERS[type(node)] = getattr(
                type(self), "expr_" + type(node).__name__, None)
        if handler is not None:
            return handler(self, node, state, frame)
        for child in child_nodes(node):
            if isinstance(child, ast.expr):
                self.evaluate(child, state, frame)
        return None

    def expr_Constant(self, node, state, frame):
        cached = getattr(node, "_value", None)
        if cached is None:
            cached = node._value = Constant(node.value)
        return cached

    def expr_Name(self, node, state, frame):
        return self.lookup_name(node.id, state, frame)

    def expr_Attribute(self, node, state, frame):
        base = self.evaluate(node.value, state, frame)
        return self.attribute_of(base, node.attr, node, state, frame)

    def attribute_of(self, base, attribute, node, state, frame):
        if isinstance(base, Module):
            dotted = base.name + "." + attribute
            if dotted in torch_model.DEVICE_MODULES:
                return DeviceModule(dotted)
            found = self.package.module_attribute(base.name, attribute)
            if isinstance(found, FunctionInfo):
                return Function(found)
            if isinstance(found, ClassInfo):
                return found
            return Module(dotted)
        if isinstance(base, DeviceModule):
            return Module(base.spelling + "." + attribute)
        if isinstance(base, (Tensor, Symbol)):
            if attribute in torch_model.VIEW_ATTRIBUTES and isinstance(base, Tensor):
                return base
            if attribute in torch_model.VIEW_ATTRIBUTES:
                return base
            if attribute in torch_model.METADATA_ATTRIBUTES:
                return None
            if attribute.endswith("_device_handle") or attribute == "device_handle":
                return DeviceModule(attribute)
            prop = self.class_method(base, attribute, frame)
            if prop is not None and prop.is_property and self.package.does_stream_work(prop):
                # `self.main_stream`, a cached property returning `current_stream()`: what
                # its body gives, not a side stream kept under that name.
                return self.inline(prop, (), {}, node, state, frame, bound_self=base)
            key = base.key.attribute(attribute)
            return self.stored_value(key, state, frame,
                                     spelling=self.spelling(node) if node is not None else "")
        if isinstance(base, Container) and base.key is not None:
            return Symbol(base.key.attribute(attribute))
        return None

    def stored_value(self, key, state, frame, spelling=""):
        """What an attribute holds: what this path stored there, else what the class's methods
        store there (streams made in __init__, buffers made in a prefetch), else a symbol."""
        if key in state.attributes:
            value = state.attributes[key]
            if value is not None:
                return value
        fact = self.facts.attribute(key)
        if fact is not None:
            return fact
        if self.facts.host_tensor_field(key):
            return Tensor(key, None, True, pageable=self.facts.pageable_field(key))
        for alias in key.aliases:
            # What the call that handed the object back stored in it, or its class's methods.
            found = self.stored_value(alias, state, frame, spelling)
            if isinstance(found, Symbol) and found.key == alias:
                continue
            if not alias.is_instance_alias():
                return found
            # The class's knowledge of an object it does not name: its streams, events and the
            # objects it makes. Tensors, flags and work handles are each object's own.
            if isinstance(found, (Stream, Event, ClassInfo)) or \
                    isinstance(found, Symbol) and found.key.instance_of() is not None:
                return found
        return Symbol(key, spelling)

    def expr_Tuple(self, node, state, frame):
        items = tuple(self.evaluate(e, state, frame) for e in node.elts)
        for item in items:
            self.escape(item, state)
        literal = not any(isinstance(e, ast.Starred) for e in node.elts)
        return Container(items, literal=literal)

    expr_List = expr_Tuple
    expr_Set = expr_Tuple

    def expr_Dict(self, node, state, frame):
        keys = [self.evaluate(key, state, frame) if key is not None else None
                for key in node.keys]
        items = tuple(self.evaluate(v, state, frame) for v in node.values)
        if all(isinstance(key, Constant) for key in keys) and \
                all(isinstance(item, HANDLES) for item in items):
            return Container(items, labels=tuple(key.value for key in keys))
        return Container(items)

    def expr_Starred(self, node, state, frame):
        return self.evaluate(node.value, state, frame)

    def expr_Await(self, node, state, frame):
        return self.evaluate(node.value, state, frame)

    def expr_NamedExpr(self, node, state, frame):
        value = self.evaluate(node.value, state, frame)
        self.assign(node.target, value, node.value, state, frame)
        return value

    def expr_IfExp(self, node, state, frame):
        outcome, _, _ = self.condition(node.test, state, frame)
        if outcome is True:
            return self.evaluate(node.body, state, frame)
        if outcome is False:
            return self.evaluate(node.orelse, state, frame)
        first = self.evaluate(node.body, state, frame)
        second = self.evaluate(node.orelse, state, frame)
        return first if first == second else either(first, second)

    def expr_BoolOp(self, node, state, frame):
        values = [self.evaluate(v, state, frame) for v in node.values]
        if isinstance(node.op, ast.Or):
            # `stream or torch.cuda.current_stream()`: either one.
            known = [v for v in values if not (isinstance(v, Constant) and not v.value)]
            if len(known) == 1:
                return known[0]
            # `given or {torch.cuda.current_stream()}`: what the fallback is, when the first is
            # something the analysis cannot tell the truth of.
            concrete = [v for v in known if v is not None and not isinstance(v, Symbol)]
            if len(concrete) == 1:
                return concrete[0]
            return either(*known) if known else None
        return None

    def expr_UnaryOp(self, node, state, frame):
        value = self.evaluate(node.operand, state, frame)
        if isinstance(node.op, ast.Not):
            truth = self.constant_truth(value)
            return Constant(not truth) if truth is not None else None
        if isinstance(node.op, ast.USub) and isinstance(value, Constant) and \
                isinstance(value.value, int) and not isinstance(value.value, bool):
            return Constant(-value.value)   # `range(n - 1, -1, -1)`: ast keeps -1 unfolded
        if isinstance(node.op, ast.USub) and isinstance(value, Integer):
            return Integer(value.symbol, -value.scale, -value.offset)
        if isinstance(node.op, ast.USub) and isinstance(value, Linear):
            return scale_linear(linear_form(value), -1)
        if self.is_tensor(value, node.operand, frame):
            self.access(value, "read", _operator_name(node.op), node, state, frame,
                        own_bytes=True)
            on_host = isinstance(value, Tensor) and value.on_host
            return self.fresh_tensor(node, state, frame, on_host=on_host, on_host_stream=on_host)
        return None

    def expr_BinOp(self, node, state, frame):
        left = self.evaluate(node.left, state, frame)
        right = self.evaluate(node.right, state, frame)
        neighbour = self.ring_neighbour(node, state, frame)
        if neighbour is not None:
            return neighbour
        tensors = [(v, n) for v, n in ((left, node.left), (right, node.right))
                   if self.is_tensor(v, n, frame)]
        if not tensors:
            # Index arithmetic (`i + 1`, `base + rank`), unless an operand is a tensor.
            integer = integer_arithmetic(node.op, left, right)
            if integer is not None:
                return integer
        sequence = sequence_arithmetic(node.op, left, right)
        if sequence is not None:
            return sequence
        if not tensors:
            return None
        for value, operand in tensors:
            self.access(value, "read", _operator_name(node.op), operand, state, frame,
                        own_bytes=True)
        on_host = all(isinstance(value, Tensor) and value.on_host for value, _ in tensors)
        return self.fresh_tensor(node, state, frame, on_host=on_host, on_host_stream=on_host)

    def expr_Compare(self, node, state, frame):
        known = _world_size_fact(node)
        if known is not None:
            return Constant(known)
        emptiness = _emptiness_test(node)
        if emptiness is not None:
            handles = self.evaluate(emptiness[0], state, frame)
            if holds_handles(handles) and handles.items:
                # A list or dict a handle was stored in is not empty (`if len(reqs) > 0:` waits
                # for each). One with none seen stored may have been filled in a way the
                # analysis does not follow: its emptiness stays unknown. A handle stored on one
                # of two paths joined here is taken as stored on both.
                return Constant(not emptiness[1])
        values = [self.evaluate(node.left, state, frame)]
        values += [self.evaluate(c, state, frame) for c in node.comparators]
        if all(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops):
            if len(values) == 2 and isinstance(values[1], Constant) and values[1].value is None \
                    and isinstance(node.ops[0], (ast.Is, ast.IsNot)):
                if isinstance(values[0], Constant):
                    # None on this path: assigned, or narrowed by a test that held.
                    return Constant((values[0].value is None) ==
                                    isinstance(node.ops[0], ast.Is))
                # A tensor made here is not None; a stream, an event, a work handle or a
                # coalescing manager either.
                if isinstance(values[0], (Tensor, Stream, Event, Work)) and \
                        getattr(values[0], "alloc_stream", "x") is not None or \
                        is_coalescing(values[0]):
                    return Constant(isinstance(node.ops[0], ast.IsNot))
                # A list, tuple or dict the code built is not None either (`params=[p]` given
                # for `if params is None: params = self.params`), nor an attribute the package
                # only ever stores streams in (another object's `engine.recv_stream`), once
                # every store is known.
                if isinstance(values[0], Container) and values[0].key is None or \
                        self.analysis.reporting and isinstance(values[0], Symbol) and \
                        values[0].key is not None and self.facts.always_a_stream(values[0].key):
                    return Constant(isinstance(node.ops[0], ast.IsNot))
            return None
        operands = [node.left] + list(node.comparators)
        for value, operand in zip(values, operands):
            if self.is_tensor(value, operand, frame):
                self.access(value, "read", "comparison", operand, state, frame,
                            own_bytes=True)
        if len(values) == 2:
            return _decided_by_least(node.ops[0], values[0], values[1])
        return None

    def expr_JoinedStr(self, node, state, frame):
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                self.evaluate(value.value, state, frame)
        return None

    def expr_Lambda(self, node, state, frame):
        return None

    def comprehension(self, node, state, frame, element, key=None):
        # Its variables are its own (Python 3): a name they shadow is the function's again after
        # it, and what they held no name holds (a gradient dropped after `[p.grad for p in ps]`).
        shadowed = {name: state.locals.get((frame.ident, name), _UNSET)
                    for generator in node.generators for name in bound_names(generator.target)}
        for generator in node.generators:
            iterable = self.evaluate(generator.iter, state, frame)
            self.assign(generator.target, self.element_of(iterable, generator.iter, state, frame),
                        None, state, frame)
            for test in generator.ifs:
                self.evaluate(test, state, frame)
        if key is not None:
            self.evaluate(key, state, frame)
        # A dict's items are its values, as for a dict written out.
        made = Container((self.evaluate(element, state, frame),))
        for name, value in shadowed.items():
            if value is _UNSET:
                state.locals.pop((frame.ident, name), None)
            else:
                state.locals[(frame.ident, name)] = value
        return made

    def expr_ListComp(self, node, state, frame):
        return self.comprehension(node, state, frame, node.elt)

    expr_SetComp = expr_ListComp
    expr_GeneratorExp = expr_ListComp

    def expr_DictComp(self, node, state, frame):
        return self.comprehension(node, state, frame, node.value, node.key)

    def expr_Call(self, node, state, frame):
        return self.call(node, state, frame)

    # ---- binding --------------------------------------------------------------------------

    def assign(self, target, value, value_node, state, frame):
        if isinstance(target, ast.Name):
            self.bind_local(target.id, value, value_node, state, frame)
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = value.items if isinstance(value, Container) and value.key is None else None
            for position, element in enumerate(target.elts):
                if isinstance(element, ast.Starred):
                    element = element.value
                    part = None
                elif items is not None and position < len(items):
                    part = items[position]
                else:
                    part = self.element(value, Constant(position), None, state, frame) \
                        if isinstance(value, (Tensor, Symbol)) else None
                self.assign(element, part, None, state, frame)
        elif isinstance(target, ast.Attribute):
            base = self.evaluate(target.value, state, frame)
            if isinstance(base, (Symbol, Tensor)) and base.key is not None:
                key = base.key.attribute(target.attr)
                self.handed_to_an_object(base, value, target, state, frame)
                if target.attr == "data":
                    if isinstance(value, (Tensor, Symbol)) and \
                            value.key.held_by_an_attribute_of(base.key):
                        self.analysis.data_pointed_at(value.key.path[len(base.key.path)])
                    # `t.data = torch.empty(0)` (deallocation helpers do this), or t pointed at
                    # a view of other bytes (`grad.data = bucket.narrow(...)`): t's old storage
                    # is released. A view of t's own bytes keeps them.
                    if isinstance(value, (Tensor, Symbol)) and value_node is not None and \
                            (value.key.root[0] == "temporary" or
                             not value.key.overlaps(base.key)):
                        self.storage_released(base, target, state, frame, storage_only=True)
                    return
                self.store_attribute(key, value, value_node, target, state, frame)
        elif isinstance(target, ast.Subscript):
            base = self.evaluate(target.value, state, frame)
            index = self.evaluate(target.slice, state, frame)
            if self.is_tensor(base, target.value, frame):
                # `x[i] = v` copies v's bytes into x's on the current stream (a host tensor's
                # on the host).
                if value_node is not None and self.is_tensor(value, value_node, frame):
                    self.access(value, "read", "__setitem__", value_node, state, frame,
                                own_bytes=True)
                self.access(base, "write", "__setitem__", target, state, frame,
                            own_bytes=True)
                return
            # A dict or list holds the value now (`out[name] = y`, returned later): dropping the
            # name no longer frees it.
            self.escape(value, state)
            if isinstance(base, (Symbol, Container)) and getattr(base, "key", None) is not None:
                key = base.key.element(self.index_part(index))
                self.store_attribute(key, value, value_node, target, state, frame)
            elif isinstance(value, HANDLES) and isinstance(index, Constant) and \
                    holds_handles(base) and base.labelled() and \
                    isinstance(target.value, (ast.Name, ast.Attribute)):
                # `handles["send_next"] = work`: the dict holds the handle under that key (a
                # stream, an event likewise).
                self.assign(target.value, store_labelled(base, index.value, value), None, state,
                            frame)
            elif isinstance(base, Container) and base.key is None and not base.labels and \
                    isinstance(target.value, ast.Name) and isinstance(value, Tensor):
                # `results[name] = tensor` into a dict the function built: it holds the tensor
                # among its items, as an append does.
                self.assign(target.value, Container(base.items + (value,)), None, state, frame)
            elif isinstance(base, Container) and base.key is None and \
                    isinstance(target.value, ast.Attribute) and not isinstance(value, HANDLES):
                # `self.model_states[name] = state` into a dict the class made empty: it holds
                # what the program put there, which other methods iterate over.
                self.assign(target.value, None, None, state, frame)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, None, None, state, frame)

    def container_changed(self, target, old, new, state, frame):
        """A list or dict the code built, spelled `target`, changed by an append or an extend:
        the name holds the new one; an element of another such container
        (`buckets[key].append(grad_slice)`) is replaced there. A list of tensors kept in an
        attribute keeps being named by the attribute (`self.buffers[i]`, the name the class's
        other methods use); one of streams, events or work handles holds them."""
        if isinstance(target, ast.Name) and holds_made_tensors(new):
            # `gathered.append(torch.empty_like(x))`: the name's elements (made_lists.py).
            self.assign(target, self.name_made_list(new, self.local_key(frame, target.id)), None,
                        state, frame)
        elif isinstance(target, ast.Name) or isinstance(target, ast.Attribute) and \
                all(isinstance(item, HANDLES) for item in new.items):
            self.assign(target, new, None, state, frame)
        elif isinstance(target, ast.Subscript):
            outer = self.evaluate(target.value, state, frame)
            if isinstance(outer, Container) and outer.key is None and old in outer.items:
                items = tuple(new if item == old else item for item in outer.items)
                self.container_changed(target.value, outer, Container(items), state, frame)

    def bind_local(self, name, value, value_node, state, frame):
        previous = state.locals.get((frame.ident, name))
        if isinstance(previous, Tensor) and previous.alloc_stream is not None and \
                previous.key.root == ("local", frame.ident, name) and \
                previous.key not in state.escaped and value_node is not None:
            # The name held the only reference to a tensor made here: rebinding releases it.
            self.storage_released(previous, value_node, state, frame)
        if self.is_call_result(value, value_node, frame):
            value = self.call_result(value, name, value_node, state, frame)
        elif isinstance(value, Tensor) and value.key.root[0] == "temporary":
            value = self.bind_new_tensor(value, self.local_key(frame, name), state, value_node)
        elif value_node is not None and holds_made_tensors(value):
            value = self.name_made_list(value, self.local_key(frame, name))
        elif isinstance(value, Tensor) and value.key.field_name() is not None:
            # A local name of a tensor an attribute holds (`batch = self.next_batch`): dropping
            # the attribute no longer frees it.
            self.escape(value, state)
        elif isinstance(value, Stream) and "(" in value.spelling:
            value = Stream(value.key, value.kind, name)
        elif isinstance(value, Event) and "(" in value.spelling:
            value = Event(value.key, name)
        state.locals[(frame.ident, name)] = value
        # Conditions that mention the name may not hold any more.
        if state.conditions:
            for text in [t for t in state.conditions if mentions_name(t, name)]:
                del state.conditions[text]

    def store_attribute(self, key, value, value_node, node, state, frame):
        self.escape(value, state)
        if value_node is not None:
            self.attribute_dropped(key, value, node, state, frame)
        if isinstance(value, Tensor) and value.key.root[0] == "temporary":
            value = self.bind_new_tensor(value, key, state, value_node)
        elif value_node is not None and holds_made_tensors(value):
            value = self.name_made_list(value, key)
        elif isinstance(value, Stream) and value.kind == "created" and \
                attribute_stream_key(key) is not None and not _own_attribute(key, frame):
            # A stream made for an object the function was given (`state._unshard_stream =
            # Stream()` in a helper): the package's other functions reach it through other names
            # of that object, by its attribute only.
            value = Stream(attribute_stream_key(key), "named", self.spelling(node), key)
        elif isinstance(value, Stream) and "(" in value.spelling:
            value = Stream(value.key, value.kind, self.spelling(node))
        elif isinstance(value, Event) and "(" in value.spelling:
            value = Event(value.key, self.spelling(node))
        held = value
        if held is None:
            held = self.remade_from_own_value(key, value_node, node, state) or Symbol(key)
        state.attributes[key] = held
        state.emptied = state.emptied - {key}
        self.facts.stored(key, value, frame, made_empty(value, value_node))
        self.keep_handles(key, value, state)
        if state.conditions:
            # Conditions that read the attribute (`self.handle is None`, asserted before the
            # handle is stored) may not hold any more.
            spelling = key.text()
            if key.root[0] == "self":
                spelling = key.root[1] + spelling[len("self"):]
            for text in [t for t in state.conditions if _mentions_attribute(t, spelling)]:
                del state.conditions[text]

    def attribute_dropped(self, key, value, node, state, frame):
        """`self.buf = other` (or None, or `del self.buf`): a tensor this call made and kept in
        the attribute only is released."""
        previous = state.attributes.get(key)
        if isinstance(previous, Tensor) and previous.alloc_stream is not None and \
                previous.alloc_stream is not HOST_STREAM and previous.key.root == key.root and \
                previous.key.path[:-1] == key.path and previous.key.path[-1:] != () and \
                previous.key.path[-1].startswith("@") and previous.key not in state.escaped and \
                getattr(value, "key", None) != previous.key:
            self.storage_released(previous, node, state, frame, one_object=True)
        elif key.path[-1:] == (torch_model.GRADIENT_ATTRIBUTE,) and \
                (previous is None or getattr(previous, "key", None) == key) and \
                getattr(value, "key", None) != key and owns_autograd_gradients(frame):
            self.gradient_dropped(key, node, state, frame)

    def gradient_dropped(self, key, node, state, frame):
        """`param.grad = None` (or another value, or `del`) for the gradient autograd left in
        the parameter (gradients.py): released unless a name or another attribute holds it."""
        if not state.holds(key, besides=key):
            self.storage_released(Tensor(key, AMBIENT, False), node, state, frame)

    def augmented_assign(self, node, state, frame):
        value = self.evaluate(node.value, state, frame)
        current = self.evaluate(node.target, state, frame)
        integer = integer_arithmetic(node.op, current, value)
        if integer is not None:
            self.assign(node.target, integer, None, state, frame)
            return
        if self.is_tensor(current, node.target, frame):
            if self.is_tensor(value, node.value, frame):
                self.access(value, "read", _operator_name(node.op), node.value, state, frame,
                            own_bytes=True)
            self.access(current, "read_write", _operator_name(node.op) + "=", node.target, state,
                        frame, own_bytes=True)

    def escape(self, value, state):
        """The value is kept somewhere else now (an attribute, a container, a callee, the
        caller): dropping a name of it no longer frees it."""
        if isinstance(value, Container):
            for item in value.items:
                self.escape(item, state)
        elif isinstance(value, Tensor) and (value.key.is_local() or value.key.made_in_the_call()):
            state.escaped = state.escaped | {value.key}

    def delete(self, target, state, frame):
        if isinstance(target, ast.Name):
            previous = state.locals.get((frame.ident, target.id))
            if isinstance(previous, Tensor) and previous.alloc_stream is not None and \
                    previous.key.root[:2] == ("local", frame.ident) and \
                    previous.key not in state.escaped:
                self.storage_released(previous, target, state, frame)
            state.locals.pop((frame.ident, target.id), None)
        elif isinstance(target, ast.Attribute):
            base = self.evaluate(target.value, state, frame)
            if isinstance(base, (Symbol, Tensor)) and base.key is not None:
                key = base.key.attribute(target.attr)
                self.attribute_dropped(key, None, target, state, frame)
                state.attributes.pop(key, None)

    # ---- helpers --------------------------------------------------------------------------

    def constant_truth(self, value):
        if isinstance(value, Constant):
            try:
                return bool(value.value)
            except Exception:  # noqa: BLE001 - any object's truth may raise
                return None
        if isinstance(value, Container) and value.items and \
                all(isinstance(item, Work) for item in value.items):
            # A list of work handles tested before its last is waited for (`if self.handles:
            # self.handles[-1].wait()`): where it may be empty instead, no collective of it is
            # left to wait for, so taking the branch loses no ordering.
            return True
        return None

    def condition_text(self, test, frame):
        text = self.per_class(test, "_condition", frame, condition_text)
        given = frame.given_conditions
        return given.get(text, text) if given else text

    def per_class(self, node, slot, frame, compute):
        """`compute(node, class name)` for the class the frame runs in, kept on the node: the
        last class asked is the one asked again (the methods of one class come together)."""
        class_name = frame.class_info.name if frame.class_info else None
        cached = getattr(node, slot, None)
        if cached is not None and cached[0] == class_name:
            return cached[1]
        value = compute(node, class_name)
        setattr(node, slot, (class_name, value))
        return value

    def spelling(self, node):
        """The source text of an expression, computed once per node."""
        cached = getattr(node, "_spelling", None)
        if cached is not None:
            return cached
        try:
            text = ast.unparse(node)
        except Exception:  # noqa: BLE001 - unparse of any expression may fail on odd trees
            text = ""
        try:
            node._spelling = text
        except AttributeError:
            pass
        return text


def _emptiness_test(node):
    """(the container, True) for `len(c) == 0`, (the container, False) for `len(c) > 0`,
    `len(c) >= 1` or `len(c) != 0`; None for any other comparison."""
    if len(node.ops) != 1 or not isinstance(node.comparators[0], ast.Constant) or \
            not isinstance(node.left, ast.Call) or \
            not isinstance(node.left.func, ast.Name) or node.left.func.id != "len" or \
            len(node.left.args) != 1:
        return None
    op, bound = node.ops[0], node.comparators[0].value
    if isinstance(op, ast.Eq) and bound == 0:
        return node.left.args[0], True
    if isinstance(op, (ast.Gt, ast.NotEq)) and bound == 0 or isinstance(op, ast.GtE) and bound == 1:
        return node.left.args[0], False
    return None


def _world_size_fact(node):
    """A world size is at least 1: `world_size >= 1` holds and `world_size < 1` does not, so a
    branch that waits only where the group is empty never runs."""
    if len(node.ops) != 1 or not isinstance(node.comparators[0], ast.Constant):
        return None
    name = expression_name(node.left) or ""
    bound = node.comparators[0].value
    if not name.endswith("world_size") or not isinstance(bound, int) or bound > 1:
        return None
    op = node.ops[0]
    if isinstance(op, ast.GtE) or isinstance(op, ast.Gt) and bound < 1:
        return True
    if isinstance(op, ast.Lt) or isinstance(op, ast.LtE) and bound < 1 or \
            isinstance(op, ast.Eq) and bound < 1:
        return False
    return None


@functools.cache
def _own_attribute(key, frame):
    """Whether the key is an attribute of the object whose method the frame runs (`self.x`)."""
    return key.root[0] in ("self", "object") and len(key.path) == 1 and \
        frame.function.class_name == key.root[1]


_UNSET = object()
_MISSING_HANDLER = object()
_EXPRESSION_HANDLERS = {}   # expression node type -> its handler, looked up once


def _mentions_attribute(text, spelling):
    """Whether a condition's text reads the attribute `spelling` (`Bucket.handle`), or one of
    its own attributes."""
    return spelling in text and \
        re.search(r"(?<![\w.])%s(?!\w)" % re.escape(spelling), text) is not None


def _decided_by_least(op, left, right):
    """An integer compared with a constant, decided where the integer's least value settles it
    (a later iteration's `index > 0` over `range(n)`); None otherwise."""
    if isinstance(left, Constant) and not isinstance(right, Constant):
        left, right, op = right, left, _MIRRORED.get(type(op), type(op))()
    least, bound = least_of(left), least_of(right)
    if least is None or bound is None or not isinstance(right, Constant):
        return None
    if isinstance(op, ast.Gt) and least > bound or isinstance(op, ast.GtE) and least >= bound:
        return Constant(True)
    if isinstance(op, ast.Lt) and least >= bound or isinstance(op, ast.LtE) and least > bound:
        return Constant(False)
    if isinstance(op, (ast.Eq, ast.NotEq)) and least > bound:
        return Constant(isinstance(op, ast.NotEq))
    return None


_MIRRORED = {ast.Gt: ast.Lt, ast.Lt: ast.Gt, ast.GtE: ast.LtE, ast.LtE: ast.GtE}


def _operator_name(op):
    return {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
            ast.Mod: "%", ast.Pow: "**", ast.MatMult: "@", ast.BitAnd: "&", ast.BitOr: "|",
            ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>", ast.USub: "-", ast.UAdd: "+",
            ast.Invert: "~", ast.Not: "not"}.get(type(op), "operator")


__all__ = ["ExpressionEvaluator", "expression_name", "AMBIENT", "Work", "StreamContext",
           "DeviceModule"]
