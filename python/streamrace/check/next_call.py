# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A function run again from where its first run ended: a gradient hook's next firing, and the
next call of a method that finds its own earlier collective still outstanding.

A gradient hook fires once per parameter, one after the other, with nothing of the program
between two firings but autograd's work on the current stream. A method that branches on one of
its object's attributes being None before it keeps a collective's work handle there (`if
self.param_gather_handle is not None:` ... `self.param_gather_handle = cm`) says that a call may
find the handle its previous call kept: the collective that call started may still be running.
Each is analysed a second time, from what its first run left (pending work, the attributes it
stored); the method with the handle taken as outstanding. What the method's parameters and
locals decided belongs to the first call only: the second decides them anew.
"""
import ast

from .statements import merge_paths
from .values import Work

# The ways a first run may end that the second starts from, each on its own (past this, those
# that agree on what decides stream work are joined).
MAX_SECOND_RUNS = 8


class NextCalls:
    """The Walker's second runs."""

    def fire_again(self, function, exits):
        """A gradient hook's second firing starts from what the first left (pending work,
        attributes such as a ping-pong buffer's index), so that a buffer the first hands to
        another stream and the second refills is checked (DeepSpeed #5523)."""
        return self.run_again(function, exits, lambda start: None)

    def call_again(self, function, exits):
        """A method that may find the collective its previous call started still outstanding
        runs a second time from what the first left, with the handle taken as outstanding."""
        outstanding = self.analysis.calls_again(function)
        return self.run_again(function, exits, lambda start: carried_into_the_next_call(
            start, self.analysis, function.class_name, outstanding))

    def run_again(self, function, exits, prepare):
        starts = merge_paths(exits, self.package.stream_conditions, MAX_SECOND_RUNS)
        self.firing = 1
        ends = []
        for start in starts:
            # Each way the first run ended is followed on its own: what it left in an
            # attribute (which buffer of two is filled next) decides what the second touches.
            prepare(start)
            frame = self.new_frame(function, 0, ())
            self.spent = 0
            ends += self.block(function.node.body, [start], frame)
            ends += [s for s, _ in frame.returns]
        return ends


def handles_found_outstanding(function, holders):
    """The attributes the method branches on being None (`if self.X is not None:`) on a line
    before one that stores into them something other than None, each an attribute of its
    class that the package keeps collective handles in (`holders`: (class, attribute) pairs).
    An assertion that the handle is None says the opposite (the caller has waited for it) and
    does not count."""
    class_name = function.class_name
    if class_name is None:
        return ()
    names = {field for holder_class, field in holders if holder_class in (class_name, None)}
    if not names:
        return ()
    tested, stored = {}, {}
    for node in ast.walk(function.node):
        if isinstance(node, (ast.If, ast.IfExp)):
            for compare in ast.walk(node.test):
                name = _none_test(compare)
                if name in names:
                    tested[name] = min(tested.get(name, compare.lineno), compare.lineno)
        else:
            for name in own_attributes_stored(node) & names:
                stored[name] = max(stored.get(name, node.lineno), node.lineno)
    return tuple(sorted(name for name, line in tested.items()
                        if name in stored and stored[name] > line))


def _none_test(node):
    """X of `self.X is None` or `self.X is not None`, else None."""
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and \
            isinstance(node.ops[0], (ast.Is, ast.IsNot)) and \
            isinstance(node.comparators[0], ast.Constant) and node.comparators[0].value is None:
        return own_attribute(node.left)
    return None


def own_attributes_stored(node):
    """The attributes of `self` an assignment stores something other than None into."""
    if not isinstance(node, ast.Assign) or \
            isinstance(node.value, ast.Constant) and node.value.value is None:
        return set()
    return {own_attribute(target) for target in node.targets} - {None}


def own_attribute(node):
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
            node.value.id == "self":
        return node.attr
    return None


def carried_into_the_next_call(state, ledger, class_name, outstanding):
    """The state the next call starts from: the conditions on the object's attributes kept, the
    others (its parameters', its locals') dropped, from the path and from the work it left
    pending, which would otherwise never meet the next call's work made under the opposite
    value. The handles `outstanding` are not None: that is the call this run is about."""
    prefix = class_name + "."
    kept = {text: value for text, value in state.conditions.items() if text.startswith(prefix)}
    for name in outstanding:
        kept["%s%s is None" % (prefix, name)] = False
    state.conditions = kept
    remapped = {}
    for ident, ordered in list(state.pending.items()):
        access = ledger.accesses[ident]
        conditions = frozenset((text, value) for text, value in access.conditions
                               if text.startswith(prefix))
        if conditions != access.conditions:
            new = ledger.with_conditions(access, conditions).ident
            remapped[ident] = new
            del state.pending[ident]
            state.pending[new] = ordered
    if remapped:
        for key, value in list(state.attributes.items()):
            if isinstance(value, Work):
                state.attributes[key] = Work(value.stream, frozenset(
                    remapped.get(ident, ident) for ident in value.accesses), value.on_host)
    return state
