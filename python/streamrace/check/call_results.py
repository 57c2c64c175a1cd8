# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What a local bound to a call's result holds, or to a value the walk cannot tell: an object
of its own for each binding (by the assignment, by the loop iteration, by the call that made
it), and the work that computed it when code outside the package made it on a side stream. And
what an attribute holds once given the result of a call the walk cannot see into that was handed
the attribute's own new object.
"""
import ast

from .. import torch_model
from .syntax import breadth_first
from .values import Constant, Key, Symbol, Tensor


class CallResults:
    """Mixed into the expression evaluator (`bind_local`, `store_attribute`)."""

    def is_call_result(self, value, value_node, frame):
        return isinstance(value, (Tensor, Symbol)) and isinstance(value_node, ast.Call) and \
            _named_by_a_finished_call(value.key, frame) or value is None or \
            isinstance(value, Constant) and isinstance(value_node, ast.Call)

    def remade_from_own_value(self, key, value_node, node, state):
        """`self.batch = transform(self.batch)` where this call made what the attribute holds: a
        call the analysis cannot see into hands back that object or one it made of it, not an
        object another call left in the attribute. None otherwise."""
        previous = state.attributes.get(key)
        if not isinstance(value_node, ast.Call) or \
                not isinstance(previous, (Tensor, Symbol)) or \
                not previous.key.made_in_the_call():
            return None
        target = self.spelling(node)
        given = list(value_node.args) + [keyword.value for keyword in value_node.keywords]
        if not any(self.spelling(argument) == target for argument in given):
            return None
        return Symbol(previous.key, target)

    def call_result(self, value, name, value_node, state, frame):
        """The value a local bound to `value` (see `is_call_result`) holds."""
        if isinstance(value, (Tensor, Symbol)):
            return self.handed_back(value, name, value_node, state, frame)
        key = self.local_key(frame, name, value_node)
        if frame.loops and (isinstance(value_node, ast.Call) and
                            self._given_a_loop_element(value_node, state, frame) or
                            _made_from_what_the_loop_rebinds(value_node, frame)):
            key = Key(key.root, (key.path[0] + self.per_iteration(),))
        value = Symbol(key, name, least=self.least_result(value_node))
        on_a_side_stream = state.current.kind not in ("ambient", "default")
        if getattr(value_node, "_unseen", False) and (
                self.is_tensor(value, value_node, frame) or _awaited(value_node)
                if on_a_side_stream else self.calls_a_held_object(value_node)):
            # `with torch.cuda.stream(s): data = request.wait()`: the tensor a call of code
            # outside the package hands back was made by the work it enqueued on the stream
            # current at the call, a new object (which no earlier work touched). (The package's
            # own functions not followed are mostly getters of views of buffers made before.)
            # So is what an object the class holds computes when called on the current stream
            # (`self.sampler(logits)`, a module's forward), whatever it returns.
            self.access(value, "write", self.spelling(value_node.func), value_node, state, frame,
                        creation=True)
            if on_a_side_stream and state.current.kind in ("created", "named"):
                # Its block is from the pool of that stream, as a factory's would be there.
                return Tensor(key, state.current, partial=value.partial)
        return value

    def calls_a_held_object(self, call):
        """Whether a call calls an object held in an attribute of `self` (`self.model(x)`),
        which no function of the package is named after: a module or a callable, computing its
        result now, not a getter of the package."""
        function = getattr(call, "func", None)
        return isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name) and \
            function.value.id == "self" and \
            not self.package.functions_by_name.get(function.attr)

    def least_result(self, node):
        """The least value a call returns when it counts (`dist.get_rank(group)`, `len(xs)`,
        the world size's 1), else None."""
        if not isinstance(node, ast.Call):
            return None
        return torch_model.COUNTING_CALLS.get(self.spelling(node.func).rsplit(".", 1)[-1])

    def handed_back(self, value, name, value_node, state, frame):
        """An object a followed call made or fetched and returned, bound to a local: named by
        the local at this call (and loop iteration), as each call handed back an object of its
        own, with the callee's key kept as an alias for what the callee did to it. (Named by the
        callee's frame, it met another path's object bound to the same local at a join with
        nothing in common, and the join kept no name.) Taken as kept elsewhere too, as it was
        under the callee's name: rebinding the local releases nothing."""
        if value.key.made_in_the_call():
            key = Key(("local", frame.ident, name)).made(next(self.analysis.object_numbers))
        else:
            key = self.local_key(frame, name, value_node)
            if frame.loops:
                key = Key(key.root, (key.path[0] + self.per_iteration(),))
        key = Key(key.root, key.path, frozenset((value.key,)))
        state.escaped = state.escaped | {key}
        if isinstance(value, Tensor):
            return Tensor(key, value.alloc_stream, value.on_host, value.partial)
        return Symbol(key, name, value.partial)

    def per_iteration(self):
        """What tells a name's object in one iteration of the loops around it from another."""
        return "/it" + "".join(map(str, self.iterations))

    def _given_a_loop_element(self, call, state, frame):
        """Whether a call the analysis cannot see into, in a loop, is given what differs from one
        iteration of the loop to the next (the loop's element, or what such a call returned):
        its result is then taken as another object in each iteration (`gbuf =
        self.buffer(bucket_id)`, `bucket = gbuf.fetch()`), as the element it was given is."""
        for name in _names_in(call):
            key = getattr(self.lookup_name(name, state, frame), "key", None)
            if isinstance(key, Key) and any(part.startswith("[it:") or
                                            part.startswith("@") and "/it" in part
                                            for part in key.path):
                return True
        return False


def _awaited(call):
    """`request.wait()` of an object the analysis does not know (an awaitable, a future): what
    it hands back is what the work it waited for made, data, as no collective's handle is."""
    return isinstance(call.func, ast.Attribute) and call.func.attr == "wait" and \
        not call.args and not call.keywords


def _names_in(node):
    """The plain names an expression reads, found once per node (loops walk it twice, and each
    path walks it again)."""
    names = getattr(node, "_names", None)
    if names is None:
        names = node._names = tuple(child.id for child in breadth_first(node)
                                    if isinstance(child, ast.Name))
    return names


def _named_by_a_finished_call(key, frame):
    """Whether a key is a local of a call this frame made, which has returned, or a new object
    such a call made: frames are numbered in the order they start, so a later one than this
    frame's is one of its callees' (the frames of its callers and of its closures' definers are
    earlier and still live)."""
    if key.root[0] == "object":
        return not key.path and key.root[-1] > frame.ident
    return key.root[0] == "local" and key.root[1] > frame.ident


def _made_from_what_the_loop_rebinds(value_node, frame):
    """Whether an element the analysis does not know is taken from a container the innermost
    loop binds anew in each iteration (`local = parts[rank]`, `parts` a list the body builds):
    it is then another object in each iteration, as a loop element is. (Not any value computed
    from such a name: `grad = bucket.data` may be one staging buffer every iteration fetches.)"""
    return isinstance(value_node, ast.Subscript) and isinstance(value_node.value, ast.Name) and \
        value_node.value.id in frame.loops[-1][2]
